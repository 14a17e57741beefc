"""A persisted ROC answers every question about the rows it persisted (issue 29, item 2).

Parquet files are written, read lazily, the ROC built and persisted; then
the files are overwritten with other data of the same shape.  Every method of
the persisted ROC -- the bootstrap's first query included, which needs each
row's position -- must still describe the original rows: equal to
scikit-learn or an exact reference on the original NumPy columns (the
references of ``metric_registry.py``).  A lazy ROC reads its source when it
computes, as any dask collection does.
"""

from __future__ import annotations

from pathlib import Path

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import dask_auc
from metric_registry import (
    BOOTSTRAPS,
    COSTS,
    FPR_RANGE,
    GAINS_BINS,
    MAX_FPR,
    RECALL_TARGET,
    REGISTRY,
    SEED,
    TPR_RANGE,
)

N = 240
FILES = 3
_BOOTSTRAP = {"method": "bootstrap", "n_bootstraps": BOOTSTRAPS, "random_state": SEED}

#: (registry entry, ROC method, its keyword arguments): every method of the ROC
QUERIES = [
    # the bootstrap first: its first query is the one that used to sort the source again
    ("bootstrap_ci-roc_auc", "ci", _BOOTSTRAP),
    ("bootstrap_ci-average_precision", "ci", {**_BOOTSTRAP, "metric": "average_precision"}),
    (
        "bootstrap_ci-partial_auc-tpr_range",
        "ci",
        {**_BOOTSTRAP, "metric": "partial_auc", "tpr_range": (0.2, 0.7)},
    ),
    ("bootstrap_ci-tpr_at_fpr", "ci", {**_BOOTSTRAP, "metric": "tpr_at_fpr", "fpr": MAX_FPR}),
    ("roc_auc_score", "auc", {}),
    ("roc_auc_score-max_fpr", "auc", {"max_fpr": MAX_FPR}),
    ("partial_roc_auc_score-fpr_range", "partial_auc", {"fpr_range": FPR_RANGE}),
    ("partial_roc_auc_score-tpr_range", "partial_auc", {"tpr_range": TPR_RANGE}),
    ("average_precision_score", "average_precision", {}),
    ("roc_curve", "roc_curve", {"drop_intermediate": True}),
    ("roc_curve-all_points", "roc_curve", {"drop_intermediate": False}),
    ("precision_recall_curve", "precision_recall_curve", {}),
    ("confusion_matrix_at_thresholds", "confusion_matrix_at_thresholds", {}),
    ("det_curve", "det_curve", {}),
    ("det_curve-drop_intermediate", "det_curve", {"drop_intermediate": True}),
    ("ks_statistic", "ks", {}),
    ("operating_point-fpr", "operating_point", {"fpr": MAX_FPR}),
    ("operating_point-recall", "operating_point", {"recall": RECALL_TARGET}),
    ("operating_point-youden", "operating_point", {"criterion": "youden"}),
    ("operating_point-cost", "operating_point", {"cost": COSTS}),
    ("gains_table", "gains_table", {"n_bins": GAINS_BINS}),
    ("roc_auc_ci", "ci", {}),  # DeLong's: unweighted only
]


def _columns(seed: int, weighted: bool) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    columns = {"y_true": y, "y_score": np.round(rng.random(N) + 0.5 * y, 2)}
    if weighted:  # dyadic weights: exact sums, so operating points tie as in the reference
        columns["sample_weight"] = rng.integers(0, 9, N) / 4
    return columns


def _write(path: Path, columns: dict[str, np.ndarray]) -> None:
    frame = pd.DataFrame(columns)
    for i, part in enumerate(np.array_split(np.arange(N), FILES)):
        frame.iloc[part].to_parquet(path / f"part-{i}.parquet")


def _roc(path: Path, weighted: bool) -> dask_auc.ROC:
    source = dd.read_parquet(path)
    weight = source.sample_weight if weighted else None
    return dask_auc.roc(source.y_true, source.y_score, sample_weight=weight)


def _check(curve: dask_auc.ROC, columns: dict[str, np.ndarray], weighted: bool) -> None:
    """Every query of ``curve`` against the references on ``columns``."""
    for name, method, options in QUERIES:
        metric = REGISTRY[name]
        if weighted and name == "roc_auc_ci":
            with pytest.raises(ValueError, match="DeLong"):
                curve.ci()
            continue
        actual = metric.plain(getattr(curve, method)(**options))
        exact = metric.reference_exact and not weighted
        metric.compare(actual, metric.reference(columns), exact=exact)
    assert curve.labels() == (0, 1)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_every_query_of_a_persisted_roc_describes_the_persisted_rows(tmp_path, weighted):
    original = _columns(1, weighted)
    _write(tmp_path, original)
    curve = _roc(tmp_path, weighted).persist()
    rewritten = _columns(2, weighted)
    rewritten["y_true"] = 1 - rewritten["y_true"]  # an AUC below one half: nothing alike
    _write(tmp_path, rewritten)
    _check(curve, original, weighted)
    # a lazy ROC of the same files reads them when it computes: the new rows
    source = dd.read_parquet(tmp_path)
    fresh = dask_auc.roc(source.y_true, source.y_score, sample_weight=None).auc()
    assert (
        fresh == REGISTRY["roc_auc_score"].reference({**rewritten, "sample_weight": None})["value"]
    )


def test_a_lazy_roc_gives_the_replicates_of_the_reference(tmp_path):
    """Same seed, same replicates: a lazy ROC's bootstrap is the reference's, bit for bit."""
    original = _columns(3, False)
    _write(tmp_path, original)
    curve = _roc(tmp_path, False)
    for name, method, options in QUERIES[:4]:
        metric = REGISTRY[name]
        actual = metric.plain(getattr(curve, method)(**options))
        metric.compare(actual, metric.reference(original), exact=metric.reference_exact)


def test_a_persisted_roc_refuses_groups_read_from_a_source(tmp_path):
    """The cluster bootstrap pairs a new column with the persisted rows: refused, clearly."""
    original = _columns(4, False)
    _write(tmp_path, original)
    curve = _roc(tmp_path, False).persist()
    groups = dd.read_parquet(tmp_path).y_score
    with pytest.raises(ValueError, match="persisted ROC.*groups"):
        curve.ci(method="bootstrap", groups=groups, n_bootstraps=3, random_state=0)
    # on a lazy ROC every column is read when it computes: allowed
    lazy = _roc(tmp_path, False).ci(method="bootstrap", groups=groups, n_bootstraps=3)
    assert lazy.estimate == REGISTRY["roc_auc_score"].reference(original)["value"]


def test_the_repr_of_a_persisted_roc_shows_its_rows_and_positives():
    """Rows of unknown length (a boolean mask): ``?`` while lazy, the counts once persisted."""
    y = np.array([0, 1, 1, 0, 1, 0] * 10)
    s = np.arange(60) / 60
    keep = s > 0.1
    Y, S = da.from_array(y, chunks=20), da.from_array(s, chunks=20)
    curve = dask_auc.roc(Y[S > 0.1], S[S > 0.1])
    buckets = curve._sort.graph.n_buckets
    assert repr(curve) == f"ROC(rows=?, positives=?, buckets={buckets}, persisted=False)"
    curve.persist()
    rows, positives = int(keep.sum()), int(y[keep].sum())
    assert repr(curve) == (
        f"ROC(rows={rows}, positives={positives}, buckets={buckets}, persisted=True)"
    )
