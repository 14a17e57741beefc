"""Many models in one pass: ``compare`` -- their metrics and paired tests against a baseline.

Every model is a ROC of the same labels (and weights); its metrics are
queries of that ROC, and the log loss :func:`dask_auc.log_loss`.  The paired
tests against the baseline model are DeLong's, all from **one** multi-model
DeLong covariance, or the bootstrap's (:func:`dask_auc.bootstrap_test`, one
per model).  With DeLong's, each model is sorted **once**, its rows carrying
their ids (:class:`~dask_auc._roc.TracedModels`): its ROC's queries (the
metric columns, exact counts, so the bits of :func:`dask_auc.roc`'s) and its
placements read the same buckets, the placements routed back to their blocks
once and every pair's cross sums made there.  Without, each model is a
:func:`dask_auc.roc`.  All are lazy results,
computed together in **one** dask compute (:func:`dask_auc.compute`), so the
inputs are read once.  Dask DataFrame
columns are first joined partition by partition into one block per
partition (:func:`_read_once`): the labels' partition is then one task that
every model's sort reads, rather than a read fused into each model's tasks.

The metrics are named as :func:`dask_auc.bootstrap_ci`'s ``metric`` (the
registry's replicated metrics that take no parameter: ``"roc_auc"``,
``"average_precision"``, ``"ks"``) plus ``"log_loss"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd

from ._calibration import log_loss
from ._engine import FinishEach, LazyScore, lazy_of
from ._kernels.core.validation import InvalidParameterError
from ._params import Boolean, Interval, Label, Options, check_params
from ._roc import BOOTSTRAP_METRICS, BY_METHOD, TracedModels, bootstrap_test, roc

__all__ = ["compare", "COMPARE_METRICS"]

#: the table's metrics of the ROC: a bootstrap metric's name -> its registry query's method
#: (those of one number that need no parameter; partial_auc and the rates at a target do)
_ROC_METRICS = {"roc_auc": "auc", "average_precision": "average_precision", "ks": "ks"}
assert all(m in BOOTSTRAP_METRICS and BY_METHOD[q].bootstrap for m, q in _ROC_METRICS.items())
#: every metric ``compare`` can put in its table, by name
COMPARE_METRICS: tuple[str, ...] = (*_ROC_METRICS, "log_loss")
#: the columns of the paired test of each model against the baseline
TEST_COLUMNS = ("difference", "low", "high", "std_error", "z", "p_value")

_PARAMETERS = {
    "test": Options(("delong", "bootstrap", None)),
    "confidence_level": Interval(0, 1, closed="neither"),
    "pos_label": Label(),
    "compute": Boolean(),
}


def compare(
    y_true: Any,
    scores: Mapping[str, Any],
    *,
    metrics: str | Sequence[str] = ("roc_auc",),
    sample_weight: Any = None,
    pos_label: Any = None,
    baseline: str | None = None,
    test: str | None = "delong",
    confidence_level: float = 0.95,
    n_bootstraps: int = 2000,
    random_state: Any = None,
    compute: bool = True,
) -> pd.DataFrame | LazyScore:
    """Several models' metrics on the same rows, and paired tests against a baseline, in one pass.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        Binary labels, as in :func:`dask_auc.roc_auc_score`.
    scores : mapping of str to collections of the same kinds
        Model name -> its scores of the same rows (paired with ``y_true`` by
        position), in the order of the table's rows.  To compare columns of
        one dask DataFrame ``df``, pass ``y_true=df["label"]`` and
        ``{name: df[name] for name in models}``: its partitions are read once.
    metrics : str or sequence of str, default ("roc_auc",)
        Columns of the table, among ``"roc_auc"``, ``"average_precision"``,
        ``"ks"`` (the Kolmogorov-Smirnov statistic) and ``"log_loss"``
        (scores read as probabilities of the greater label, scikit-learn's
        rule, in [0, 1]).  The first is the one tested.
    sample_weight : same kinds as ``y_true``, optional
        Row weights, for every metric; not with ``test="delong"``.
    pos_label : label, optional
        The positive class (default: scikit-learn's rule, the greater label
        of two).  ``"log_loss"`` takes only the greater label.
    baseline : str, optional
        The model the others are tested against (default: the first).
    test : {"delong", "bootstrap"} or None, default "delong"
        The paired test of ``metrics[0]``, each model against the baseline:
        DeLong's (:func:`dask_auc.delong_test`'s results, of ``"roc_auc"``
        only, with a normal interval of the difference; every model's in one
        pass, on the one sort of each model that its metrics read) or the paired bootstrap's
        (:func:`dask_auc.bootstrap_test`, its percentile interval).
    confidence_level : float in (0, 1), default 0.95
        Of the intervals of the differences.
    n_bootstraps : int, default 2000
        Replicates of ``test="bootstrap"``.
    random_state : int, numpy Generator or None
        The bootstrap's seed; one seed for every pair (drawn once if None), so
        that every model meets the same replicates.
    compute : bool, default True
        If False, return a :class:`~dask_auc.LazyScore` of the table.

    Returns
    -------
    pandas.DataFrame or LazyScore
        Indexed by ``model`` (the names of ``scores``, in order), one column
        per metric, then with a test ``difference`` (the model's
        ``metrics[0]`` minus the baseline's), ``low``, ``high`` (its
        interval), ``std_error``, ``z`` and ``p_value``: NaN on the
        baseline's row.  ``attrs`` records ``baseline``, ``test``,
        ``tested`` (the metric) and ``confidence_level``.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y = np.array([1, 0, 0, 1, 1, 0, 1, 0, 0, 1])
    >>> models = {
    ...     "old": np.array([0.7, 0.2, 0.6, 0.4, 0.8, 0.3, 0.5, 0.1, 0.6, 0.9]),
    ...     "new": np.array([0.9, 0.1, 0.3, 0.6, 0.7, 0.2, 0.8, 0.4, 0.5, 0.6]),
    ...     "tiny": np.array([0.6, 0.5, 0.4, 0.3, 0.6, 0.2, 0.4, 0.5, 0.1, 0.7]),
    ... }
    >>> table = dask_auc.compare(y, models, metrics=("roc_auc", "log_loss"))
    >>> table[["roc_auc", "difference", "p_value"]].round(4)  # doctest: +NORMALIZE_WHITESPACE
           roc_auc  difference  p_value
    model
    old       0.84         NaN      NaN
    new       1.00        0.16   0.2482
    tiny      0.78       -0.06   0.7055
    """
    checked = check_params(
        "compare",
        _PARAMETERS,
        test=test,
        confidence_level=confidence_level,
        pos_label=pos_label,
        compute=compute,
    )
    names, metric_names, baseline = _checked_models(scores, metrics, baseline)
    if test == "delong":
        if metric_names[0] != "roc_auc":
            raise ValueError(
                f"compare: DeLong's test is of the AUC: metrics[0] must be 'roc_auc' with "
                f"test='delong', got {metric_names[0]!r} (test='bootstrap' tests any of "
                f"{sorted(BOOTSTRAP_METRICS)})"
            )
        if sample_weight is not None:
            raise ValueError(
                "compare: DeLong's test is of unweighted rows: pass test='bootstrap' "
                "(or test=None) with sample_weight"
            )
    if test == "bootstrap" and metric_names[0] not in BOOTSTRAP_METRICS:
        raise ValueError(
            f"compare: the bootstrap tests metrics[0], one of {sorted(_ROC_METRICS)}; "
            f"got {metric_names[0]!r}"
        )
    y, models, weight = _read_once(y_true, scores, sample_weight)
    table = _Table(names, metric_names, baseline, test, checked["confidence_level"], pos_label)
    base, others = table.base, table.others
    traced = None
    if test == "delong" and others:
        # each model sorted once, its rows carrying their ids: its metrics and DeLong's
        # placements from the same buckets
        traced = TracedModels(
            y, models, names=_input_names(scores), function="compare", pos_label=pos_label
        )
        curves = traced.rocs
    else:
        curves = [roc(y, s, pos_label=pos_label, sample_weight=weight) for s in models]
    lazies: list[Any] = []  # each a LazyScore, in the order the table reads them
    for model, curve in zip(models, curves, strict=True):
        for metric in metric_names:
            if metric == "log_loss":
                lazies.append(log_loss(y, model, sample_weight=weight, compute=False))
            else:
                lazies.append(getattr(curve, _ROC_METRICS[metric])(compute=False))
    seed = _one_seed(random_state) if test == "bootstrap" else None
    if traced is not None:  # one covariance for every pair: each model routed back once
        lazies.append(traced.covariance())
    for i in others if test == "bootstrap" else ():
        lazies.append(
            bootstrap_test(
                y,
                models[i],
                models[base],
                metric=metric_names[0],
                n_bootstraps=n_bootstraps,
                confidence_level=confidence_level,
                random_state=seed,
                sample_weight=weight,
                pos_label=pos_label,
                compute=False,
            )
        )
    # the labels' order, to read pos_label: DeLong's test and the log loss take the greater
    needs_labels = pos_label is not None and (test == "delong" or "log_loss" in metric_names)
    if needs_labels:
        lazies.append(curves[base].labels(compute=False))
    lazy = lazy_of(lazies, FinishEach(lazies, table), "compare")
    return lazy.compute() if checked["compute"] else lazy


def _checked_models(
    scores: Any, metrics: Any, baseline: Any
) -> tuple[list[str], tuple[str, ...], str]:
    if not isinstance(scores, Mapping):
        raise TypeError(
            "compare: scores must be a mapping of model names to their scores, e.g. "
            f"{{'a': score_a, 'b': score_b}}; got {type(scores).__name__}"
        )
    names = list(scores)
    if not names:
        raise ValueError("compare: scores must hold at least one model")
    metric_names = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    unknown = [m for m in metric_names if m not in COMPARE_METRICS]
    if unknown or not metric_names or len(set(metric_names)) < len(metric_names):
        raise InvalidParameterError(
            f"The 'metrics' parameter of compare must be distinct names among "
            f"{COMPARE_METRICS}. Got {metrics!r} instead."
        )
    if baseline is None:
        baseline = names[0]
    if baseline not in scores:
        raise ValueError(f"compare: baseline={baseline!r} is not a model of scores {names}")
    return names, metric_names, baseline


def _one_seed(random_state: Any) -> Any:
    """An int seed kept as given; otherwise one drawn now, the same for every pair."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        return int(np.random.default_rng(random_state).integers(2**63 - 1))
    return random_state


def _read_once(
    y_true: Any, scores: Mapping[str, Any], sample_weight: Any
) -> tuple[Any, list[Any], Any]:
    """The inputs, dask DataFrame columns joined so that each partition is read by one task.

    Each model's sort maps over its inputs' partitions; dask fuses a
    column's read into the task that maps it, so that a frame would be read
    once per model.  Joined here partition by partition into one frame (as
    :func:`~dask_auc._engine.map_frame` pairs them, by position) and cut from
    its tasks (``to_delayed``), every model reads the same tasks.  Dask
    arrays and in-memory inputs are shared by their keys already.
    """
    models = list(scores.values())
    names = [*_input_names(scores), *([] if sample_weight is None else ["sample_weight"])]
    inputs = [y_true, *models] + ([] if sample_weight is None else [sample_weight])
    series = [x[x.columns[0]] if _one_column_frame(x) else x for x in inputs]
    if not any(isinstance(x, dd.Series) for x in series):
        return y_true, models, sample_weight
    series = [dd.from_dask_array(x) if isinstance(x, da.Array) and x.ndim == 1 else x
              for x in series]  # fmt: skip
    if not all(isinstance(x, dd.Series) for x in series):
        return y_true, models, sample_weight  # the engine says what does not pair
    if len({x.npartitions for x in series}) > 1:
        counts = ", ".join(f"{n} has {x.npartitions}" for n, x in zip(names, series, strict=True))
        raise ValueError(
            f"compare: inputs have different numbers of partitions ({counts}); rows pair by "
            "position, partition by partition: pass columns of one DataFrame"
        )
    columns = [f"input_{i}" for i in range(len(series))]
    meta = pd.DataFrame(
        {c: x._meta.reset_index(drop=True) for c, x in zip(columns, series, strict=True)}
    )
    joined = series[0].map_partitions(
        _joined_partition, *series[1:], columns=columns, names=names,
        meta=meta, align_dataframes=False, enforce_metadata=False,
    )  # fmt: skip
    frame = dd.from_delayed(joined.to_delayed(), meta=meta, verify_meta=False)
    read = [frame[c] for c in columns]
    return read[0], read[1 : 1 + len(models)], (read[-1] if sample_weight is not None else None)


def _input_names(scores: Mapping[str, Any]) -> tuple[str, ...]:
    """The names of ``y_true`` and of each model's scores in the error messages."""
    return ("y_true", *(f"scores[{n!r}]" for n in scores))


def _one_column_frame(x: Any) -> bool:
    return isinstance(x, dd.DataFrame) and len(x.columns) == 1


def _joined_partition(*parts: Any, columns: list[str], names: list[str]) -> pd.DataFrame:
    lengths = [len(p) for p in parts]
    if len(set(lengths)) > 1:
        described = ", ".join(f"{n} has {k}" for n, k in zip(names, lengths, strict=True))
        raise ValueError(
            f"compare: a partition's inputs differ in length ({described} rows); rows pair by "
            "position: pass columns of one DataFrame"
        )
    # the partitions' own dtypes kept (categorical or nullable labels, float32 scores); put
    # side by side, not built from a dict, which would copy the float columns into one
    # block: as long as reading them
    renamed = [p.reset_index(drop=True).rename(c) for c, p in zip(columns, parts, strict=True)]
    return pd.concat(renamed, axis=1)


class _Table:
    """The tidy table from every lazy result, in the order ``compare`` made them."""

    def __init__(
        self,
        names: list[str],
        metrics: tuple[str, ...],
        baseline: str,
        test: str | None,
        confidence_level: float,
        pos_label: Any,
    ):
        self.names, self.metrics, self.baseline, self.test = names, metrics, baseline, test
        self.confidence_level, self.pos_label = confidence_level, pos_label
        #: the baseline's position, and the others', each tested against it
        self.base = names.index(baseline)
        self.others = [i for i in range(len(names)) if i != self.base]

    def __call__(self, *results: Any) -> pd.DataFrame:
        n = len(self.metrics) * len(self.names)
        values, rest = results[:n], list(results[n:])
        tests: list[Any] = []
        if self.test == "delong" and self.others:  # one covariance of every model
            covariance = rest.pop(0)
            tests = [covariance.test(i, self.base) for i in self.others]
        elif self.test == "bootstrap":  # one test a model
            tests, rest = rest[: len(self.others)], rest[len(self.others) :]
        flip = False
        if self.pos_label is not None and rest:
            labels = rest[-1]
            greater = labels[-1] if len(labels) else None
            flip = len(labels) == 2 and self.pos_label != greater
            if flip and "log_loss" in self.metrics:
                raise ValueError(
                    f"compare: log_loss reads the scores as probabilities of the greater label "
                    f"{greater!r} (scikit-learn's rule); pos_label={self.pos_label!r} is not it"
                )
        table = pd.DataFrame(
            np.array([_number(v) for v in values], dtype=float).reshape(len(self.names), -1),
            index=pd.Index(self.names, name="model"),
            columns=list(self.metrics),
        )
        if self.test is not None:
            rows = np.full((len(self.names), len(TEST_COLUMNS)), np.nan)
            for i, result in zip(self.others, tests, strict=True):
                rows[i] = self._tested(result, flip)
            for j, column in enumerate(TEST_COLUMNS):
                table[column] = rows[:, j]
        table.attrs.update(
            baseline=self.baseline, test=self.test, tested=self.metrics[0],
            confidence_level=self.confidence_level,
        )  # fmt: skip
        return table

    def _tested(self, result: Any, flip: bool) -> list[float]:
        if self.test == "bootstrap":
            return [result.difference, result.low, result.high, result.std_error, result.z,
                    result.p_value]  # fmt: skip
        # DeLong's is of the greater label's AUC: the other label's is one minus it
        sign = -1.0 if flip else 1.0
        difference, z = sign * result.difference, sign * result.z
        half = NormalDist().inv_cdf(0.5 + self.confidence_level / 2) * result.std_error
        return [difference, difference - half, difference + half, result.std_error, z,
                result.p_value]  # fmt: skip


def _number(value: Any) -> float:
    """A metric's number: the KS result's statistic, any other as it is."""
    return float(getattr(value, "statistic", value))
