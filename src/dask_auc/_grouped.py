"""Grouped AUC: the exact ROC AUC of every group, and the group-weighted mean (GAUC).

Rows are routed to buckets by a hash of their group key (see
:class:`dask_auc._engine.HashedGraph`), so a group spread over many partitions is
whole in one bucket, and each bucket computes all of its groups at once with
a vectorized kernel (:func:`dask_auc._kernels.groups.pair_sums.group_pair_sums`): cost
grows with rows, not with the number of groups.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from ._engine import (
    MIN_ROWS_PER_BLOCK,
    HashedGraph,
    LazyScore,
    compiled_kernels,
    hashed_blocks,
)
from ._gauc import (
    GaucBootstrap,
    check_probabilities,
    gauc_interval,
    group_weights,
    overall_calibration,
    weighted_mean,
)
from ._kernels.core.calibration import GROUP_SUM_COLUMNS, GROUPED_METRICS, calibration_values
from ._kernels.core.validation import (
    InvalidParameterError,
    check_declared_score_dtype,
    warn,
)
from ._kernels.groups.heavy_groups import plan_heavy_groups, sample_group_keys, sample_group_rows
from ._kernels.groups.plan import GroupPlan, GroupSpec, plan_groups
from ._kernels.groups.scores import heavy_plan_of, plan_score_groups
from ._kernels.groups.split import joined_partitions, split_group_blocks, split_score_blocks
from ._kernels.groups.tables import (
    GAUC_WEIGHT_COLUMN,
    bucket_table,
    concat_group_tables,
    concat_score_tables,
    heavy_group_table,
    slot_summary,
)
from ._kernels.replicates.counts import check_seed
from ._params import AtLeast, Column, Interval, check_params
from ._roc import BootstrapInterval

_GAUC_WEIGHTS = ("rows", "positives", "uniform")
#: the warning that rows with a missing key were left out (the CLI reports their count)
_MISSING_KEYS_MESSAGE = (
    "grouped_roc_auc_score: {missing:,} of {rows:,} rows have a missing key in by={by!r} "
    "and belong to no group: they are left out of every group's AUC and of gauc "
    "(as DataFrame.groupby(dropna=True) does)."
)
MISSING_KEYS_PATTERN = r"grouped_roc_auc_score: [\d,]+ of [\d,]+ rows have a missing key"


@dataclass(frozen=True)
class GroupedAUC:
    """The AUC of every group and their weighted mean.

    Attributes
    ----------
    per_group : pandas.DataFrame
        Indexed by the group key (a MultiIndex for several ``by`` columns),
        sorted, one row per key value (see ``by`` in
        :func:`grouped_roc_auc_score` for its dtype).  Columns ``auc`` (NaN
        when the group lacks a class), ``n_pos`` and ``n_neg`` (rows of
        nonzero weight), and with ``sample_weight`` also ``weight_pos`` and
        ``weight_neg`` (the summed weights).
    gauc : float
        The weighted mean of ``auc`` over the groups holding both classes; NaN
        when there is none.
    rows_without_group : int
        Rows left out of every group because a ``by`` column holds a missing
        value (NaN, None, NA) in them.
    overall : dict of str to float
        The calibration ``metrics`` asked for, over every row with a group
        (empty when none were asked for).
    interval : BootstrapInterval or None
        With ``n_bootstraps``: GAUC's bootstrap interval, the groups resampled
        whole (its ``estimate`` is ``gauc``).

    With a list of ``score`` columns (several models), ``per_group`` has a
    column MultiIndex ``(score, column)``: ``per_group[name]`` is the table
    of that score alone; ``gauc`` is a Series indexed by ``score``;
    ``overall`` and ``interval`` are dicts by score.
    """

    per_group: pd.DataFrame
    gauc: float | pd.Series
    rows_without_group: int = 0
    overall: dict[str, Any] = field(default_factory=dict)
    interval: BootstrapInterval | dict[str, Any] | None = None


def grouped_roc_auc_score(
    df: Any,
    *,
    by: str | Sequence[str],
    label: str,
    score: str | Sequence[str],
    sample_weight: str | None = None,
    gauc_weight: str = "rows",
    metrics: Sequence[str] = (),
    n_bootstraps: int | None = None,
    confidence_level: float = 0.95,
    random_state: Any = None,
    compute: bool = True,
) -> GroupedAUC | LazyScore:
    """Exact ROC AUC of every group of a DataFrame, and the group-weighted AUC (GAUC).

    Each group's AUC equals :func:`sklearn.metrics.roc_auc_score` on that
    group's rows (ties count one half), however the groups are spread over the
    partitions.  GAUC is the AUC averaged over groups as in click-through-rate
    models (Zhu et al. 2017, "Optimized Cost per Click in Taobao Display
    Advertising"): per user, weighted by impressions, skipping users who
    clicked everything or nothing.

    Parameters
    ----------
    df : dask or pandas DataFrame
        One row per scored example.
    by : str or list of str
        Group key column(s).  Rows with a missing key (NaN, None, NA) in any of
        them are dropped, as ``DataFrame.groupby(..., dropna=True)`` does, with
        a ``UserWarning`` saying how many (``rows_without_group`` of the result).
        Keys are grouped by value, whatever dtype each partition gives the
        column (Parquet files written at different times: int64 in one,
        float64 after a null id in another; int32, uint64, nullable
        ``Int64``; object, ``string`` or ``category`` strings): ``7`` and
        ``7.0`` are one group, ``2**53 + 1`` and ``2.0**53`` two.  The index
        is int64 when every key is an integer (uint64 if one is above
        ``2**63 - 1``), float64 when one is not, Python ints and floats
        (object) when no numeric dtype holds them all exactly, and the
        strings for string keys.  Booleans beside numbers count as 0 and 1.
    label : str
        Column of binary labels, checked over the whole frame with
        scikit-learn's rule: at most two classes, the greater one positive (a
        lone class is positive only if it is 1 or True).
    score : str or list of str
        Column of finite scores; higher means more positive.  A list of
        columns (several models' scores of the same rows): every column is
        computed from one hash exchange of the rows, the table of each model
        equal to a call with that column alone; the result is laid out by
        score (see :class:`GroupedAUC`).
    sample_weight : str, optional
        Column of finite, non-negative row weights, of any magnitude: extreme
        weights (beyond ``2**±256``, or groups weighing more than ``2**32``
        times others) are scaled by a power of two per group and class,
        exactly, before any product.  Rows of weight zero are left out of the
        AUC and of ``n_pos``/``n_neg``, as scikit-learn does; a group whose
        weights are all zero has a NaN AUC, and if every weight is zero
        ``gauc`` is NaN with an :class:`UndefinedMetricWarning`.
    gauc_weight : {"rows", "positives", "uniform"} or str, default="rows"
        Weight of each group in ``gauc``:

        - ``"rows"``: impressions, ``n_pos + n_neg`` (with ``sample_weight``:
          ``weight_pos + weight_neg``);
        - ``"positives"``: clicks, ``n_pos`` (with ``sample_weight``: ``weight_pos``);
        - ``"uniform"``: every group counts once;
        - any other string: a column of ``df`` (finite, non-negative), whose sum
          over the group's rows (all of them, whatever their ``sample_weight``)
          is the group's weight.  The three names above take precedence.

        ``gauc = sum(w_g * auc_g) / sum(w_g)`` over the groups holding both
        classes (``n_pos > 0`` and ``n_neg > 0``); the other groups are skipped.
        NaN with an :class:`UndefinedMetricWarning` if no group holds both
        classes or their weights sum to zero.
    metrics : sequence of str, default=()
        Calibration metrics computed in the same pass, from the same bucket
        rows, with ``score`` read as the probability of the positive class (in
        [0, 1], else scikit-learn's ``ValueError``); each adds a column of
        that name to ``per_group`` and its value over all rows to ``overall``:

        - ``"log_loss"``: the (weighted) mean log loss, as
          :func:`sklearn.metrics.log_loss` with both classes as ``labels``;
        - ``"brier"``: the Brier score, as :func:`sklearn.metrics.brier_score_loss`;
        - ``"normalized_entropy"``: the log loss over the entropy of the
          (weighted) share of positives (:func:`~dask_auc.normalized_entropy`);
          NaN for a group of one class;
        - ``"calibration"``: the summed probabilities over the summed labels
          (weighted; 1 is calibrated); NaN without a positive.

        Rows of weight zero count nothing; a group of zero weight has NaN.
    n_bootstraps : int, optional
        GAUC's bootstrap interval (``interval`` of the result) from this many
        replicates of the *groups*: a group enters replicate ``b`` a Poisson(1)
        number of times drawn from a hash of ``random_state``, ``b`` and its
        key (:func:`dask_auc.bootstrap_counts` with ``groups=``), all its rows
        with it, so its AUC is unchanged and the replicate's GAUC is
        ``sum(c w auc) / sum(c w)``.  Made from the per-group table in the
        calling process: O(groups x replicates), no second pass over the
        rows; the same for any partitioning.  The percentile interval.
    confidence_level : float in (0, 1), default=0.95
        Of the interval.
    random_state : int, numpy Generator or None
        The seed of the interval's replicates (None: a fresh one).
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore` whose ``compute()``
        returns the :class:`GroupedAUC`.

    Returns
    -------
    GroupedAUC or LazyScore
        Every group's AUC and counts (``per_group``), their weighted mean
        (``gauc``), the rows of no group, the ``metrics`` over every row and,
        with ``n_bootstraps``, GAUC's interval.

    Notes
    -----
    Rows are hash-partitioned by group key into ``K`` buckets (sized by the
    rows; ``dask.config`` key ``dask-auc.buckets`` sets it) and each bucket
    computes all of its groups at once.  A group holding a bucket's share of
    the rows or more (one user with a tenth of a click log), found from a
    sample of every block, is cut by score over slots of its own and merged
    like the binary AUC's buckets: no bucket holds it whole, and its AUC is
    the same bits as if it had.  Sizes and memory do not depend on the number
    of groups otherwise; the result table (one row per group) is collected in
    the calling process.

    Checks that need no data (columns present, ``gauc_weight``, the score
    dtype) are made at the call; the checks of values (labels binary, scores
    finite, weights non-negative) are made in each partition's first task, with
    scikit-learn's messages, before any sorting.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd, dask_auc
    >>> frame = pd.DataFrame({
    ...     "user": ["ann", "ann", "ann", "bob", "bob", "cat"],
    ...     "click": [0, 1, 1, 1, 0, 1],
    ...     "score": [0.2, 0.9, 0.2, 0.3, 0.7, 0.5]})
    >>> result = dask_auc.grouped_roc_auc_score(
    ...     dd.from_pandas(frame, npartitions=2), by="user", label="click", score="score")
    >>> result.per_group  # doctest: +NORMALIZE_WHITESPACE
           auc  n_pos  n_neg
    user
    ann   0.75      2      1
    bob   0.00      1      1
    cat    NaN      1      0
    >>> result.gauc  # (3 * 0.75 + 2 * 0.0) / 5: cat has no negative, skipped
    0.45
    """
    checked = check_params(
        "grouped_roc_auc_score",
        _PARAMETERS,
        by=by,
        label=label,
        score=score,
        sample_weight=sample_weight,
        n_bootstraps=n_bootstraps,
        confidence_level=confidence_level,
    )
    frame = _as_dask_frame(df)
    by_columns = checked["by"]
    scores = checked["score"]
    if not scores or len(set(scores)) < len(scores):
        raise ValueError(f"score must name distinct columns, at least one; got {score!r}")
    gauc_column = _check_columns(frame, by_columns, label, scores, sample_weight, gauc_weight)
    if not isinstance(compute, bool):
        raise TypeError(f"compute must be a bool, got {compute!r}")
    bootstrap = None
    if n_bootstraps is not None:
        # the seed drawn now: a lazy result computes the same interval every time
        bootstrap = GaucBootstrap(
            n_bootstraps, confidence_level, check_seed(random_state), compiled_kernels()
        )
    spec = GroupSpec(
        by_columns,
        label,
        scores[0],
        sample_weight,
        gauc_column,
        metrics=_checked_metrics(metrics),
        compiled=compiled_kernels(),
        more_scores=scores[1:],
    )
    several = not isinstance(score, str)  # a list, even of one: the table by score
    finish = _GroupedFinish(spec, gauc_weight, bootstrap, several)
    lazy = _grouped_tables(frame, spec, finish)
    return lazy.compute() if compute else lazy


_PARAMETERS = {
    # a list where one column is named (two models' scores): our TypeError, not "unhashable"
    "by": Column(several=True),
    "label": Column(),
    "score": Column(several=True),
    "sample_weight": Column(none=True),
    "n_bootstraps": AtLeast(1, none=True),
    "confidence_level": Interval(0, 1, closed="neither"),
}


def _checked_metrics(metrics: Any) -> tuple[str, ...]:
    names = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    unknown = [m for m in names if m not in GROUPED_METRICS]
    if unknown:
        raise InvalidParameterError(
            f"The 'metrics' parameter of grouped_roc_auc_score must be names among "
            f"{GROUPED_METRICS}. Got {list(metrics) if not isinstance(metrics, str) else metrics!r}"
            " instead."
        )
    return tuple(dict.fromkeys(names))


def _grouped_tables(frame: dd.DataFrame, spec: GroupSpec, finalize: Any) -> LazyScore:
    """The K bucket tables of a hash exchange by group key, ``finalize(plan, *tables)`` its value.

    Every row of a group goes to the same bucket, so a group spread over all
    partitions is whole in its bucket; the tables are disjoint.  The bucket
    count follows from the rows (:func:`~dask_auc._engine.hashed_blocks`;
    ``dask.config`` key ``dask-auc.buckets`` overrides).  With two buckets or
    more, a sample of every block finds the groups holding a bucket's share
    of the rows or more (:func:`~dask_auc._kernels.groups.heavy_groups.plan_heavy_groups`):
    those are cut by score over ``ceil(K / 2)`` slots of their own, so that
    one user with a tenth of the rows does not make one bucket a tenth of the
    data; their table comes last.
    """
    # the sample pass reads the keys and scores apart: the rows are then read and split
    # as they come, not held in memory until every block has been sampled
    (blocks, sample_blocks), n_buckets, samples = hashed_blocks(
        [frame[spec.columns], frame[list(dict.fromkeys([*spec.by, *spec.scores]))]],
        row_bytes=8 * len(spec.columns),
        join=joined_partitions,
    )
    n_slots = -(-n_buckets // 2) if n_buckets > 1 else 0  # one bucket: nothing to cut
    # several score columns: one exchange of the rows, and slots of heavy groups per column
    several = len(spec.scores) > 1
    sample: Any = partial(sample_group_keys, by=spec.by, score=spec.score)
    if several:
        sample = partial(sample_group_rows, by=spec.by, scores=spec.scores)
    graph = HashedGraph(
        blocks,
        split_score_blocks if several else split_group_blocks,
        (spec, n_buckets),
        (n_buckets, *[n_slots] * len(spec.scores)),
        sample=sample if n_slots else None,
        sample_blocks=sample_blocks,
        sample_sizes=samples,
        route=plan_score_groups if several else plan_heavy_groups,
        route_args=(spec.by, n_buckets, n_slots),
    )
    plan = graph.task("auc-grouped-plan", plan_groups, graph.infos)
    tables = graph.per_bucket("auc-grouped-table", bucket_table, plan, spec)
    keys = [plan, *tables]
    for i in range(len(spec.scores)) if n_slots else ():  # each column's heavy groups
        one = (plan, spec) if not several else (
            graph.task(f"auc-grouped-plan-{i}", GroupPlan.for_score, plan, i), spec.for_score(i)
        )  # fmt: skip
        route = graph.route if not several else graph.task(
            f"auc-grouped-route-{i}", heavy_plan_of, graph.route, i
        )  # fmt: skip
        slots = graph.per_bucket("auc-grouped-slot", slot_summary, *one, exchange_index=1 + i)
        heavy = graph.task("auc-grouped-heavy", heavy_group_table, one[0], route, one[1], slots)
        keys.append(heavy)
    return graph.lazy(keys, finalize, "grouped_roc_auc_score")


def _as_dask_frame(df: Any) -> dd.DataFrame:
    if isinstance(df, dd.DataFrame):
        return df
    if isinstance(df, pd.DataFrame):
        # about four partitions per core, none smaller than the binary path's blocks
        cores = os.cpu_count() or 1
        rows = max(MIN_ROWS_PER_BLOCK, math.ceil(len(df) / (4 * cores)))
        return dd.from_pandas(df, npartitions=max(1, math.ceil(len(df) / rows)), sort=False)
    raise TypeError(
        f"df must be a dask or pandas DataFrame, got {type(df).__module__}.{type(df).__name__}"
    )


def _check_columns(
    frame: dd.DataFrame,
    by: tuple[str, ...],
    label: str,
    scores: tuple[str, ...],
    sample_weight: str | None,
    gauc_weight: Any,
) -> str | None:
    """Check the column arguments against ``frame``; return the gauc weight column, if any."""
    if not by:
        raise ValueError("by must name at least one column")
    if not isinstance(gauc_weight, str):
        raise InvalidParameterError(
            f"The 'gauc_weight' parameter of grouped_roc_auc_score must be one of "
            f"{_GAUC_WEIGHTS} or a column name. Got {gauc_weight!r} instead."
        )
    gauc_column = None if gauc_weight in _GAUC_WEIGHTS else gauc_weight
    named = {
        "by": list(by),
        "label": [label],
        "score": list(scores),
        "sample_weight": [] if sample_weight is None else [sample_weight],
        "gauc_weight": [] if gauc_column is None else [gauc_column],
    }
    missing = [
        f"{argument}={name!r}"
        for argument, names in named.items()
        for name in names
        if name not in frame.columns
    ]
    if missing:
        raise ValueError(
            f"Column(s) not found in df: {', '.join(missing)}. "
            f"df has columns {list(frame.columns)}"
            + (
                f"; gauc_weight must be one of {_GAUC_WEIGHTS} or a column name"
                if gauc_column is not None and gauc_column not in frame.columns
                else ""
            )
        )
    for score in scores:
        check_declared_score_dtype(frame[score])
    return gauc_column


class _GroupedFinish:
    """Concatenate the bucket tables, sort by key, compute GAUC (runs in the caller)."""

    def __init__(
        self,
        spec: GroupSpec,
        gauc_weight: str,
        bootstrap: GaucBootstrap | None = None,
        several: bool = False,
    ):
        self.spec = spec
        self.gauc_weight = gauc_weight
        self.bootstrap = bootstrap
        self.several = several

    def __call__(self, plan: GroupPlan, *tables: Any) -> GroupedAUC:
        if plan.missing_keys:
            by = self.spec.by[0] if len(self.spec.by) == 1 else list(self.spec.by)
            warn(_MISSING_KEYS_MESSAGE.format(missing=plan.missing_keys, rows=plan.rows, by=by))
        # the heavy groups' tables, last, are None when no group was heavy
        if not self.several:
            per_group = concat_group_tables([t for t in tables if t is not None])
            return self._one(plan, self.spec, per_group)
        scores = self.spec.scores
        if len(scores) == 1:
            by_score = [list(tables)]
        else:  # each bucket's tables (a tuple, one per score), then each score's heavy table
            buckets = [t for t in tables if isinstance(t, tuple)]
            heavy = [t for t in tables if not isinstance(t, tuple)]
            by_score = [[b[i] for b in buckets] + heavy[i : i + 1] for i in range(len(scores))]
        # every score's tables share their keys: joined and sorted once
        joined = concat_score_tables([[t for t in one if t is not None] for one in by_score])
        results = [
            self._one(plan.for_score(i), self.spec.for_score(i), joined[i])
            for i in range(len(scores))
        ]
        per_group = pd.concat([r.per_group for r in results], axis=1, keys=list(scores))
        per_group.columns = per_group.columns.set_names(["score", None])
        return GroupedAUC(
            per_group,
            pd.Series([r.gauc for r in results], index=pd.Index(scores, name="score"), name="gauc"),
            plan.missing_keys,
            {s: r.overall for s, r in zip(scores, results, strict=True)},
            None if self.bootstrap is None else {
                s: r.interval for s, r in zip(scores, results, strict=True)
            },
        )  # fmt: skip

    def _one(self, plan: GroupPlan, spec: GroupSpec, per_group: pd.DataFrame) -> GroupedAUC:
        """The result of one score column from its joined table."""
        overall = {}
        if spec.metrics:
            check_probabilities(plan)
        if spec.metrics:
            sums = {name: per_group.pop(name).to_numpy() for name in GROUP_SUM_COLUMNS}
            for name, values in calibration_values(sums, spec.metrics).items():
                per_group[name] = values
            totals = {name: np.array([math.fsum(values)]) for name, values in sums.items()}
            overall = overall_calibration(totals, spec.metrics)
        if spec.gauc_column is not None:
            weights = per_group.pop(GAUC_WEIGHT_COLUMN).to_numpy()
        else:
            weights = group_weights(per_group, self.gauc_weight)
        gauc = weighted_mean(per_group, weights)
        interval = None
        if self.bootstrap is not None:
            interval = gauc_interval(per_group, weights, gauc, self.bootstrap)
        return GroupedAUC(per_group, gauc, plan.missing_keys, overall, interval)
