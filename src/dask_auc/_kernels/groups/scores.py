"""Several models' score columns through one hash exchange of the grouped AUC.

The rows of a group go to one bucket whatever their scores, so the exchange
carries every score column at once (a 2-D ``score``, a column per model) and
each bucket computes one table per column.  Which groups are *heavy* depends
on their rows only, so every column finds the same heavy groups and the same
slots; only where a heavy group is cut depends on the scores.  Each column
gets its own :class:`~.heavy_groups.HeavyPlan` (its splitters) and its own
slots, after the others': a heavy group's rows are sent once per column.

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
