"""One entry per public metric of dask-auc, driving the invariance tests of every metric at once.

As scikit-learn's ``THRESHOLDED_METRICS`` / ``CURVE_METRICS`` dictionaries
(``sklearn/metrics/tests/test_common.py``) do: a new metric gets every test of
``test_invariance.py`` by adding one :class:`Metric` to :data:`REGISTRY`.

Vocabulary
----------
columns
    A test case as NumPy arrays, rows along axis 0, keyed by role: ``y_true``,
    ``y_score`` (1-D, or 2-D per-class probabilities), and as the metric needs
    them ``sample_weight``, ``score_b`` (a second model, for DeLong's test) and
    ``group`` (for GAUC).  A case is weighted exactly when it holds ``sample_weight``.
inputs
    The same columns as dask collections, cut at given rows
    (:func:`dask_inputs`), plus ``frame``, the dask DataFrame, in the frame layout.
fields
    A result in plain NumPy: a dict of named arrays (``value`` for a number,
    ``fpr``/``tpr``/``thresholds`` for a curve, the fields of a result tuple).

Only dask-auc's public API is used here, and the independent references of
``references.py`` and scikit-learn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import dask.array as da
import numpy as np
import pandas as pd
import sklearn
from hypothesis import strategies as st
from sklearn import metrics as skm

import dask_auc
from references import exact_average_precision, pairwise_auc
from roc_polygon import partial_auc_reference
from strategies import dask_array, dask_frame, scored_rows
from threshold_references import GAINS_COLUMNS, gains_reference, operating_point_reference

Columns = Mapping[str, np.ndarray]
Fields = dict[str, np.ndarray]

RTOL = 1e-12
"""Relative tolerance of every comparison that is not bit for bit."""

MAX_FPR = 0.3
N_CLASSES = 3


@dataclass(frozen=True)
class Metric:
    """How to run one public metric, what to compare it with, and how.

    Attributes
    ----------
    name : str
        The test id.
    run : callable
        ``run(inputs, **options)``: the dask-auc call on dask ``inputs``, returning what
        dask-auc returns (a :class:`dask_auc.LazyScore` with ``compute=False``).
    plain : callable
        Turns what ``run`` computes (a float, curve arrays, a result tuple,
        :class:`dask_auc.GroupedAUC`) into fields.
    reference : callable
        ``reference(columns)``: the expected fields from scikit-learn or an independent
        reference on the NumPy columns; may hold fewer fields than ``plain`` makes
        (those left out, a standard error say, are checked for self-consistency only).
    weighted : bool
        The metric accepts ``sample_weight``.
    exact_fields : tuple of str
        Fields that are exact on unweighted data, so bit-identical whatever the
        partitioning, bucket count, tree shape or row order.  Every other field,
        and every field of weighted data, is compared within ``RTOL``.
    reference_exact : bool
        ``reference`` is exact too (a rational pair count or step sum rounded once,
        or scikit-learn's curve arrays, which are integer counts divided once):
        ``exact_fields`` of unweighted data must equal it bit for bit.  scikit-learn's
        AUC and average precision are float sums, a few ulps off the exact value:
        an entry comparing with them is not ``reference_exact``.
    scores : {"binary", "own_sort", "paired", "proba", "grouped"}
        What a case holds: binary labels and one score column (``"own_sort"``:
        the same, for a metric whose sort is not the ROC's, which the binary
        metrics of one input share); plus a second model's ``score_b``; a 2-D
        probability matrix of ``N_CLASSES`` classes; plus a ``group`` column.
    layouts : tuple of str
        Input layouts the metric takes: ``"frame"`` (columns of one dask DataFrame)
        and ``"array"`` (dask arrays).
    split_every : bool
        The function takes ``split_every``.
    dyadic_weights : bool
        Draw weights whose sums are exact (multiples of 1/4).  Only for the weighted
        ROC curve with ``drop_intermediate``: it compares float differences of
        running sums as scikit-learn does, so with weights such as 0.37 a point
        may be kept or dropped depending on the order of the additions (a
        limitation the README documents, not a bug); and for the operating
        points, chosen by comparing float criteria, for the same reason.
    atol : float
        Absolute tolerance added to ``RTOL`` in the comparisons that are not bit for
        bit, for a field whose exact value can be 0 while float sums leave a few
        ulps (see the entry that sets it).
    variants : tuple of dict
        Options of ``run`` that give another result (or another graph of the same
        result: ``split_every``), each overriding the entry's own: every pair of
        requests of one input that differ there must not share a task
        (``test_task_keys.py``).  The ``dask.config`` settings that shape a graph
        are varied for every entry there.
    sorts : bool
        The metric sorts rows across blocks (its graph depends on ``dask-auc.buckets``
        and its blocks go through the sort's kernels).  False for the per-sample
        metrics, which rank each row's columns within its block.
    positional : bool
        The result depends on each row's position in the input (the bootstrap's
        replicate counts), so shuffling the rows changes it.
    """

    name: str
    run: Callable[..., Any]
    plain: Callable[[Any], Fields]
    reference: Callable[[Columns], Fields]
    weighted: bool
    exact_fields: tuple[str, ...]
    reference_exact: bool
    scores: str = "binary"
    layouts: tuple[str, ...] = ("frame", "array")
    split_every: bool = False
    dyadic_weights: bool = False
    atol: float = 0.0
    variants: tuple[dict[str, Any], ...] = ()
    sorts: bool = True
    positional: bool = False

    @property
    def exact_unweighted(self) -> bool:
        """Some result of unweighted data is exact (bit-identical under any partitioning)."""
        return bool(self.exact_fields)

    def __call__(self, inputs: Mapping[str, Any], **options: Any) -> Fields:
        """Run on dask ``inputs`` (``compute=True``) and return plain fields."""
        return self.plain(self.run(inputs, **options))

    def compare(self, actual: Fields, expected: Fields, *, exact: bool) -> None:
        """Assert ``actual`` agrees with ``expected`` on every field ``expected`` holds.

        Same shapes always; with ``exact`` the ``exact_fields`` bit for bit (NaN
        equal to NaN), every other float field elementwise within ``RTOL`` (plus
        ``atol``); integer and object fields (counts, group keys) are always equal.
        """
        missing = set(expected) - set(actual)
        assert not missing, f"{self.name}: result lacks {sorted(missing)}"
        for field_name, want in expected.items():
            got, want = np.asarray(actual[field_name]), np.asarray(want)
            message = f"{self.name}: field {field_name!r}"
            assert got.shape == want.shape, f"{message}: shape {got.shape} != {want.shape}"
            floats = got.dtype.kind in "fc" or want.dtype.kind in "fc"
            if (exact and field_name in self.exact_fields) or not floats:
                np.testing.assert_array_equal(got, want, err_msg=message)
            else:
                np.testing.assert_allclose(got, want, rtol=RTOL, atol=self.atol, err_msg=message)


# -- turning results into fields --------------------------------------------------------------


def _value(result: Any) -> Fields:
    return {"value": np.asarray(result, dtype=float)}


def _curve(names: tuple[str, str, str]) -> Callable[[Any], Fields]:
    def plain(result: Any) -> Fields:
        assert len(result) == 3
        return {name: np.asarray(array) for name, array in zip(names, result, strict=True)}

    return plain


ROC_FIELDS = ("fpr", "tpr", "thresholds")
PR_FIELDS = ("precision", "recall", "thresholds")


def _result_tuple(result: Any) -> Fields:
    return {name: np.asarray(value, dtype=float) for name, value in result._asdict().items()}


def _grouped_fields(result: Any) -> Fields:
    table = result.per_group
    fields = {"group": table.index.to_numpy()}
    fields.update({column: table[column].to_numpy() for column in table.columns})
    fields["gauc"] = np.asarray(result.gauc, dtype=float)
    return fields


# -- running dask-auc on dask inputs ----------------------------------------------------------


def _binary(function: Callable[..., Any], **fixed: Any) -> Callable[..., Any]:
    """``function(y_true, y_score, sample_weight=..., **fixed, **options)``; options win."""

    def run(inputs: Mapping[str, Any], **options: Any) -> Any:
        weight = inputs.get("sample_weight")
        return function(
            inputs["y_true"], inputs["y_score"], sample_weight=weight, **{**fixed, **options}
        )

    return run


def _run_delong(inputs: Mapping[str, Any], **options: Any) -> Any:
    assert "sample_weight" not in inputs
    return dask_auc.delong_test(inputs["y_true"], inputs["y_score"], inputs["score_b"], **options)


def _run_grouped(inputs: Mapping[str, Any], **options: Any) -> Any:
    weight = "sample_weight" if "sample_weight" in inputs else None
    return dask_auc.grouped_roc_auc_score(
        inputs["frame"],
        by="group",
        label="y_true",
        score="y_score",
        sample_weight=weight,
        **options,
    )


# -- references on NumPy columns --------------------------------------------------------------


def _pairwise(columns: Columns) -> Fields:
    return {
        "value": np.asarray(
            pairwise_auc(columns["y_true"], columns["y_score"], columns.get("sample_weight"))
        )
    }


def _sklearn_value(function: Callable[..., Any], **fixed: Any) -> Callable[[Columns], Fields]:
    def reference(columns: Columns) -> Fields:
        value = function(
            columns["y_true"],
            columns["y_score"],
            sample_weight=columns.get("sample_weight"),
            **fixed,
        )
        return {"value": np.asarray(value, dtype=float)}

    return reference


def _average_precision_reference(columns: Columns) -> Fields:
    """Unweighted: the exact rational step sum rounded once; weighted: scikit-learn's."""
    if "sample_weight" in columns:
        return _sklearn_value(skm.average_precision_score)(columns)
    value = exact_average_precision(columns["y_true"], columns["y_score"])
    return {"value": np.asarray(float(value))}


def _sklearn_curve(
    function: Callable[..., Any], names: tuple[str, str, str], **fixed: Any
) -> Callable[[Columns], Fields]:
    def reference(columns: Columns) -> Fields:
        arrays = function(
            columns["y_true"],
            columns["y_score"],
            sample_weight=columns.get("sample_weight"),
            **fixed,
        )
        return dict(zip(names, arrays, strict=True))

    return reference


def _ci_reference(columns: Columns) -> Fields:
    """The AUC against the pair count; the standard error and interval: self-consistency only."""
    return {"auc": np.asarray(pairwise_auc(columns["y_true"], columns["y_score"]))}


def _delong_reference(columns: Columns) -> Fields:
    """Both AUCs against the pair count; difference, standard error, z, p: self-consistency."""
    return {
        "auc_a": np.asarray(pairwise_auc(columns["y_true"], columns["y_score"])),
        "auc_b": np.asarray(pairwise_auc(columns["y_true"], columns["score_b"])),
    }


def ks_reference(columns: Columns) -> Fields:
    """KS statistic and threshold by exact rational arithmetic (floats are exact rationals).

    ``max |tpr - fpr|`` over the distinct scores of rows of nonzero weight, each
    point holding its whole tie group; of equal gaps the highest threshold.  The
    statistic is the exact maximum rounded once.

    Weighted, the threshold is left out when another score's gap is within
    ``RTOL`` of the largest: dask-auc sums the weights in floats (weighted
    results are held to ``RTOL``), and gaps that equal or nearly equal ones
    are ordered by rounding there (Hypothesis found two exactly equal gaps
    of weights 0.0887...).
    """
    y, s = np.asarray(columns["y_true"]), np.asarray(columns["y_score"])
    w = np.asarray(columns.get("sample_weight", np.ones(len(y))), dtype=float)
    positive = y == np.unique(y)[-1]
    counted = w != 0
    total_pos = sum(map(Fraction, w[positive]), Fraction(0))
    total_neg = sum(map(Fraction, w[~positive]), Fraction(0))
    best, threshold = Fraction(-1), np.nan
    gaps = []
    tp = fp = Fraction(0)
    for score in np.unique(s[counted])[::-1]:
        here = s == score
        tp += sum(map(Fraction, w[here & positive]), Fraction(0))
        fp += sum(map(Fraction, w[here & ~positive]), Fraction(0))
        gap = abs(tp / total_pos - fp / total_neg)
        gaps.append(gap)
        if gap > best:
            best, threshold = gap, score
    fields = {"statistic": np.asarray(float(best))}
    near = [gap for gap in gaps if gap >= best * (1 - Fraction(RTOL))]
    if "sample_weight" not in columns or len(near) == 1:
        fields["threshold"] = np.asarray(threshold, dtype=float)
    return fields


def grouped_reference(columns: Columns) -> Fields:
    """pandas groupby + scikit-learn's ``roc_auc_score`` per group, and the row-weighted GAUC.

    A group's ``n_pos``/``n_neg`` count its rows of nonzero weight; its AUC is NaN
    unless both are positive; GAUC weighs each group holding both classes by
    ``n_pos + n_neg`` (by ``weight_pos + weight_neg`` when weighted).
    """
    frame = pd.DataFrame(dict(columns))
    weighted = "sample_weight" in frame
    if not weighted:
        frame["sample_weight"] = 1.0
    frame["positive"] = frame["y_true"] == np.unique(frame["y_true"])[-1]
    rows = []
    for key, group in frame.groupby("group", sort=True):
        counted = group[group["sample_weight"] != 0]
        n_pos = int(counted["positive"].sum())
        n_neg = len(counted) - n_pos
        auc = np.nan
        if n_pos and n_neg:
            # scikit-learn's computation without its per-call checks (~10 ms a group)
            with sklearn.config_context(skip_parameter_validation=True, assume_finite=True):
                auc = skm.roc_auc_score(
                    group["y_true"].to_numpy(),
                    group["y_score"].to_numpy(),
                    sample_weight=group["sample_weight"].to_numpy() if weighted else None,
                )
        weight_pos = group.loc[group["positive"], "sample_weight"].sum()
        weight_neg = group.loc[~group["positive"], "sample_weight"].sum()
        rows.append((key, auc, n_pos, n_neg, weight_pos, weight_neg))
    table = pd.DataFrame(
        rows, columns=["group", "auc", "n_pos", "n_neg", "weight_pos", "weight_neg"]
    )
    both = (table["n_pos"] > 0) & (table["n_neg"] > 0)
    if weighted:
        group_weight = table["weight_pos"] + table["weight_neg"]
    else:
        group_weight = table["n_pos"] + table["n_neg"]
    gauc = (group_weight[both] * table["auc"][both]).sum() / group_weight[both].sum()
    fields = {name: table[name].to_numpy() for name in ("group", "auc", "n_pos", "n_neg")}
    if weighted:
        fields["weight_pos"] = table["weight_pos"].to_numpy()
        fields["weight_neg"] = table["weight_neg"].to_numpy()
    fields["gauc"] = np.asarray(gauc, dtype=float)
    return fields


def _multiclass_reference(multi_class: str) -> Callable[[Columns], Fields]:
    return _sklearn_value(skm.roc_auc_score, multi_class=multi_class)


# -- the registry -----------------------------------------------------------------------------

_ENTRIES = [
    Metric(
        name="roc_auc_score",
        run=_binary(dask_auc.roc_auc_score),
        plain=_value,
        reference=_pairwise,
        weighted=True,
        exact_fields=("value",),
        reference_exact=True,
        split_every=True,
        variants=({"max_fpr": 0.5}, {"split_every": 2}),
    ),
    Metric(
        name="roc_auc_score-max_fpr",
        run=_binary(dask_auc.roc_auc_score, max_fpr=MAX_FPR),
        plain=_value,
        reference=_sklearn_value(skm.roc_auc_score, max_fpr=MAX_FPR),
        weighted=True,
        exact_fields=("value",),
        reference_exact=False,  # scikit-learn interpolates and standardises in floats
        split_every=True,
        variants=({"max_fpr": 0.7}, {"split_every": 2}),
    ),
    Metric(
        name="roc_curve",
        run=_binary(dask_auc.roc_curve, drop_intermediate=True),
        plain=_curve(ROC_FIELDS),
        reference=_sklearn_curve(skm.roc_curve, ROC_FIELDS, drop_intermediate=True),
        weighted=True,
        exact_fields=ROC_FIELDS,
        reference_exact=True,
        dyadic_weights=True,
        variants=({"drop_intermediate": False}, {"max_points": 4}, {"pos_label": 0}),
    ),
    Metric(
        name="roc_curve-all_points",
        run=_binary(dask_auc.roc_curve, drop_intermediate=False),
        plain=_curve(ROC_FIELDS),
        reference=_sklearn_curve(skm.roc_curve, ROC_FIELDS, drop_intermediate=False),
        weighted=True,
        exact_fields=ROC_FIELDS,
        reference_exact=True,
        variants=({"max_points": 3}, {"pos_label": 0}),
    ),
    Metric(
        name="precision_recall_curve",
        run=_binary(dask_auc.precision_recall_curve, drop_intermediate=False),
        plain=_curve(PR_FIELDS),
        reference=_sklearn_curve(skm.precision_recall_curve, PR_FIELDS, drop_intermediate=False),
        weighted=True,
        exact_fields=PR_FIELDS,
        reference_exact=True,
        variants=({"drop_intermediate": True}, {"max_points": 3}, {"pos_label": 0}),
    ),
    Metric(
        name="precision_recall_curve-drop_intermediate",
        run=_binary(dask_auc.precision_recall_curve, drop_intermediate=True),
        plain=_curve(PR_FIELDS),
        reference=_sklearn_curve(skm.precision_recall_curve, PR_FIELDS, drop_intermediate=True),
        weighted=True,
        exact_fields=PR_FIELDS,
        reference_exact=True,
        variants=({"drop_intermediate": False}, {"pos_label": 0}),
    ),
    Metric(
        name="average_precision_score",
        run=_binary(dask_auc.average_precision_score),
        plain=_value,
        reference=_average_precision_reference,
        weighted=True,
        exact_fields=("value",),  # the precision terms summed exactly, rounded once
        reference_exact=True,
        variants=({"pos_label": 0},),
    ),
    Metric(
        name="ks_statistic",
        run=_binary(dask_auc.ks_statistic),
        plain=_result_tuple,
        reference=ks_reference,
        weighted=True,
        exact_fields=("statistic", "threshold"),
        reference_exact=True,
        # a weighted statistic that is exactly 0 (every score tied) comes out as 2.2e-16:
        # pinned as a strict xfail in test_invariance.py
        atol=1e-15,
        variants=({"pos_label": 0},),
    ),
    Metric(
        name="roc_auc_ci",
        run=_binary(dask_auc.roc_auc_ci),
        plain=_result_tuple,
        reference=_ci_reference,
        weighted=False,
        exact_fields=("auc", "confidence_level"),
        reference_exact=True,
        split_every=True,
        variants=({"confidence_level": 0.5}, {"split_every": 2}),
    ),
    Metric(
        name="delong_test",
        run=_run_delong,
        plain=_result_tuple,
        reference=_delong_reference,
        weighted=False,
        exact_fields=("auc_a", "auc_b", "difference"),
        reference_exact=True,
        scores="paired",
    ),
    Metric(
        name="roc_auc_score-ovr",
        run=_binary(dask_auc.roc_auc_score, multi_class="ovr"),
        plain=_value,
        reference=_multiclass_reference("ovr"),
        weighted=True,
        exact_fields=("value",),  # the mean of exact per-class AUCs
        reference_exact=False,  # scikit-learn's per-class trapezoids are floats
        scores="proba",
        split_every=True,
        variants=({"average": "weighted"}, {"split_every": 2}),
    ),
    Metric(
        name="roc_auc_score-ovo",
        run=_binary(dask_auc.roc_auc_score, multi_class="ovo"),
        plain=_value,
        reference=_multiclass_reference("ovo"),
        weighted=False,  # scikit-learn (and dask-auc) reject sample_weight with "ovo"
        exact_fields=("value",),
        reference_exact=False,
        scores="proba",
        split_every=True,
        variants=({"average": "weighted"}, {"split_every": 2}),
    ),
    Metric(
        name="grouped_roc_auc_score",
        run=_run_grouped,
        plain=_grouped_fields,
        reference=grouped_reference,
        weighted=True,
        exact_fields=("group", "auc", "n_pos", "n_neg", "gauc"),
        reference_exact=False,  # scikit-learn's per-group trapezoids are floats
        scores="grouped",
        layouts=("frame",),
        variants=({"gauc_weight": "uniform"},),
    ),
]

# -- partial AUC over FPR and TPR intervals (pROC's definition) --------------------------------

FPR_RANGE = (0.1, 0.4)
TPR_RANGE = (0.3, 0.8)


def _partial_range_reference(**interval: Any) -> Callable[[Columns], Fields]:
    """The exact ROC polygon's partial area, McClish-standardised as pROC does (roc_polygon.py)."""

    def reference(columns: Columns) -> Fields:
        value = partial_auc_reference(
            columns["y_true"], columns["y_score"], columns.get("sample_weight"), **interval
        )
        return {"value": np.asarray(float(value))}

    return reference


_ENTRIES += [
    Metric(
        name="partial_roc_auc_score-fpr_range",
        run=_binary(dask_auc.partial_roc_auc_score, fpr_range=FPR_RANGE),
        plain=_value,
        reference=_partial_range_reference(fpr_range=FPR_RANGE),
        weighted=True,
        exact_fields=("value",),
        reference_exact=False,  # two float areas subtracted, then standardised in floats
        variants=({"fpr_range": (0.2, 0.9)}, {"standardized": False}),
    ),
    Metric(
        name="partial_roc_auc_score-tpr_range",
        run=_binary(dask_auc.partial_roc_auc_score, tpr_range=TPR_RANGE),
        plain=_value,
        reference=_partial_range_reference(tpr_range=TPR_RANGE),
        weighted=True,
        exact_fields=("value",),
        reference_exact=False,
        variants=({"tpr_range": (0.1, 0.5)}, {"standardized": False}),
    ),
]

# -- threshold metrics: confusion counts, DET, operating points, gains -------------------------

CONFUSION_FIELDS = ("tns", "fps", "fns", "tps", "thresholds")
DET_FIELDS = ("fpr", "fnr", "thresholds")
RECALL_TARGET = 0.6  # always reached (a precision may not be: a warning)
COSTS = (1.0, 3.0)
GAINS_BINS = 7
#: weighted counts summed in another order leave a few ulps where the exact value is 0
#: (``fn`` of a point holding every positive, ``gain`` where the lift is 1)
WEIGHTED_ZERO = 1e-12
# An operating point is chosen by comparing float criteria: with weights such as 0.37, two
# points whose criteria are equal in exact arithmetic may compare either way after rounding
# (documented); with exact (dyadic) weight sums they tie, and the tie rule decides.


def _arrays(names: tuple[str, ...]) -> Callable[[Any], Fields]:
    def plain(result: Any) -> Fields:
        return {name: np.asarray(array) for name, array in zip(names, result, strict=True)}

    return plain


def _sklearn_arrays(
    function: Callable[..., Any], names: tuple[str, ...], **fixed: Any
) -> Callable[[Columns], Fields]:
    def reference(columns: Columns) -> Fields:
        arrays = function(
            columns["y_true"],
            columns["y_score"],
            sample_weight=columns.get("sample_weight"),
            **fixed,
        )
        return dict(zip(names, arrays, strict=True))

    return reference


def _operating_point_reference(kind: str, value: Any = None) -> Callable[[Columns], Fields]:
    """The brute-force threshold scan of ``threshold_references.py``."""

    def reference(columns: Columns) -> Fields:
        return operating_point_reference(
            columns["y_true"],
            columns["y_score"],
            columns.get("sample_weight"),
            kind=kind,
            value=value,
        )

    return reference


def _gains_fields(table: pd.DataFrame) -> Fields:
    fields = {"group": table.index.to_numpy()}
    fields.update({name: table[name].to_numpy() for name in GAINS_COLUMNS})
    return fields


def _gains_reference(columns: Columns) -> Fields:
    return gains_reference(
        columns["y_true"], columns["y_score"], columns.get("sample_weight"), n_bins=GAINS_BINS
    )


_OPERATING_POINT_FIELDS = (
    "threshold",
    "tp",
    "fp",
    "tn",
    "fn",
    "tpr",
    "fpr",
    "precision",
    "recall",
    "f1",
)

_ENTRIES += [
    Metric(
        name="confusion_matrix_at_thresholds",
        run=_binary(dask_auc.confusion_matrix_at_thresholds),
        plain=_arrays(CONFUSION_FIELDS),
        reference=_sklearn_arrays(skm.confusion_matrix_at_thresholds, CONFUSION_FIELDS),
        weighted=True,
        exact_fields=CONFUSION_FIELDS,
        reference_exact=True,
        atol=WEIGHTED_ZERO,
        variants=({"pos_label": 0}, {"max_points": 3}),
    ),
    Metric(
        name="det_curve",
        run=_binary(dask_auc.det_curve),
        plain=_arrays(DET_FIELDS),
        reference=_sklearn_arrays(skm.det_curve, DET_FIELDS),
        weighted=True,
        exact_fields=DET_FIELDS,
        reference_exact=True,
        atol=WEIGHTED_ZERO,
        variants=({"pos_label": 0}, {"drop_intermediate": True}, {"max_points": 3}),
    ),
    Metric(
        name="det_curve-drop_intermediate",
        run=_binary(dask_auc.det_curve, drop_intermediate=True),
        plain=_arrays(DET_FIELDS),
        reference=_sklearn_arrays(skm.det_curve, DET_FIELDS, drop_intermediate=True),
        weighted=True,
        exact_fields=DET_FIELDS,
        reference_exact=True,
        atol=WEIGHTED_ZERO,
        variants=({"drop_intermediate": False},),
    ),
    *(
        Metric(
            name=f"operating_point-{target}",
            run=_binary(dask_auc.operating_point, **{parameter: value}),
            plain=_result_tuple,
            reference=_operating_point_reference(target, *([] if value == "youden" else [value])),
            weighted=True,
            exact_fields=_OPERATING_POINT_FIELDS,
            reference_exact=True,
            atol=WEIGHTED_ZERO,
            dyadic_weights=True,  # exact weight sums: see above
            variants=({parameter: other}, {"pos_label": 0}),
        )
        for target, parameter, value, other in [
            ("fpr", "fpr", MAX_FPR, 0.6),
            ("recall", "recall", RECALL_TARGET, 0.9),
            ("youden", "criterion", "youden", "f1"),
            ("cost", "cost", COSTS, COSTS[::-1]),
        ]
    ),
    Metric(
        name="gains_table",
        run=_binary(dask_auc.gains_table, n_bins=GAINS_BINS),
        plain=_gains_fields,
        reference=_gains_reference,
        weighted=True,
        exact_fields=("group", *GAINS_COLUMNS),
        reference_exact=True,
        atol=WEIGHTED_ZERO,
        variants=({"n_bins": 3},),
    ),
]

# -- indicator-matrix targets: multilabel y_true, multi-class average precision ---------------

MULTILABEL_THRESHOLD = 0.5


def multilabel_truth(y: np.ndarray, proba: np.ndarray) -> np.ndarray:
    """A multilabel indicator matrix made from a "proba" case.

    Column ``k`` holds the rows of class ``k`` and those scoring above 0.5 in it,
    but never the rows of class ``k + 1``: every row and every column holds both
    classes (every class is present, with nonzero weight), rows may hold two
    labels, and the columns are correlated with their scores.  The registry's
    cases hold 1-D classes; this makes them multilabel on NumPy columns...
    """
    k = np.arange(proba.shape[1])
    hot = y[:, None] == k
    return (hot | ((proba > MULTILABEL_THRESHOLD) & (y[:, None] != (k + 1) % len(k)))).astype(int)


def _dask_multilabel_truth(inputs: Mapping[str, Any]) -> Any:
    """... and, identically, on the dask inputs (one DataFrame's columns, or dask arrays)."""
    if "frame" in inputs:
        frame = inputs["frame"]
        y = frame["y_true"]
        labels = {
            f"label_{k}": (
                (y == k)
                | ((frame[f"y_score_{k}"] > MULTILABEL_THRESHOLD) & (y != (k + 1) % N_CLASSES))
            ).astype(int)
            for k in range(N_CLASSES)
        }
        return frame.assign(**labels)[list(labels)]
    y, proba = inputs["y_true"][:, None], inputs["y_score"]
    k = np.arange(N_CLASSES)
    above = (proba > MULTILABEL_THRESHOLD) & (y != (k + 1) % N_CLASSES)
    return ((y == k) | above).astype(int)


def _multilabel(function: Callable[..., Any], **fixed: Any) -> Callable[..., Any]:
    def run(inputs: Mapping[str, Any], **options: Any) -> Any:
        weight = inputs.get("sample_weight")
        return function(
            _dask_multilabel_truth(inputs),
            inputs["y_score"],
            sample_weight=weight,
            **{**fixed, **options},
        )

    return run


def _sklearn_multilabel(function: Callable[..., Any], **fixed: Any) -> Callable[[Columns], Fields]:
    def reference(columns: Columns) -> Fields:
        value = function(
            multilabel_truth(columns["y_true"], columns["y_score"]),
            columns["y_score"],
            sample_weight=columns.get("sample_weight"),
            **fixed,
        )
        return {"value": np.asarray(value, dtype=float)}

    return reference


# average="samples" is not registered: it ranks each row within its block and sorts
# nothing, so the bucket-count test has no graph to vary; test_multilabel.py checks it
# against scikit-learn and bit for bit across partitionings.
_ENTRIES += [
    Metric(
        name="average_precision_score-multiclass",
        run=_binary(dask_auc.average_precision_score),
        plain=_value,
        reference=_sklearn_value(skm.average_precision_score),
        weighted=True,
        exact_fields=("value",),  # the mean of exactly summed per-class APs
        reference_exact=False,  # scikit-learn's per-class step sums are floats
        scores="proba",
        variants=({"average": "weighted"},),
    ),
    Metric(
        name="roc_auc_score-multilabel",
        run=_multilabel(dask_auc.roc_auc_score),
        plain=_value,
        reference=_sklearn_multilabel(skm.roc_auc_score),
        weighted=True,
        exact_fields=("value",),  # the mean of exact per-column AUCs
        reference_exact=False,
        scores="proba",
        split_every=True,
        variants=({"average": "micro"}, {"max_fpr": 0.5}, {"split_every": 2}),
    ),
    Metric(
        name="average_precision_score-multilabel-micro",
        run=_multilabel(dask_auc.average_precision_score, average="micro"),
        plain=_value,
        reference=_sklearn_multilabel(skm.average_precision_score, average="micro"),
        weighted=True,
        exact_fields=("value",),  # one binary AP of the raveled columns, exactly summed
        reference_exact=False,
        scores="proba",
        variants=({"average": "macro"},),
    ),
]

# -- per-sample ranking metrics, and metrics at every threshold --------------------------------


def _at_thresholds(metric_func: Callable[..., Any]) -> Callable[..., Any]:
    def run(inputs: Mapping[str, Any], **options: Any) -> Any:
        weight = inputs.get("sample_weight")
        return dask_auc.metric_at_thresholds(
            inputs["y_true"], inputs["y_score"], metric_func, sample_weight=weight, **options
        )

    return run


AT_THRESHOLDS_FIELDS = ("values", "thresholds")

# The per-sample metrics rank each row's columns in its block and sum the rows' values
# exactly: the same bits for any partitioning, weighted or not (sorts=False: no bucket).
_ENTRIES += [
    Metric(
        name="top_k_accuracy_score",
        run=_binary(dask_auc.top_k_accuracy_score, k=2),
        plain=_value,
        reference=_sklearn_value(skm.top_k_accuracy_score, k=2),
        weighted=True,
        exact_fields=("value",),
        reference_exact=True,  # a count of hits over the row count
        scores="proba",
        split_every=True,
        sorts=False,
        variants=({"k": 1}, {"split_every": 2}),
    ),
    Metric(
        name="coverage_error",
        run=_multilabel(dask_auc.coverage_error),
        plain=_value,
        reference=_sklearn_multilabel(skm.coverage_error),
        weighted=True,
        exact_fields=("value",),
        reference_exact=True,  # a sum of integers over the row count
        scores="proba",
        split_every=True,
        sorts=False,
        variants=({"split_every": 2},),
    ),
    *(
        Metric(
            name=name,
            run=_multilabel(getattr(dask_auc, name)),
            plain=_value,
            reference=_sklearn_multilabel(getattr(skm, name)),
            weighted=True,
            exact_fields=("value",),
            reference_exact=False,  # scikit-learn sums the row values in floats
            scores="proba",
            split_every=True,
            sorts=False,
            variants=({"split_every": 2},),
        )
        for name in (
            "label_ranking_average_precision_score",
            "label_ranking_loss",
            "dcg_score",
            "ndcg_score",
        )
    ),
    *(
        Metric(
            name=f"metric_at_thresholds-{metric_func.__name__}",
            run=_at_thresholds(metric_func),
            plain=_arrays(AT_THRESHOLDS_FIELDS),
            reference=_sklearn_arrays(
                skm.metric_at_thresholds, AT_THRESHOLDS_FIELDS, metric_func=metric_func
            ),
            weighted=True,
            exact_fields=AT_THRESHOLDS_FIELDS,
            reference_exact=True,  # scikit-learn's arithmetic on the same integer counts
            atol=WEIGHTED_ZERO,  # a weighted correlation near 0 from float counts
            variants=({"metric_params": params},) if params else (),
        )
        for metric_func, params in (
            (skm.f1_score, {"zero_division": 1.0}),
            (skm.matthews_corrcoef, None),
        )
    ),
]

# -- bootstrap intervals: every replicate against an independent computation ------------------

BOOTSTRAPS = 8
SEED = 5


def _bootstrap(function: Callable[..., Any], **fixed: Any) -> Callable[..., Any]:
    """``function(y_true, y_score, [score_b], ...)`` with few replicates and one seed.

    Small cases leave some replicates without a class: their warning is
    tested in ``test_bootstrap.py``, and ignored by the suite's settings.
    """

    def run(inputs: Mapping[str, Any], **options: Any) -> Any:
        scores = [inputs["y_score"]] + ([inputs["score_b"]] if "score_b" in inputs else [])
        options = {"n_bootstraps": BOOTSTRAPS, "random_state": SEED, **fixed, **options}
        return function(
            inputs["y_true"], *scores, sample_weight=inputs.get("sample_weight"), **options
        )

    return run


def exact_auc(y: np.ndarray, s: np.ndarray, w: np.ndarray) -> float:
    """The AUC of integer row weights, by an exact pair count (ties one half)."""
    positive = y == 1
    w = w.astype(np.int64)
    pairs = w[positive][:, None] * w[~positive][None, :]
    above = s[positive][:, None] > s[~positive][None, :]
    tied = s[positive][:, None] == s[~positive][None, :]
    twice = int((pairs * (2 * above + tied)).sum())
    return float(Fraction(twice, 2 * int(w[positive].sum()) * int(w[~positive].sum())))


def _replicate_value(metric: str, params: dict[str, Any]) -> Callable[..., float]:
    """The metric of rows weighted ``w`` (count times weight), by an independent reference."""

    def value(y: np.ndarray, s: np.ndarray, w: np.ndarray) -> float:
        if metric == "roc_auc" and "max_fpr" not in params:
            if np.all(w == np.round(w)):
                return exact_auc(y, s, w)
            return pairwise_auc(y, s, w)
        if metric == "roc_auc":
            return skm.roc_auc_score(y, s, sample_weight=w, **params)
        if metric == "partial_auc":
            return float(partial_auc_reference(y, s, w, **params))
        if metric == "average_precision":
            return skm.average_precision_score(y, s, sample_weight=w)
        if metric == "ks":
            columns = {"y_true": y, "y_score": s, "sample_weight": w}
            return float(ks_reference(columns)["statistic"])
        kind, field = ("fpr", "tpr") if metric == "tpr_at_fpr" else ("tpr", "fpr")
        point = operating_point_reference(y, s, w, kind=kind, value=params[kind])
        return float(point[field])

    return value


def _replicate_values(metric: str, params: dict[str, Any], columns: Columns, score: str):
    """The estimate and every replicate's value; NaN where a replicate lacks a class."""
    y, s = np.asarray(columns["y_true"]), np.asarray(columns[score])
    weight = np.asarray(columns.get("sample_weight", np.ones(len(y))), dtype=float)
    counts = dask_auc.bootstrap_counts(len(y), n_bootstraps=BOOTSTRAPS, random_state=SEED)
    value = _replicate_value(metric, params)
    out = []
    for w in [weight, *(c * weight for c in counts)]:
        pos, neg = w[y == 1].sum(), w[y != 1].sum()
        defined = pos > 0 and (neg > 0 or metric == "average_precision")
        out.append(value(y, s, w) if defined else np.nan)
    return np.array(out)


def _interval_fields(values: np.ndarray, confidence_level: float = 0.95) -> Fields:
    defined = values[1:][~np.isnan(values[1:])]
    low = high = std = np.nan
    if len(defined) >= 2:
        alpha = 1 - confidence_level
        low, high = np.quantile(defined, [alpha / 2, 1 - alpha / 2])
        std = np.std(defined, ddof=1)
    return {
        "low": np.asarray(low),
        "high": np.asarray(high),
        "std_error": np.asarray(std),
    }


def bootstrap_reference(metric: str, **params: Any) -> Callable[[Columns], Fields]:
    def reference(columns: Columns) -> Fields:
        values = _replicate_values(metric, params, columns, "y_score")
        return {
            "estimate": np.asarray(values[0]),
            "replicates": values[1:],
            **_interval_fields(values),
        }

    return reference


def _bootstrap_test_reference(columns: Columns) -> Fields:
    a = _replicate_values("roc_auc", {}, columns, "y_score")
    b = _replicate_values("roc_auc", {}, columns, "score_b")
    difference = a - b
    return {
        "estimate_a": np.asarray(a[0]),
        "estimate_b": np.asarray(b[0]),
        "difference": np.asarray(difference[0]),
        "replicates": difference[1:],
        **_interval_fields(difference),
    }


_BOOTSTRAP_FIELDS = ("estimate", "replicates", "low", "high", "std_error")
_BOOTSTRAP_VARIANTS = ({"random_state": SEED + 1}, {"n_bootstraps": BOOTSTRAPS + 1})
_ENTRIES += [
    Metric(
        name=f"bootstrap_ci-{name}",
        run=_bootstrap(dask_auc.bootstrap_ci, metric=metric, **params),
        plain=_result_tuple,
        reference=bootstrap_reference(metric, **params),
        weighted=True,
        exact_fields=() if metric == "average_precision" else _BOOTSTRAP_FIELDS,
        reference_exact=metric != "average_precision",
        scores="own_sort",
        positional=True,
        # a weighted standard error that is exactly 0 (every replicate 0.5) can come out as
        # 4e-17: float sums of weights in another grouping
        atol=1e-15,
        variants=_BOOTSTRAP_VARIANTS + variants,
    )
    for name, metric, params, variants in (
        ("roc_auc", "roc_auc", {}, ({"interval": "basic"},)),
        ("average_precision", "average_precision", {}, ()),
        ("partial_auc-tpr_range", "partial_auc", {"tpr_range": (0.2, 0.7)}, ()),
        ("tpr_at_fpr", "tpr_at_fpr", {"fpr": MAX_FPR}, ({"fpr": 0.5},)),
        ("fpr_at_tpr", "fpr_at_tpr", {"tpr": 0.6}, ()),
        ("ks", "ks", {}, ()),
    )
] + [
    Metric(
        name="bootstrap_test",
        run=_bootstrap(dask_auc.bootstrap_test),
        plain=_result_tuple,
        reference=_bootstrap_test_reference,
        weighted=True,
        exact_fields=("estimate_a", "estimate_b", "difference", "replicates", "low", "high"),
        reference_exact=True,
        scores="paired",
        positional=True,
        atol=1e-15,
        variants=_BOOTSTRAP_VARIANTS,
    ),
]


def _run_mannwhitneyu(inputs: Mapping[str, Any], **options: Any) -> Any:
    """The positives' scores against the negatives' (dask boolean masks: unknown lengths)."""
    positive = inputs["y_true"] == 1
    return dask_auc.mannwhitneyu(
        inputs["y_score"][positive], inputs["y_score"][~positive], **options
    )


def _mannwhitneyu_reference(columns: Columns) -> Fields:
    from scipy.stats import mannwhitneyu

    y, s = np.asarray(columns["y_true"]), np.asarray(columns["y_score"])
    result = mannwhitneyu(s[y == 1], s[y != 1])
    return {"statistic": np.asarray(result.statistic), "pvalue": np.asarray(result.pvalue)}


_ENTRIES.append(
    Metric(
        name="mannwhitneyu",
        run=_run_mannwhitneyu,
        plain=_result_tuple,
        reference=_mannwhitneyu_reference,
        weighted=False,
        exact_fields=("statistic",),
        reference_exact=True,
        scores="own_sort",
        variants=({"alternative": "less"}, {"use_continuity": False}),
    )
)

# -- the same binary metrics as queries of a persisted dask_auc.roc -----------------------------


def _persisted_roc(query: str, **fixed: Any) -> Callable[..., Any]:
    """``roc(y_true, y_score, pos_label=..., sample_weight=...).persist().<method>(...)``.

    With ``compute=False`` the ROC is not persisted (persisting computes): the
    query is then lazy on the ROC's lazy sort.
    """

    def run(inputs: Mapping[str, Any], **options: Any) -> Any:
        options = {**fixed, **options}
        pos_label = options.pop("pos_label", None)
        weight = inputs.get("sample_weight")
        curve = dask_auc.roc(
            inputs["y_true"], inputs["y_score"], pos_label=pos_label, sample_weight=weight
        )
        if options.get("compute", True):
            curve.persist()
        return getattr(curve, query)(**options)

    return run


#: the ROC method asked for each binary entry, by entry name, and its fixed options
ROC_QUERIES = {
    "roc_auc_score": ("auc", {}),
    "roc_auc_score-max_fpr": ("auc", {"max_fpr": MAX_FPR}),
    "partial_roc_auc_score-fpr_range": ("partial_auc", {"fpr_range": FPR_RANGE}),
    "roc_curve": ("roc_curve", {"drop_intermediate": True}),
    "precision_recall_curve": ("precision_recall_curve", {"drop_intermediate": False}),
    "average_precision_score": ("average_precision", {}),
    "ks_statistic": ("ks", {}),
    "roc_auc_ci": ("ci", {}),
    "confusion_matrix_at_thresholds": ("confusion_matrix_at_thresholds", {}),
    "det_curve-drop_intermediate": ("det_curve", {"drop_intermediate": True}),
    "operating_point-fpr": ("operating_point", {"fpr": MAX_FPR}),
    "bootstrap_ci-roc_auc": (
        "ci",
        {"method": "bootstrap", "n_bootstraps": BOOTSTRAPS, "random_state": SEED},
    ),
    "gains_table": ("gains_table", {"n_bins": GAINS_BINS}),
}
PERSISTED_SUFFIX = "-persisted-roc"

_ENTRIES += [
    replace(
        entry,
        name=entry.name + PERSISTED_SUFFIX,
        run=_persisted_roc(ROC_QUERIES[entry.name][0], **ROC_QUERIES[entry.name][1]),
    )
    for entry in _ENTRIES
    if entry.name in ROC_QUERIES
]

# -- calibration: log loss, Brier score, normalized entropy (issue 23) -------------------------
# Probabilities are the cases' scores halved (exact in floats, so the dask inputs and the
# NumPy columns hold the same values): in [0, 0.65), zeros among them (log loss clips).
# Exact per-label sums: the same bits for any partitioning, weighted or not (no sort).


def _calibration(function: Callable[..., Any], **fixed: Any) -> Callable[..., Any]:
    def run(inputs: Mapping[str, Any], **options: Any) -> Any:
        weight = inputs.get("sample_weight")
        return function(
            inputs["y_true"], inputs["y_score"] * 0.5, sample_weight=weight, **{**fixed, **options}
        )

    return run


def _sklearn_calibration(function: Callable[..., Any], **fixed: Any) -> Callable[[Columns], Fields]:
    def reference(columns: Columns) -> Fields:
        value = function(
            columns["y_true"],
            columns["y_score"] * 0.5,
            sample_weight=columns.get("sample_weight"),
            **fixed,
        )
        return {"value": np.asarray(value, dtype=float)}

    return reference


def normalized_entropy_reference(
    y_true: np.ndarray, y_proba: np.ndarray, sample_weight: np.ndarray | None = None
) -> float:
    """scikit-learn's log loss over the entropy of the (weighted) share of the greater class."""
    rate = float(np.average(y_true == np.max(y_true), weights=sample_weight))
    entropy = -(rate * np.log(rate) + (1 - rate) * np.log1p(-rate))
    return skm.log_loss(y_true, y_proba, sample_weight=sample_weight) / entropy


_CALIBRATION_ENTRIES = [
    Metric(
        name="log_loss",
        run=_calibration(dask_auc.log_loss),
        plain=_value,
        reference=_sklearn_calibration(skm.log_loss),
        weighted=True,
        exact_fields=("value",),
        reference_exact=False,  # scikit-learn sums pairwise in floats
        split_every=True,
        sorts=False,
        variants=({"normalize": False}, {"split_every": 2}),
    ),
    Metric(
        name="brier_score_loss",
        run=_calibration(dask_auc.brier_score_loss),
        plain=_value,
        reference=_sklearn_calibration(skm.brier_score_loss),
        weighted=True,
        exact_fields=("value",),
        reference_exact=False,
        split_every=True,
        sorts=False,
        variants=({"scale_by_half": False}, {"pos_label": 0}, {"split_every": 2}),
    ),
    Metric(
        name="normalized_entropy",
        run=_calibration(dask_auc.normalized_entropy),
        plain=_value,
        reference=_sklearn_calibration(normalized_entropy_reference),
        weighted=True,
        exact_fields=("value",),
        reference_exact=False,
        split_every=True,
        sorts=False,
        variants=({"split_every": 2},),
    ),
]


GROUPED_CALIBRATION = ("log_loss", "brier", "normalized_entropy", "calibration")


def _run_grouped_calibration(inputs: Mapping[str, Any], **options: Any) -> Any:
    frame = inputs["frame"]
    return _run_grouped(
        {**inputs, "frame": frame.assign(y_score=frame["y_score"] * 0.5)},
        **{"metrics": GROUPED_CALIBRATION, **options},
    )


def _grouped_calibration_fields(result: Any) -> Fields:
    fields = _grouped_fields(result)
    fields.update({f"overall_{name}": np.asarray(v) for name, v in result.overall.items()})
    return fields


def calibration_by_group_reference(
    y_true: np.ndarray, y_proba: np.ndarray, weights: np.ndarray | None = None
) -> dict[str, float]:
    """scikit-learn's log loss and Brier score of some rows (both classes as labels), with
    the normalized entropy and Σ proba / Σ label; NaN where undefined."""
    w = np.ones(len(y_true)) if weights is None else np.asarray(weights, dtype=float)
    positive = (y_true == 1).astype(float)
    values = dict.fromkeys(GROUPED_CALIBRATION, np.nan)
    if w.sum() == 0:
        return values
    values["log_loss"] = skm.log_loss(positive, y_proba, sample_weight=w, labels=[0.0, 1.0])
    values["brier"] = skm.brier_score_loss(positive, y_proba, sample_weight=w, pos_label=1.0)
    rate = np.average(positive, weights=w)
    if 0 < rate < 1:
        entropy = -(rate * np.log(rate) + (1 - rate) * np.log1p(-rate))
        values["normalized_entropy"] = values["log_loss"] / entropy
    if np.dot(positive, w) > 0:
        values["calibration"] = np.dot(y_proba, w) / np.dot(positive, w)
    return values


def _grouped_calibration_reference(columns: Columns) -> Fields:
    """:func:`grouped_reference`, plus the calibration columns per group and overall."""
    halved = {**columns, "y_score": columns["y_score"] * 0.5}
    fields = grouped_reference(halved)
    weights = halved.get("sample_weight")
    per_group = [
        calibration_by_group_reference(
            halved["y_true"][rows],
            halved["y_score"][rows],
            None if weights is None else weights[rows],
        )
        for rows in (halved["group"] == g for g in np.unique(halved["group"]))
    ]
    overall = calibration_by_group_reference(halved["y_true"], halved["y_score"], weights)
    for name in GROUPED_CALIBRATION:
        fields[name] = np.array([values[name] for values in per_group])
        fields[f"overall_{name}"] = np.asarray(overall[name])
    return fields


_CALIBRATION_ENTRIES.append(
    Metric(
        name="grouped_roc_auc_score-calibration",
        run=_run_grouped_calibration,
        plain=_grouped_calibration_fields,
        reference=_grouped_calibration_reference,
        weighted=True,
        # the calibration sums are float sums in row order: equal within RTOL
        exact_fields=("group", "auc", "n_pos", "n_neg", "gauc"),
        reference_exact=False,
        scores="grouped",
        layouts=("frame",),
        variants=({"metrics": ("log_loss",)}, {"gauc_weight": "uniform"}),
    )
)
_ENTRIES += _CALIBRATION_ENTRIES
# -- end of the calibration entries -------------------------------------------------------------

# -- the CORP reliability diagram and score decomposition (issue 33) ---------------------------
# Probabilities are the cases' scores mapped into [0.25, 0.9) (the same float operations on
# the dask inputs and the NumPy columns): no log score is infinite.  Another input than the
# other binary entries', so it shares no sort with them (scores="own_sort").

RELIABILITY_STEPS = ("low", "high", "recalibrated", "weight")
DECOMPOSITION = ("score", "miscalibration", "discrimination", "uncertainty")
RELIABILITY_FIELDS = (
    *RELIABILITY_STEPS,
    *(f"{score}_{part}" for score in ("brier", "log_score") for part in DECOMPOSITION),
    "mean_score",
    "mean_outcome",
)


def decomposition_reference(
    y: np.ndarray, proba: np.ndarray, weights: np.ndarray | None, scoring: str
) -> dict[str, float]:
    """model-diagnostics' ``decompose`` (CORP's isotonic fit) of the rows of nonzero weight.

    ``y`` in {0, 1}; ``scoring`` is ``"brier"`` (``SquaredError``) or ``"log_score"``
    (``LogLoss``).
    """
    from model_diagnostics.scoring import LogLoss, SquaredError, decompose

    if weights is not None:
        kept = weights != 0
        y, proba, weights = y[kept], proba[kept], weights[kept]
    scoring_function = SquaredError() if scoring == "brier" else LogLoss()
    table = decompose(y, proba, weights, scoring_function=scoring_function)
    return {part: float(table[part][0]) for part in DECOMPOSITION}


def reliability_reference_fields(
    y: np.ndarray, proba: np.ndarray, weights: np.ndarray | None
) -> Fields:
    """The decomposition fields of ``reliability_diagram`` and its means, by model-diagnostics."""
    fields = {
        f"{scoring}_{part}": np.asarray(value)
        for scoring in ("brier", "log_score")
        for part, value in decomposition_reference(y, proba, weights, scoring).items()
    }
    fields["mean_score"] = np.asarray(np.average(proba, weights=weights))
    fields["mean_outcome"] = np.asarray(np.average(y, weights=weights))
    return fields


def _as_probability(scores: Any) -> Any:
    return 0.25 + 0.5 * scores


def _on_probabilities(run: Callable[..., Any]) -> Callable[..., Any]:
    def on_probabilities(inputs: Mapping[str, Any], **options: Any) -> Any:
        return run({**inputs, "y_score": _as_probability(inputs["y_score"])}, **options)

    return on_probabilities


def _reliability_fields(result: Any) -> Fields:
    fields = {name: np.asarray(getattr(result, name)) for name in RELIABILITY_STEPS}
    for score in ("brier", "log_score"):
        for part, value in zip(DECOMPOSITION, getattr(result, score), strict=True):
            fields[f"{score}_{part}"] = np.asarray(value, dtype=float)
    fields["mean_score"] = np.asarray(result.mean_score, dtype=float)
    fields["mean_outcome"] = np.asarray(result.mean_outcome, dtype=float)
    return fields


def _reliability_reference(columns: Columns) -> Fields:
    """model-diagnostics' ``decompose`` of the rows of nonzero weight, and the weighted means."""
    y = (columns["y_true"] == np.unique(columns["y_true"])[-1]).astype(float)
    proba = _as_probability(columns["y_score"])
    return reliability_reference_fields(y, proba, columns.get("sample_weight"))


_RELIABILITY = Metric(
    name="reliability_diagram",
    run=_on_probabilities(_binary(dask_auc.reliability_diagram)),
    plain=_reliability_fields,
    reference=_reliability_reference,
    weighted=True,
    # exact sums rounded once, steps of exact counts: the same bits for any partitioning
    exact_fields=RELIABILITY_FIELDS,
    reference_exact=False,  # model-diagnostics sums in floats (and subtracts the scores)
    scores="own_sort",
    # MCB and DSC are differences of two scores: the reference's are a few ulps of the score off
    atol=1e-14,
    variants=({"max_points": 3},),
)
ROC_QUERIES["reliability_diagram"] = ("reliability", {})
_ENTRIES += [
    _RELIABILITY,
    replace(
        _RELIABILITY,
        name=_RELIABILITY.name + PERSISTED_SUFFIX,
        run=_on_probabilities(_persisted_roc("reliability")),
    ),
]
# -- end of the reliability entries -------------------------------------------------------------

# -- certified AUC states (issue 31): one pass, no sort; the test data hold fewer distinct
# scores than a state's default resolution, so every state is exact there (bounds equal) ------


def _state_bounds(state: Any) -> Fields:
    bounds = state.auc()
    return {name: np.asarray(getattr(bounds, name)) for name in ("lower", "estimate", "upper")}


def _state_reference(columns: Columns) -> Fields:
    value = _pairwise(columns)["value"]
    return {"lower": value, "estimate": value, "upper": value}


_ENTRIES.append(
    Metric(
        name="roc_state",
        run=_binary(dask_auc.roc_state),
        plain=_state_bounds,
        reference=_state_reference,
        weighted=True,
        exact_fields=("lower", "estimate", "upper"),
        reference_exact=True,
        split_every=True,
        sorts=False,
        variants=({"resolution": 4}, {"pos_label": 0}, {"split_every": 2}),
    )
)

REGISTRY: dict[str, Metric] = {metric.name: metric for metric in _ENTRIES}
"""Every public metric, by test id (and the binary ones again as persisted ROC queries)."""


# -- cases: NumPy columns for an entry --------------------------------------------------------


def _weigh_every_class(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Give the first row of any class whose weights sum to zero a weight of 1."""
    w = w.copy()
    for label in np.unique(y):
        if w[y == label].sum() == 0:
            w[np.flatnonzero(y == label)[0]] = 1.0
    return w


@st.composite
def _probabilities(draw, weighted: bool, max_size: int = 90) -> dict[str, np.ndarray]:
    """``N_CLASSES`` classes, each present; rows of per-class probabilities with heavy ties.

    Each row is a few small integer counts normalised to sum to 1, so a column
    holds few distinct values; the true class's count is raised by ``signal``.
    """
    n = draw(st.integers(N_CLASSES, max_size))
    distinct = draw(st.sampled_from([1, 2, 3, 10]))
    signal = draw(st.sampled_from([0, 1, 3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, N_CLASSES, n)
    y[:N_CLASSES] = np.arange(N_CLASSES)
    rng.shuffle(y)
    counts = rng.integers(1, distinct + 1, (n, N_CLASSES)).astype(float)
    counts[np.arange(n), y] += signal
    columns = {"y_true": y, "y_score": counts / counts.sum(axis=1, keepdims=True)}
    if weighted:
        w = rng.choice([0.0, 0.5, 1.0, 3.0, rng.random()], size=n)
        columns["sample_weight"] = _weigh_every_class(y, w)
    return columns


@st.composite
def cases(draw, metric: Metric, weighted: bool | None = None) -> dict[str, np.ndarray]:
    """NumPy columns for ``metric``, with heavy ties (few distinct scores).

    ``weighted=None`` draws whether to weigh the rows when the metric accepts weights.
    """
    if weighted is None:
        weighted = metric.weighted and draw(st.booleans())
    assert metric.weighted or not weighted
    if metric.scores == "proba":
        return draw(_probabilities(weighted))
    y, s, w = draw(scored_rows(weighted=weighted))
    columns = {"y_true": y, "y_score": s}
    if weighted:
        if metric.dyadic_weights:
            w = _weigh_every_class(y, np.round(w * 4) / 4)
        columns["sample_weight"] = w
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if metric.scores == "paired":
        if draw(st.booleans()):
            columns["score_b"] = s[::-1].copy()  # an unrelated model
        else:  # a correlated one: a noisy copy, rounded to keep ties
            columns["score_b"] = np.round(s + rng.normal(0.0, 0.2, len(s)), 1)
    elif metric.scores == "grouped":
        group = rng.integers(0, draw(st.sampled_from([1, 2, 3, 7])), len(y))
        # one group holds both classes with nonzero weight, so GAUC is defined
        counted = np.ones(len(y), bool) if w is None else w != 0
        group[np.flatnonzero(counted & (y == 1))[0]] = 0
        group[np.flatnonzero(counted & (y == 0))[0]] = 0
        columns["group"] = group
    return columns


def permuted(columns: Columns, permutation: np.ndarray) -> dict[str, np.ndarray]:
    """The same rows in another order: every column permuted alike."""
    return {name: values[permutation] for name, values in columns.items()}


# -- dask inputs from NumPy columns and partition cuts ----------------------------------------


def _chunked(values: np.ndarray, cuts) -> da.Array:
    if values.ndim == 1:
        return dask_array(values, cuts)
    sizes = tuple(int(b - a) for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    return da.from_array(values, chunks=(sizes, *values.shape[1:]))


def dask_inputs(columns: Columns, cuts, layout: str = "frame") -> dict[str, Any]:
    """The columns as dask collections whose partitions are cut at the rows ``cuts``.

    ``cuts`` runs from 0 to the row count and may repeat a row (an empty
    partition).  ``"frame"``: columns of one dask DataFrame (unknown divisions,
    as from Parquet) under ``frame``, a 2-D ``y_score`` as a DataFrame of its
    columns ``y_score_0``, ...; ``"array"``: dask arrays with those chunks.
    """
    if layout == "array":
        return {name: _chunked(np.asarray(values), cuts) for name, values in columns.items()}
    assert layout == "frame", layout
    flat: dict[str, np.ndarray] = {}
    names: dict[str, Any] = {}
    for name, values in columns.items():
        if np.ndim(values) == 2:
            names[name] = [f"{name}_{j}" for j in range(values.shape[1])]
            flat.update({f"{name}_{j}": values[:, j] for j in range(values.shape[1])})
        else:
            names[name] = name
            flat[name] = values
    frame = dask_frame(flat, cuts)
    return {"frame": frame, **{name: frame[column] for name, column in names.items()}}
