"""The grouped AUC's per-group tables: one per bucket, the heavy groups', and their union.

:func:`bucket_table` concatenates one bucket's key tables in a dtype that
holds every key exactly (:func:`~dask_auc._kernels.core.group_keys.concat_key_columns`),
numbers its groups (:func:`~dask_auc._kernels.groups.codes.group_codes`; the rows
follow through their codes) and reduces them with
:func:`~dask_auc._kernels.groups.pair_sums.group_pair_sums`;
:func:`heavy_group_table` gives the heavy groups the same columns from their
merged slots; :func:`concat_group_tables` joins the tables the same way, by
an index holding every key exactly.

pandas is used for the keys (factorizing, the result's index); the
arithmetic is NumPy.  Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.calibration import GROUP_SUM_COLUMNS, group_calibration_sums
from ..core.group_keys import (
    NUMBER_KINDS,
    concat_key_columns,
)
from .codes import group_codes
from .heavy_groups import (
    HeavyPiece,
    HeavyPlan,
    HeavySlot,
    merge_group_slots,
    summarize_slot,
)
from .pair_sums import GroupSums, group_pair_sums, grouped_pair_counts_many, radix_order
from .plan import GroupPlan, GroupSpec
from .split import GroupRows, concat_rows

#: name of the per-group sum of a ``gauc_weight`` column in bucket tables
GAUC_WEIGHT_COLUMN = "_gauc_weight"


def bucket_table(
    plan: GroupPlan, spec: GroupSpec, *pieces: GroupRows
) -> pd.DataFrame | tuple[pd.DataFrame, ...]:
    """The per-group table of one bucket, its groups in the order of their codes.

    The codes are :func:`~dask_auc._kernels.groups.codes.group_codes`' of the
    pieces' distinct keys.
    Columns: ``auc``, ``n_pos``, ``n_neg`` (rows of nonzero weight), and when
    weighted ``weight_pos``, ``weight_neg``; plus :data:`GAUC_WEIGHT_COLUMN`
    when ``spec.gauc_column`` is set.  With several score columns
    (``spec.more_scores``), one such table per column, from one grouping of
    the rows.
    """
    rows = concat_rows(pieces)
    # the pieces' distinct keys, matched once each: a group sent by several blocks is one
    key_codes, index = group_codes(rows.keys, spec.by)
    codes = key_codes if rows.codes is None else key_codes[rows.codes]
    n_groups = len(index)
    positive = rows.label == plan.positive_label
    if not isinstance(positive, np.ndarray):  # a comparison NumPy could not broadcast
        positive = np.zeros(len(rows.label), dtype=bool)
    counts: dict[str, np.ndarray] = {}
    if rows.weight is not None:
        counted = rows.weight != 0
        counts["n_pos"] = np.bincount(codes[positive & counted], minlength=n_groups)
        counts["n_neg"] = np.bincount(codes[~positive & counted], minlength=n_groups)
    # several columns, unweighted, compiled: one counting sort of the rows for all of them
    many = None
    if rows.score.ndim == 2 and rows.weight is None and spec.compiled and len(codes):
        many = grouped_pair_counts_many(codes, n_groups, rows.score, positive)
    tables = []
    for i in range(len(spec.scores)):
        score = rows.score_column(i)
        if many is not None:
            sums = GroupSums(many[0], many[1], many[2][i])
        else:
            sums = group_pair_sums(
                codes, n_groups, score, positive, rows.weight, compiled=spec.compiled
            )
        table = {"auc": sums.auc()}
        if rows.weight is None:
            table["n_pos"], table["n_neg"] = sums.pos, sums.neg
        else:
            table.update(counts)
            table["weight_pos"], table["weight_neg"] = sums.totals()
        if spec.metrics:
            eps = plan.for_score(i).eps
            table.update(group_calibration_sums(codes, n_groups, score, positive, rows.weight, eps))
        if rows.gauc_weight is not None:
            table[GAUC_WEIGHT_COLUMN] = np.bincount(
                codes, weights=rows.gauc_weight, minlength=n_groups
            )
        for name in ("n_pos", "n_neg"):
            table[name] = table[name].astype(np.int64, copy=False)
        tables.append(pd.DataFrame(table, index=index, copy=False))
    return tables[0] if rows.score.ndim == 1 else tuple(tables)


def heavy_group_table(
    plan: GroupPlan, heavy: HeavyPlan, spec: GroupSpec, slots: Sequence[HeavySlot]
) -> pd.DataFrame | None:
    """The heavy groups' table, with :func:`bucket_table`'s columns; None if no group is heavy.

    Each group's slots are merged in score order
    (:func:`~dask_auc._kernels.groups.heavy_groups.merge_group_slots`); unweighted,
    its counts and area are Python ints and its AUC one correctly rounded
    division, the same bits as :func:`bucket_table` gives a whole group.
    """
    if not heavy.n_groups:
        return None
    summaries = merge_group_slots(slots, heavy)
    counts = plan.heavy_counts
    if counts is None:
        counts = np.zeros((2, heavy.n_groups), np.int64)
    table: dict[str, np.ndarray] = {
        "auc": np.array([summary.auc() for summary in summaries], dtype=np.float64),
        "n_pos": counts[1].astype(np.int64),
        "n_neg": counts[0].astype(np.int64),
    }
    if spec.sample_weight is not None:
        pos = np.array([float(summary.pos) for summary in summaries])
        neg = np.array([float(summary.neg) for summary in summaries])
        if plan.heavy_exponents is not None:  # exact: powers of two
            pos = np.ldexp(pos, plan.heavy_exponents[1])
            neg = np.ldexp(neg, plan.heavy_exponents[0])
        table["weight_pos"], table["weight_neg"] = pos, neg
    if spec.metrics:
        for name in GROUP_SUM_COLUMNS:
            sums = np.zeros(heavy.n_groups)
            for slot in slots:  # in slot order, so in score order within a group
                if slot.group >= 0 and slot.calibration is not None:
                    sums[slot.group] += slot.calibration[name][0]
            table[name] = sums
    if spec.gauc_column is not None:
        gauc = plan.heavy_gauc_weight
        table[GAUC_WEIGHT_COLUMN] = np.zeros(heavy.n_groups) if gauc is None else gauc
    if len(spec.by) == 1:
        index = pd.Index(heavy.keys[spec.by[0]], name=spec.by[0])
    else:
        index = pd.MultiIndex.from_frame(heavy.keys)
    return pd.DataFrame(table, index=index, copy=False)


def slot_summary(plan: GroupPlan, spec: GroupSpec, *pieces: HeavyPiece) -> HeavySlot:
    """One slot of a heavy group, summarized (its pieces from every block)."""
    return summarize_slot(
        pieces,
        plan.positive_label,
        plan.heavy_exponents,
        calibration=bool(spec.metrics),
        compiled=spec.compiled,
        eps=plan.eps,
    )


def concat_group_tables(tables: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The bucket tables as one, sorted by an index holding every key exactly.

    Bucket tables may disagree on the key dtype (one bucket's keys all
    integers, another's holding 0.5); ``pandas.concat`` would round their
    union to float64, merging 2**53 + 1 into 2**53.  Each index level is
    joined by :func:`~dask_auc._kernels.core.group_keys.concat_key_columns` instead.
    """
    return concat_score_tables([tables])[0]


def concat_score_tables(by_score: Sequence[Sequence[pd.DataFrame]]) -> list[pd.DataFrame]:
    """:func:`concat_group_tables` of each score column's tables, the keys ordered once.

    ``by_score[i][b]`` is score ``i``'s table of bucket ``b``; the tables of
    one bucket share their index (the bucket's groups), so the keys are joined
    and sorted once and every score's columns follow that order.

    Examples
    --------
    >>> a = [pd.DataFrame({"auc": [0.5]}, index=pd.Index([2], name="k")),
    ...      pd.DataFrame({"auc": [1.0]}, index=pd.Index([1], name="k"))]
    >>> b = [t * 0 for t in a]
    >>> [t["auc"].tolist() for t in concat_score_tables([a, b])]
    [[1.0, 0.5], [0.0, 0.0]]
    """
    tables = by_score[0]
    first = tables[0].index
    levels = [
        concat_key_columns([t.index.get_level_values(level) for t in tables])
        for level in range(first.nlevels)
    ]
    if (
        first.nlevels == 1
        and _numeric(levels[0])
        and all(_numeric(t[c]) for score in by_score for t in score[:1] for c in t.columns)
    ):
        # the common case, without pandas' concat and sort_index: the keys are distinct
        # (a group is whole in its bucket), so their one ascending order is the index's
        keys = levels[0].to_numpy()
        order = _ascending_order(keys)
        index = pd.Index(keys[order], name=first.name)
        return [
            pd.DataFrame(
                {c: np.concatenate([t[c].to_numpy() for t in score])[order] for c in score[0]},
                index=index,
                columns=score[0].columns,
                copy=False,
            )
            for score in by_score
        ]
    joined = []
    for score in by_score:
        body = pd.concat([t.reset_index(drop=True) for t in score], ignore_index=True)
        if first.nlevels == 1:
            body.index = pd.Index(levels[0], name=first.name)
        else:
            body.index = pd.MultiIndex.from_arrays(levels, names=first.names)
        joined.append(body.sort_index())
    return joined


def _ascending_order(keys: np.ndarray) -> np.ndarray:
    """The ascending order of distinct numeric keys (radix passes for integers of narrow range)."""
    if keys.dtype.kind not in "iu" or not len(keys):
        return np.argsort(keys, kind="stable")
    wide = keys.astype(np.uint64, copy=False) if keys.dtype.kind == "u" else keys.view(np.uint64)
    offset = wide - wide[np.argmin(keys)]  # modulo 2**64: each key's distance above the least
    return radix_order(offset, int(offset.max()) + 1)


def _numeric(values: Any) -> bool:
    """Whether a column or index holds NumPy numbers (not an extension or object dtype)."""
    return isinstance(values.dtype, np.dtype) and values.dtype.kind in NUMBER_KINDS
