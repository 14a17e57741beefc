"""Several models' score columns through one hash exchange of the grouped AUC.

The rows of a group go to one bucket whatever their scores, so the exchange
carries every score column at once (a 2-D ``score``, a column per model) and
each bucket computes one table per column.  Which groups are *heavy* depends
on their rows only, so every column finds the same heavy groups and the same
slots; only where a heavy group is cut depends on the scores.  Each column
gets its own :class:`~.heavy_groups.HeavyPlan` (its splitters) and its own
slots, after the others': a heavy group's rows are sent once per column.
The columns travel as one rows x columns array (:func:`stacked_scores`), a view
of the frame's own block where pandas keeps them together.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .heavy_groups import (
    GroupSample,
    HeavyBlockInfo,
    HeavyPiece,
    HeavyPlan,
    plan_heavy_groups,
)


@dataclass(frozen=True)
class HeavyPlans:
    """One :class:`~.heavy_groups.HeavyPlan` per score column: the same groups and slots.

    The rows of heavy groups are found once, by the first plan (``n_groups``
    is every plan's); ``n_slots`` counts every column's slots, column
    ``i``'s after those of the columns before it.
    """

    plans: tuple[HeavyPlan, ...]

    @property
    def n_groups(self) -> int:
        return self.plans[0].n_groups

    @property
    def n_slots(self) -> int:
        return sum(plan.n_slots for plan in self.plans)


def plan_score_groups(
    samples: Sequence[tuple[GroupSample, ...]], by: tuple[str, ...], n_buckets: int, n_slots: int
) -> HeavyPlans:
    """Every score column's :func:`~.heavy_groups.plan_heavy_groups`, ``n_slots`` slots each.

    Examples
    --------
    >>> import pandas as pd
    >>> keys = pd.DataFrame({"user": [1, 1, 1, 2]})
    >>> from ..core.group_keys import key_hash
    >>> a, b = np.array([0.1, 0.5, 0.9, 0.3]), np.array([0.8, 0.2, 0.4, 0.3])
    >>> sample = tuple(GroupSample(keys, key_hash(keys), s, 4, s.dtype) for s in (a, b))
    >>> plans = plan_score_groups([sample], ("user",), n_buckets=2, n_slots=2)
    >>> plans.n_slots, [p.splitters[0].tolist() for p in plans.plans]
    (4, [[0.5], [0.4]])
    """
    plans = tuple(
        plan_heavy_groups([s[i] for s in samples], by, n_buckets, n_slots)
        for i in range(len(samples[0]))
    )
    first = plans[0]
    # the groups and their slots follow from the sampled keys only: alike in every column
    assert all(
        np.array_equal(p.hashes, first.hashes) and np.array_equal(p.slots, first.slots)
        for p in plans
    )
    return HeavyPlans(plans)


def heavy_score_pieces(
    score: np.ndarray,
    plan: HeavyPlan | HeavyPlans,
    pieces_of: Callable[[np.ndarray, HeavyPlan], tuple[list[HeavyPiece], HeavyBlockInfo]],
) -> tuple[list[HeavyPiece], HeavyBlockInfo]:
    """``pieces_of(score, plan)`` for one score column, or for each column of a 2-D ``score``.

    ``pieces_of`` is :func:`~.heavy_groups.heavy_pieces` of the block's rows,
    their score and plan left open.  With several columns, the slots of
    column ``i`` follow those of the columns before it; the rows' counts and
    weights (the info) are every column's.
    """
    if isinstance(plan, HeavyPlan):
        return pieces_of(score, plan)
    slots: list[HeavyPiece] = []
    info = None
    for i, one in enumerate(plan.plans):
        pieces, found = pieces_of(score[:, i], one)
        slots += pieces
        info = found if info is None else info
    assert info is not None
    return slots, info


def heavy_plan_of(plan: HeavyPlan | HeavyPlans | None, i: int) -> HeavyPlan | None:
    """Score column ``i``'s heavy plan (None: no heavy group was looked for)."""
    return plan.plans[i] if isinstance(plan, HeavyPlans) else plan


def stacked_scores(columns: list[np.ndarray], names: tuple[str, ...]) -> np.ndarray:
    """Several score columns as one 2-D array, every value exact (a ValueError if it cannot be).

    Rows x columns, each column contiguous (the transpose of ``np.stack``'s
    columns x rows): the copy of each column is a memory copy, where
    ``np.column_stack``'s interleaving took 2.5x as long (21 against ~8 ms for
    five columns of 2.5e6 rows); the split's counting sort reads the columns
    as they are (:func:`~.bucketed.bucketed_columns`) and writes each row's
    values together.

    Examples
    --------
    >>> stacked = stacked_scores([np.array([1, 2]), np.array([0.5, 0.25], np.float32)], ("a", "b"))
    >>> stacked.dtype, stacked.tolist()
    (dtype('float64'), [[1.0, 0.5], [2.0, 0.25]])
    """
    stacked = _one_block(columns)
    if stacked is None:
        stacked = np.stack(columns).T
    for column, name in zip(columns, names, strict=True):
        if column.dtype.kind in "iu" and stacked.dtype.kind == "f" and len(column):
            if int(np.abs(column).max()) > 2**53:  # a float64 would round it
                raise ValueError(
                    f"score column {name!r} holds integers beyond 2**53, which other score "
                    "columns' floats cannot hold exactly: pass it in a call of its own"
                )
    return stacked


def _one_block(columns: list[np.ndarray]) -> np.ndarray | None:
    """The columns as rows x columns without a copy, where they lie end to end in one array.

    pandas keeps a frame's columns of one dtype as the rows of one 2-D block
    (as it reads Parquet), so each column's array is a view of that block and
    they follow one another in memory: the stack is then a view of the block.
    None otherwise (the caller copies them).
    """
    first = columns[0]
    root = _root(first)
    size = first.nbytes
    start = first.__array_interface__["data"][0]
    for i, column in enumerate(columns):
        if (
            column.dtype != first.dtype
            or column.shape != first.shape
            or not column.flags.c_contiguous
            or column.__array_interface__["data"][0] != start + i * size
            or _root(column) is not root
        ):
            return None
    # a view of ``first``'s block (its base keeps the block, and so every column, alive)
    shape, strides = (len(columns), len(first)), (size, first.itemsize)
    by_column = np.lib.stride_tricks.as_strided(first, shape, strides, writeable=False)
    return by_column.T


def _root(array: np.ndarray) -> object:
    """The object that owns ``array``'s memory: the end of its chain of bases."""
    while isinstance(array, np.ndarray) and array.base is not None:
        array = array.base
    return array
