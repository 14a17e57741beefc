"""The bootstrap's blocks: rows validated and sorted by score with their keys.

The sort carries each row's key (its position, or its group key's hash) as
its ``ids`` payload, so that a bucket can draw every row's replicate counts
(:mod:`dask_auc._kernels.replicates.counts`) wherever the row landed;
:class:`TracedPlan` knows where each block starts in the whole input.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import pandas as pd

from ..core.label_codes import class_codes
from ..core.validation import (
    LabelledBlock,
    RowCounts,
    as_score_array,
    as_weight_array,
    distinct_labels,
    to_numpy,
)
from ..sort.plan import SortPlan
from ..sort.prepare import PreparedBlock
from ..sort.rows import ID_BITS, SortedScores, block_row_ids, traced_by_code, traced_by_label
from .counts import group_keys, keys_of_positions


@dataclass(frozen=True)
class TracedPlan(SortPlan):
    """A sort plan that also knows where each block starts in the whole input."""

    offsets: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    by_group: bool = False


def traced_plan(plan: SortPlan, metas: Sequence[Any], by_group: bool) -> TracedPlan:
    """``plan`` with each block's first row position (blocks are in input order)."""
    rows = np.array([meta.lengths.rows for meta in metas], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(np.int64)
    values = {f.name: getattr(plan, f.name) for f in fields(SortPlan)}
    return TracedPlan(**values, offsets=offsets, by_group=by_group)


@dataclass(frozen=True)
class RowsBlock(LabelledBlock):
    """One validated block: its rows, with their group keys' hashes if any.

    ``labels`` are each row's class as its index in ``classes`` where ``coded``
    (:func:`~dask_auc._kernels.core.label_codes.class_codes`: uint8, for at
    most 256 classes of numbers or strings), else the labels as given: a
    persisted ROC keeps these blocks for its bootstrap, at 9 bytes a row
    (unweighted) whatever the labels' type.
    """

    keys: np.ndarray | None  # r_g of each row's group
    coded: bool = False  # labels are class_codes' indices


def prepare_rows(
    label: Any, score: Any, *rest: Any, names: tuple[str, ...], weighted: bool
) -> RowsBlock:
    """Validate one block (the messages of every metric); ``rest``: weights, then group keys."""
    label, score = to_numpy(label), to_numpy(score)
    weight = rest[0] if weighted else None
    given_keys = rest[-1] if len(rest) > int(weighted) else None
    keys = None if given_keys is None else to_numpy(given_keys)
    lengths = RowCounts.of(names, label, score, *rest)
    if not lengths.aligned:
        return RowsBlock(lengths, (), label[:0], score[:0], None, None)
    classes = distinct_labels(label)
    score = as_score_array(score)
    weights = None if weight is None else as_weight_array(weight)
    if keys is not None:
        missing = pd.isna(keys)
        if missing.any():
            raise ValueError(
                f"{names[-1]} has {int(missing.sum()):,} missing key(s): every row must "
                "belong to a group to be resampled with it"
            )
        # hashed as given: to_numpy makes nullable integers floats, beyond 2**53 inexact
        keys = group_keys(given_keys)
    codes = class_codes(label, classes)
    return RowsBlock(lengths, classes, codes, score, weights, keys, codes is not label)


def traced_rows(block: RowsBlock, index: int) -> PreparedBlock:
    """Block ``index``'s rows sorted by score within each label, carrying their keys.

    Row ids are their uint32 positions in the block, the block's ``index``
    kept once per part (narrow ids: :func:`row_keys` makes them positions in
    the whole input), or the hashes of their group keys.  Rows of weight zero
    are dropped, as every metric does; the others keep their positions.
    """
    ids: np.ndarray | None = None  # (None: the rows' positions, made by the sort's order)
    if block.keys is not None:
        ids, narrow = block.keys.view(np.int64), None
    else:
        narrow = index
    labels, scores, weights = block.labels, block.scores, block.weights
    if weights is not None and not weights.all():
        keep = weights != 0
        if ids is None:
            ids = block_row_ids(len(block.scores))
        labels, scores, weights, ids = labels[keep], scores[keep], weights[keep], ids[keep]
    if block.coded:
        by_label = traced_by_code(block.classes, labels, scores, ids, weights, narrow)
    else:
        by_label = traced_by_label(block.classes, labels, scores, ids, weights, narrow)
    return PreparedBlock(block.lengths, block.classes, by_label)


#: rows whose keys are made at a time: the temporaries stay small beside the keys
_KEY_ROWS = 1 << 16


def row_keys(part: SortedScores, plan: TracedPlan) -> np.ndarray:
    """Each row's key ``r`` (uint64): of its position in the whole input, or its group's.

    Made a run of rows at a time into the one array returned, so that a
    bucket's keys cost 8 bytes a row and no more at their peak.
    """
    ids = part.ids if part.ids is not None else np.empty(0, np.int64)
    if plan.by_group:
        return ids.view(np.uint64)
    keys = np.empty(len(ids), np.uint64)
    offsets = plan.offsets.view(np.uint64)
    for first in range(0, len(ids), _KEY_ROWS):
        out = keys[first : first + _KEY_ROWS]
        if part.block is not None:  # narrow ids: positions in the one block
            out[:] = ids[first : first + _KEY_ROWS]
            out += offsets[part.block]
        else:
            run = ids[first : first + _KEY_ROWS].view(np.uint64)
            np.bitwise_and(run, np.uint64((1 << ID_BITS) - 1), out=out)
            out += offsets[run >> np.uint64(ID_BITS)]
        keys_of_positions(out)
    return keys
