"""DeLong's placements of a model of few distinct scores: looked up by score, not routed by row.

A row's placement (:mod:`.delong`) depends on its score and its class alone.
When every block of a model holds few distinct scores (:func:`tabled_models`,
from each block's :func:`distinct_estimates`), its sort aggregates the blocks
as the plain sort aggregates a tied block (:func:`aggregated_block`: one entry
per score and class, no row ids), each bucket makes a :class:`PlacementTable`
of its entries' centred placements, every input block receives every bucket's
table (by the exchange backwards that would carry routed rows,
:mod:`.delong_paired`), and each block looks its rows up by score
(:func:`tabled_values`: a compiled hash, or binary searches without numba).
No row is sorted with its id and none crosses the exchange twice.

The values are those routing gives -- the same integer placement of each row
under the same division and subtraction -- so every cross sum is the same to
the bit (``tests/test_delong.py``).  The choice is made from a probe of each
block before the sort, and only between these two exact paths: a wrong guess
costs time, never a bit.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.validation import RowCounts
from ..sort import compiled as _compiled
from ..sort.aggregate import aggregated_rows
from ..sort.prepare import PreparedBlock, distinct_estimate

#: a block is aggregated when its rows number this many times its distinct scores
#: (a hash of a tied block beats its sort; of a continuous one it does not:
#: :func:`~dask_auc._kernels.sort.prepare.few_distinct`)
ROWS_PER_DISTINCT = 8


def distinct_estimates(
    classes: tuple[Any, ...], labels: np.ndarray, scores: Sequence[np.ndarray]
) -> tuple[int, tuple[float, ...]]:
    """A block's rows, and each model's distinct scores in it (estimated; inf: never tabled).

    ``classes``, ``labels``: the block's distinct labels and its labels;
    ``scores``: each model's scores of its rows.  A block of more than two
    labels is never tabled (the finish refuses it), nor scores the compiled
    loops do not take.

    Examples
    --------
    >>> distinct_estimates((0, 1), np.array([0, 1, 1]), [np.array([0.5, 0.5, 0.1])])
    (3, (2.0,))
    """
    binary = len(classes) <= 2
    return len(labels), tuple(
        distinct_estimate(s) if binary and _compiled.supports(s.dtype) else np.inf for s in scores
    )


def tabled_models(
    probes: Sequence[tuple[int, tuple[float, ...]]], compiled: bool
) -> tuple[bool, ...]:
    """Which models' placements are looked up by score, from every block's probe.

    A model is, with the compiled loops (``dask-auc.numba``), when every
    block holds at most one distinct score in :data:`ROWS_PER_DISTINCT` rows,
    and the tables every block receives (each bucket's distinct scores, at
    most the blocks' estimates added up) hold no more entries in all than
    the rows that routing would send back.  Without them, every model's
    rows carry ids: the NumPy path stays the definition.

    Examples
    --------
    >>> tabled_models([(800, (20.0, 700.0)), (800, (30.0, 650.0))], compiled=True)
    (True, False)
    """
    if not probes:
        return ()
    sizes = [rows for rows, _ in probes]
    total = sum(sizes)
    tabled = []
    for model in range(len(probes[0][1])):
        estimates = [estimate[model] for _, estimate in probes]
        few = all(d * ROWS_PER_DISTINCT <= n for n, d in zip(sizes, estimates, strict=True))
        tabled.append(compiled and few and sum(estimates) * len(probes) <= total)
    return tuple(tabled)


def aggregated_block(
    lengths: RowCounts,
    classes: tuple[Any, ...],
    labels: np.ndarray,
    scores: np.ndarray,
    compiled: bool,
) -> PreparedBlock:
    """One model's scores of a block as one entry per (score, class), with its row count.

    :func:`~dask_auc._kernels.sort.aggregate.aggregated_rows`, as the plain
    sort's :func:`~dask_auc._kernels.sort.prepare.prepare_block` aggregates a
    block of few distinct scores.

    Examples
    --------
    >>> labels, scores = np.array([0, 1, 1]), np.array([0.5, 0.5, 0.1])
    >>> lengths = RowCounts.of(("y", "s"), labels, scores)
    >>> block = aggregated_block(lengths, (0, 1), labels, scores, False)
    >>> block.by_label[1].scores, block.by_label[1].weights
    (array([0.1, 0.5]), array([1, 1]))
    """
    if not classes:
        return PreparedBlock(lengths, classes, {})
    positive = labels == classes[-1] if len(classes) == 2 else None
    parts = aggregated_rows(scores, None, positive, compiled=compiled)
    return PreparedBlock(lengths, classes, dict(zip(classes, parts, strict=True)))


@dataclass(frozen=True)
class PlacementTable(SizedByArrays):
    """One bucket's centred placements by score: each (score, class) entry of it once.

    ``pos_scores``/``pos_values``: the entries of ``positive_label`` (the
    greater label, whose placements are ``V10``) and their ``V10 - AUC``;
    ``neg_*`` those of the other label and their ``V01 - AUC``.  ``compiled``:
    whether the blocks may look up with the compiled hash.
    """

    positive_label: Any
    pos_scores: np.ndarray
    pos_values: np.ndarray
    neg_scores: np.ndarray
    neg_values: np.ndarray
    compiled: bool


def tabled_values(
    scores: np.ndarray,
    positive: np.ndarray,
    tables: Sequence[PlacementTable],
    out: tuple[np.ndarray, np.ndarray],
) -> None:
    """Write the centred placements of a block's rows by score: its positive rows', its others'.

    ``scores``: one model's scores of the block's rows; each class's rows in
    row order (``positive``: a boolean per row) go to ``out[0]`` (``out[1]``),
    each looked up in every bucket's entries of its class, by the scores' bit
    patterns (``-0.0`` as ``0.0``; the rows' own buffers, no copy).  A score
    found in none is a broken invariant, raised, never a zero.
    """
    classes = [
        (
            np.concatenate([t.pos_scores if c else t.neg_scores for t in tables]),
            np.concatenate([t.pos_values if c else t.neg_values for t in tables]),
        )
        for c in (True, False)
    ]
    queries = scores.astype(classes[0][0].dtype, copy=False)
    wanted, zero = _compiled.score_bits(queries)
    keyed = [(_compiled.score_bits(keys)[0], values) for keys, values in classes]
    kernel = _compiled.usable(tables[0].compiled, "binary", wanted, work=len(wanted))
    if kernel is not None:
        (pos_keys, pos_values), (neg_keys, neg_values) = keyed
        found = kernel.looked_up(
            pos_keys, pos_values, neg_keys, neg_values, wanted, positive.view(np.uint8), zero, *out
        )
    else:
        found = len(wanted)
        wanted = np.where(wanted == zero, 0, wanted).astype(wanted.dtype)
        for (keys, values), rows, side in zip(keyed, (positive, ~positive), out, strict=True):
            keys = np.where(keys == zero, 0, keys).astype(keys.dtype)
            order = np.argsort(keys, kind="stable")  # of equal keys the first, as the hash keeps
            ordered, asked = keys[order], wanted[rows]
            at = np.minimum(np.searchsorted(ordered, asked), max(len(keys) - 1, 0))
            hit = ordered[at] == asked if len(keys) else np.zeros(len(asked), bool)
            if len(keys):
                side[:] = values[order[at]]
            if not hit.all():
                found = min(found, int(np.flatnonzero(rows)[np.argmin(hit)]))
    if found < len(wanted):
        raise RuntimeError(
            f"DeLong's placements: score {queries[found]!r} of a block is in no bucket's table"
        )
