"""The ordered merge of the buckets' replicate summaries: the AUC and each bucket's place.

:func:`replicate_scan` merges the summaries in score order, neighbours only:
every replicate's doubled area under the whole curve and totals, and each
bucket's context (the counts above it, the part of its top tie group held by
buckets above, whether its bottom tie group goes on below) for pass 2
(:mod:`dask_auc._kernels.replicates.queries`).

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from .summary import SUMMARY_ARRAYS, ReplicateSummary


@dataclass(frozen=True)
class ReplicateContext(SizedByArrays):
    """What a bucket needs of the others to place its tie groups on every replicate's curve."""

    pos_above: np.ndarray  # rows (counts) in the buckets above
    neg_above: np.ndarray
    tied_pos: np.ndarray  # of those, the ones in this bucket's top tie group
    tied_neg: np.ndarray
    continues: bool  # its bottom tie group goes on in the bucket below
    pos_total: np.ndarray
    neg_total: np.ndarray


@dataclass(frozen=True)
class ReplicateScan(SizedByArrays):
    """The ordered scan of the summaries: each bucket's context, the totals and the area."""

    contexts: list[ReplicateContext | None]
    pos: np.ndarray  # each column's positives (Python ints when unweighted)
    neg: np.ndarray
    area: np.ndarray  # each column's doubled area under the whole curve


def replicate_scan(summaries: Sequence[ReplicateSummary]) -> ReplicateScan:
    """Merge the summaries in score order, neighbours only; place every bucket.

    The doubled area is each bucket's own area, plus its negatives times twice
    the positives above it, plus, where a tie group straddles the edge
    between the rows above ``(p1, n1)`` and the bucket's top group
    ``(p2, n2)``, ``n1 * p2 - n2 * p1``: the straight segment through the
    whole group instead of the two pieces' corner.
    """
    filled = [s for s in summaries if not s.is_empty]
    width = len(filled[0].pos) if filled else 1
    zero = np.zeros(width, dtype=object if not filled else _scan_dtype(filled[0]))
    pos_above, neg_above, area = zero.copy(), zero.copy(), zero.copy()
    carried: tuple[Any, np.ndarray, np.ndarray] | None = None
    placed: list[dict[str, Any] | None] = []
    previous: dict[str, Any] | None = None
    for summary in summaries:
        if summary.is_empty:
            placed.append(None)
            continue
        s = {name: _scan_values(getattr(summary, name)) for name in SUMMARY_ARRAYS}
        tied = carried is not None and carried[0] == summary.top
        tied_pos, tied_neg = (carried[1], carried[2]) if tied else (zero, zero)  # type: ignore[index]
        if tied and previous is not None:
            previous["continues"] = True
        area = area + s["area"] + 2 * s["neg"] * pos_above
        area = area + tied_neg * s["top_pos"] - s["top_neg"] * tied_pos
        entry = {
            "pos_above": pos_above,
            "neg_above": neg_above,
            "tied_pos": tied_pos,
            "tied_neg": tied_neg,
            "continues": False,
        }
        placed.append(entry)
        previous = entry
        if summary.top == summary.bottom:  # one tie group: it goes on from above
            carried = (summary.bottom, tied_pos + s["pos"], tied_neg + s["neg"])
        else:
            carried = (summary.bottom, s["bottom_pos"], s["bottom_neg"])
        pos_above, neg_above = pos_above + s["pos"], neg_above + s["neg"]
    contexts = [
        None
        if entry is None
        else ReplicateContext(**entry, pos_total=pos_above, neg_total=neg_above)
        for entry in placed
    ]
    return ReplicateScan(contexts, pos_above, neg_above, area)


def _scan_dtype(summary: ReplicateSummary) -> Any:
    return np.float64 if summary.pos.dtype.kind == "f" else object


def _scan_values(values: np.ndarray) -> np.ndarray:
    """Counts as Python ints (sums over buckets never overflow), weights as floats."""
    return values if values.dtype.kind == "f" else values.astype(object)


def scan_contexts(scan: ReplicateScan) -> list[ReplicateContext | None]:
    return scan.contexts
