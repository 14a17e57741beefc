"""The rows of one class, in each form they take through the sort.

One class's rows (of a block, of a block's piece of a bucket, or of a
bucket) take one of these forms:

* **rows**: a :class:`SortedScores` without ``weights``, sorted by score,
  one entry per row.
* **weighted rows**: a :class:`SortedScores` with float ``weights``
  (sample weights; rows of equal score may have been summed into one entry).
* **traced rows**: rows, weighted or not, whose ``ids`` ride along (the
  metrics that must meet a row again in its block, as DeLong's test), sorted
  by :func:`traced_by_label` and merged in NumPy's stable order by one sort of
  packed keys (:func:`stable_order`), not an ``argsort``.  A block's traced
  rows may carry narrow ids (uint32 positions, the block's index kept once in
  :attr:`SortedScores.block`); a bucket's merge widens them to ``block << 32 | position``.
* **counted entries**: a :class:`SortedScores` with integer ``weights``
  (:attr:`SortedScores.counted`), one entry per distinct score with its row
  count: a tied block aggregated
  (:func:`~dask_auc._kernels.sort.aggregate.aggregated_rows`), sorted rows
  turned into runs (:func:`sort_owned`), or tied parts merged as runs
  (:func:`merged_parts`).
* **unsorted pieces**: :class:`UnsortedScores`, unweighted rows in no order,
  a block's piece of one bucket on the compiled path; the bucket sorts them.
* **unsplit rows**: :class:`UnsplitRows`, a whole block's unweighted rows in
  input order with the code of each row's class, on the compiled path.

Besides the forms, this module holds what builds them (:func:`sort_owned`,
:func:`distinct_entries`, :func:`traced_by_label`), merges them into one sorted part
(:func:`merged_parts`), and the two views of sorted scores that choose
between exact code paths (:func:`looks_tied`, :func:`score_runs`).

Nothing here imports dask.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.order import stable_order, stable_sort

if TYPE_CHECKING:
    from .plan import SortPlan


#: row ids of a block's rows are ``block << ID_BITS | position`` (:attr:`SortedScores.ids`)
ID_BITS = 32


def block_row_ids(rows: int) -> np.ndarray:
    """The narrow ids of a block's ``rows`` rows, in input order: their uint32 positions.

    Half the bytes of ``block << ID_BITS | position``; the block's index is
    kept once per part (:attr:`SortedScores.block`).
    """
    check_narrow_ids(rows)
    return np.arange(rows, dtype=np.uint32)


def check_narrow_ids(rows: int) -> None:
    """A block's positions must fit narrow ids (uint32): else a ``ValueError`` says so."""
    if rows > 1 << ID_BITS:
        raise ValueError(
            f"a block of {rows:,} rows: row ids hold positions below 2**{ID_BITS} in a block; "
            "split the input into smaller partitions"
        )


def traced_by_label(
    classes: tuple[Any, ...],
    labels: np.ndarray,
    scores: np.ndarray,
    ids: np.ndarray | None,
    weights: np.ndarray | None = None,
    block: int | None = None,
) -> dict[Any, SortedScores]:
    """Each label's rows sorted by score (stable), carrying their ids (and weights).

    The order is ``np.argsort(..., kind="stable")``'s (rows of equal score in
    row order, whatever the CPU), from one ``np.sort`` of keys carrying the
    rows' positions (:func:`stable_order`).  ``block``: the block of every
    row, when ``ids`` are narrow (:func:`block_row_ids`); ``ids`` None: they
    are the rows' positions, :func:`block_row_ids`' (two numeric classes: the
    sort's order cast, instead of a gather from 4 more bytes a row).

    Examples
    --------
    >>> parts = traced_by_label((0, 1), np.array([1, 0, 1]), np.array([0.5, 0.1, 0.2]), None)
    >>> parts[1].scores.tolist(), parts[1].ids.tolist(), parts[1].ids.dtype.name
    ([0.2, 0.5], [2, 0], 'uint32')
    """
    by_label: dict[Any, SortedScores] = {}
    if len(classes) == 2 and labels.dtype.kind in "biuf":
        # both classes by one sort, the class as the keys' top bit (numeric labels:
        # every row's label equals exactly one of the block's two)
        if ids is None:  # before the sort: the positions cast from its order must fit
            check_narrow_ids(len(scores))
        second = labels == classes[1]
        order, ranked = stable_order(scores, groups=second)
        first = len(scores) - int(np.count_nonzero(second))
        for value, part in ((classes[0], slice(0, first)), (classes[1], slice(first, None))):
            own = order[part]
            own_ids = own.astype(np.uint32) if ids is None else ids[own]
            by_label[value] = SortedScores(
                ranked[part], None if weights is None else weights[own], own_ids, block
            )
        return by_label
    # (only the one sort of both classes casts the positions from its order)
    row_ids = block_row_ids(len(scores)) if ids is None else ids
    for value in classes:
        if len(classes) > 1:
            # np.compress copies the selected rows about 1.7x faster than a boolean index
            rows = labels == value
            own, own_ids = np.compress(rows, scores), np.compress(rows, row_ids)
            own_weights = None if weights is None else np.compress(rows, weights)
        else:
            own, own_ids, own_weights = scores, row_ids, weights
        order, ranked = stable_order(own)
        by_label[value] = SortedScores(
            ranked, None if own_weights is None else own_weights[order], own_ids[order], block
        )
    return by_label


def traced_by_code(keys: tuple[Any, ...], codes: np.ndarray, *rows: Any) -> dict[Any, SortedScores]:
    """:func:`traced_by_label` of rows whose labels are codes (uint8), keyed by ``keys[code]``.

    ``rows``: :func:`traced_by_label`'s arguments after the labels (scores, ids, ...).

    Examples
    --------
    >>> parts = traced_by_code(("no", "yes"), np.array([1, 0, 1], np.uint8),
    ...                        np.array([0.5, 0.1, 0.2]), np.arange(3))
    >>> parts["yes"].scores, parts["yes"].ids
    (array([0.2, 0.5]), array([2, 0]))
    """
    by_code = traced_by_label(tuple(range(len(keys))), codes, *rows)
    return {keys[code]: part for code, part in by_code.items()}


@dataclass(frozen=True)
class SortedScores(SizedByArrays):
    """The rows of one class, sorted by ascending score, with their payloads.

    Payloads travel with the scores through the sort: ``weights`` (sample
    weights) and ``ids`` (row ids, ``block << 32 | position``, for metrics
    that must meet a row again in its input block, as DeLong's paired test;
    or narrow, uint32 positions in the one input block ``block``, as a
    block's rows and its pieces carry them on the bootstrap's sort).

    ``weights`` of an *integer* dtype are multiplicities: each entry stands
    for that many unweighted rows of its score (an aggregated block,
    :func:`~dask_auc._kernels.sort.aggregate.aggregated_rows`), and every
    count made of them is an exact integer, as for rows.  Float ``weights``
    are sample weights (rows of equal score may have been summed into one
    entry).  Kernels read rows
    through :attr:`total`, :func:`~dask_auc._kernels.sort.buckets.total_equal` and
    cumulative weights, which treat an entry of multiplicity ``k`` as ``k``
    rows; ``len`` counts entries.

    The form of most rows, in four variants told apart by their payloads:
    rows (no ``weights``), weighted rows (float ``weights``), traced rows
    (``ids``, with or without weights) and counted entries (integer
    ``weights``, :attr:`counted`).  It occurs everywhere from a prepared
    block's classes (:class:`~dask_auc._kernels.sort.prepare.PreparedBlock`) to a
    bucket's sorted groups (:class:`~dask_auc._kernels.sort.buckets.Bucket`).
    """

    scores: np.ndarray
    weights: np.ndarray | None = None
    ids: np.ndarray | None = None
    #: the input block of every row when ``ids`` are narrow (positions in it), else None
    block: int | None = None

    @property
    def total(self) -> int | float:
        if self.weights is None:
            return len(self.scores)
        if self.counted:
            return int(self.weights.sum())
        return float(self.weights.sum())

    @property
    def counted(self) -> bool:
        """Whether ``weights`` are integer multiplicities (unweighted rows aggregated by score)."""
        return self.weights is not None and self.weights.dtype.kind in "iu"

    def __len__(self) -> int:
        return len(self.scores)

    def slice(self, start: int, stop: int) -> SortedScores:
        weights = None if self.weights is None else self.weights[start:stop]
        ids = None if self.ids is None else self.ids[start:stop]
        return SortedScores(self.scores[start:stop], weights, ids, self.block)

    def empty(self) -> SortedScores:
        """No rows, with this part's dtype and payloads."""
        return self.slice(0, 0)

    def in_plan(self, plan: SortPlan) -> SortedScores:
        """These rows with the plan's score dtype (no copy when it is theirs already).

        The conversion keeps the order and the exact values: the plan only
        picks a dtype that holds every block's scores exactly.
        """
        if self.scores.dtype == plan.splitters.dtype:
            return self
        return replace(self, scores=self.scores.astype(plan.splitters.dtype))


@dataclass(frozen=True)
class UnsortedScores(SizedByArrays):
    """Unweighted rows of one class in no order: a block's piece of a bucket, sorted there.

    Made by the compiled split (:func:`~dask_auc._kernels.sort.buckets.split_block`
    of an :class:`UnsplitRows` block);
    :func:`~dask_auc._kernels.sort.buckets.assemble_bucket` sorts them with the
    bucket's other rows, so no kernel after it ever sees one.

    The form of the unsorted pieces: it occurs only between the split and the
    assembly of a bucket, on the compiled path, and stands in a piece's
    groups where a :class:`SortedScores` would (never weighted or counted;
    traced, with the row ids of its scores, on DeLong's traced sort).
    """

    scores: np.ndarray
    weights: None = None
    ids: np.ndarray | None = None
    block: None = None  # its ids, if any, are wide
    #: the dtype of the plan when the scores are narrowed (:attr:`UnsplitRows.given`)
    given: np.dtype | None = None
    counted = False

    @property
    def total(self) -> int:
        return len(self.scores)

    def __len__(self) -> int:
        return len(self.scores)


@dataclass(frozen=True)
class UnsplitRows(SizedByArrays):
    """A block's unweighted rows in input order, each with the code of its class.

    The compiled path (``numba``) keeps a continuous block so: its split
    groups the rows by class and score bucket in two passes
    (:func:`~dask_auc._kernels.sort.compiled.grouped_rows`) instead of a class
    split and a sort, and each bucket sorts its rows once.

    The form of the unsplit rows: it occurs only as a prepared block's
    ``unsplit`` (:func:`~dask_auc._kernels.sort.prepare.prepare_block` with
    ``compiled``, a continuous unweighted block of at least
    :data:`~dask_auc._kernels.sort.prepare.UNSPLIT_MIN_ROWS` rows), until
    :func:`~dask_auc._kernels.sort.buckets.split_block` groups it.
    """

    scores: np.ndarray
    codes: np.ndarray  # uint8: the index in ``keys`` of each row's class
    keys: tuple[Any, ...]  # the by_label key of each code
    ids: np.ndarray | None = None  # the rows' ids, on a traced sort
    #: the dtype the scores were given in, when they are kept narrowed (float64 scores
    #: that are all float32 values, :func:`~dask_auc._kernels.sort.prepare.narrowed`)
    given: np.dtype | None = None

    @property
    def dtype(self) -> np.dtype:
        """The dtype the scores stand for: the plan's, the buckets'."""
        return self.scores.dtype if self.given is None else self.given


#: blocks of fewer rows are never aggregated: their sort costs little either way
AGGREGATE_MIN_ROWS = 1 << 16
#: sorted rows become runs when there are at least this many rows per distinct score (and
#: a block is aggregated only while its distinct scores are this much fewer than its rows)
RUN_RATIO = 4
#: a sorted array whose sampled neighbours are equal this often is treated as tied
_TIED_SHARE = 0.5
_TIE_PROBES = 256


def sort_owned(scores: np.ndarray, weights: np.ndarray | None) -> SortedScores:
    """The rows sorted by score; ``scores`` is a fresh array, sorted in place.

    Sorted rows that turn out to hold few distinct scores are aggregated into
    runs (one linear pass, decided on the exact number of runs), so that what
    follows moves distinct values; a sample of neighbours spares continuous
    scores that pass.
    """
    if weights is None:
        scores.sort()  # in place: no second copy of the block at the peak
        return _as_runs(SortedScores(scores))
    # A stable order: the weights of tied rows are summed in it, so it must not
    # depend on the CPU's sort (an unstable one differs with AVX-512, AVX2, none).
    order, ranked = stable_sort(scores)
    return _as_runs(SortedScores(ranked, weights[order]))


def distinct_entries(values: np.ndarray, totals: np.ndarray) -> SortedScores:
    """Entries sorted by score, equal scores joined (a hash tells ``-0.0`` from ``0.0``)."""
    order = np.argsort(values, kind="stable")
    values, totals = values[order], totals[order]
    if len(values) > 1:
        first = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
        if len(first) < len(values):
            values, totals = values[first], np.add.reduceat(totals, first)
    return SortedScores(values, totals)


def _as_runs(part: SortedScores) -> SortedScores:
    """Sorted rows as (distinct score, count or summed weight) when that makes them few."""
    if part.ids is not None or part.counted or len(part) < AGGREGATE_MIN_ROWS:
        return part
    if not looks_tied(part.scores):
        return part
    starts = np.flatnonzero(np.concatenate(([True], part.scores[1:] != part.scores[:-1])))
    if len(starts) * RUN_RATIO > len(part):
        return part
    if part.weights is None:
        return SortedScores(part.scores[starts], np.diff(np.append(starts, len(part))))
    return SortedScores(part.scores[starts], np.add.reduceat(part.weights, starts))


_EMPTY = SortedScores(np.empty(0))


def merged_parts(parts: list[SortedScores]) -> SortedScores:
    """Sorted parts (rows or counted entries, of one bucket) merged into one sorted part.

    Unsorted pieces (:class:`UnsortedScores`, of a bucket's assembly) are
    sorted with the other parts' rows.
    """
    return _merge_sorted(parts)


def _merge_sorted(parts: list[SortedScores]) -> SortedScores:
    if any(isinstance(p, UnsortedScores) for p in parts):
        return _sorted_with_unsorted(parts)
    filled = [p for p in parts if len(p)]
    if not filled:
        # empty, in the plan's dtype, weighted if any block is (an empty block
        # cannot tell whether its rows would have had weights)
        return next((p for p in parts if p.weights is not None), parts[0] if parts else _EMPTY)
    parts = filled
    if len(parts) == 1:
        return parts[0]
    if any(p.counted for p in parts):
        return _merge_counted(parts)
    if parts[0].weights is None and parts[0].ids is None:
        tied_rows = sum(len(p) for p in parts if looks_tied(p.scores))
        if 2 * tied_rows >= sum(len(p) for p in parts):  # small pieces cost little either way
            return _merge_runs([score_runs(p.scores) for p in parts])
        scores = np.concatenate([p.scores for p in parts])
        scores.sort()  # in place: the concatenation is already a fresh array
        return SortedScores(scores)
    scores = np.concatenate([p.scores for p in parts])
    # the stable order of the concatenated runs (each part's rows of a score in
    # part order), as NumPy's timsort merges them, by one sort of packed keys
    order, ranked = stable_order(scores, runs=True)
    del scores  # gone before the payloads are gathered: a bucket's peak is 8 bytes a row lower
    return SortedScores(
        ranked, _payload([p.weights for p in parts], order), _merged_ids(parts, order)
    )


def _sorted_with_unsorted(parts: list[SortedScores]) -> SortedScores:
    """Unsorted pieces and the other blocks' rows sorted at once (one ``np.sort``).

    Only unweighted rows are ever unsorted; aggregated parts of other blocks
    join after, as :func:`_merge_counted` joins them to rows.  Traced rows
    (every part's, on a traced sort) keep their ids, equal scores in the
    parts' order, each part's in its own: the stable order of
    :func:`_merge_sorted`.
    """
    rows = [p for p in parts if not p.counted]
    if any(p.weights is not None for p in rows):
        raise ValueError("unsorted rows cannot be merged with weighted rows")
    traced = [p for p in parts if p.ids is not None]
    if traced:  # (an empty block's part has no ids: it has no rows either)
        if any(p.ids is None or p.counted for p in parts if len(p)):
            raise ValueError("traced rows cannot be merged with untraced or aggregated rows")
        order, ranked = stable_order(np.concatenate([p.scores for p in traced]))
        return SortedScores(ranked, None, _merged_ids(traced, order))
    scores = np.concatenate([p.scores for p in rows])
    scores.sort()  # in place: the concatenation is a fresh array
    # narrowed rows are sorted narrow (half the bytes), then given their plan's dtype
    given = [p.given for p in rows if isinstance(p, UnsortedScores) and p.given is not None]
    scores = scores.astype(np.result_type(scores, *given), copy=False)
    counted = [p for p in parts if p.counted and len(p)]
    return _merge_counted([SortedScores(scores), *counted]) if counted else SortedScores(scores)


def _merge_counted(parts: list[SortedScores]) -> SortedScores:
    """Merge aggregated parts, and unweighted row parts beside them (other blocks).

    Row parts that look tied join as their runs; when some are continuous,
    the aggregated parts are expanded to rows instead (``np.repeat``), so that
    a bucket of mostly distinct scores is merged as rows are.
    """
    rows = [p for p in parts if not p.counted]
    if any(p.weights is not None or p.ids is not None for p in rows):
        raise ValueError("aggregated rows cannot be merged with weighted or traced rows")
    if any(len(p) >= AGGREGATE_MIN_ROWS and not looks_tied(p.scores) for p in rows):
        expanded = [
            SortedScores(np.repeat(p.scores, p.weights)) if p.counted else p  # type: ignore[arg-type]
            for p in parts
        ]
        return _merge_sorted(expanded)
    runs = [(p.scores, p.weights) if p.counted else score_runs(p.scores) for p in parts]
    return distinct_entries(
        np.concatenate([values for values, _ in runs]),
        np.concatenate([counts for _, counts in runs]).astype(np.int64, copy=False),
    )


def _payload(values: list[np.ndarray | None], order: np.ndarray) -> np.ndarray | None:
    """One payload of the merged parts, in the merged order (None when the parts have none)."""
    if values[0] is None:
        return None
    return np.concatenate(values)[order]  # type: ignore[arg-type]


def _merged_ids(parts: list[SortedScores], order: np.ndarray) -> np.ndarray | None:
    """The merged parts' ids in the merged order, narrow ones widened (they come from blocks)."""
    if parts[0].ids is None or all(p.block is None for p in parts):
        return _payload([p.ids for p in parts], order)
    wide = np.empty(sum(len(p) for p in parts), np.int64)
    start = 0
    for p in parts:
        stop = start + len(p)
        assert p.ids is not None  # traced parts all carry ids
        wide[start:stop] = p.ids
        if p.block is not None:
            wide[start:stop] |= np.int64(p.block) << np.int64(ID_BITS)
        start = stop
    return wide[order]


def looks_tied(scores: np.ndarray) -> bool:
    """Whether most neighbours of a sorted array are equal, judged from a sample.

    It only chooses between two exact code paths (run-length or row by row),
    so a wrong guess costs time, never exactness.  Probing a few hundred
    neighbour pairs costs microseconds where counting all runs costs a pass.
    """
    n = len(scores)
    if n < 2 * _TIE_PROBES:
        return False
    probes = np.linspace(0, n - 2, _TIE_PROBES).astype(np.int64)
    equal = np.count_nonzero(scores[probes] == scores[probes + 1])
    return bool(equal >= _TIED_SHARE * _TIE_PROBES)


def score_runs(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a sorted array and how many times each occurs."""
    if len(scores) == 0:
        return scores[:0], np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(scores[1:] != scores[:-1]) + 1
    edges = np.concatenate(([0], starts, [len(scores)]))
    return scores[edges[:-1]], np.diff(edges)


def _merge_runs(runs: list[tuple[np.ndarray, np.ndarray]]) -> SortedScores:
    """The (value, count) runs of several sorted arrays, merged.

    Kept as an aggregated part (integer multiplicities) when the merged rows
    are many and their distinct values few; otherwise the rows are rebuilt,
    linear in the rows (one ``np.repeat``) instead of a sort.
    """
    values, inverse = np.unique(np.concatenate([v for v, _ in runs]), return_inverse=True)
    counts = np.zeros(len(values), dtype=np.int64)
    np.add.at(counts, inverse, np.concatenate([c for _, c in runs]))
    rows = int(counts.sum())
    if rows >= AGGREGATE_MIN_ROWS and len(values) * RUN_RATIO <= rows:
        return SortedScores(values, counts)  # few distinct scores: keep them aggregated
    return SortedScores(np.repeat(values, counts))
