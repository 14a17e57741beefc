"""A state's bins: class counts per prefix of an order-preserving score key, merged in any order.

Every score (as float64; -0.0 as 0.0) has a 64-bit key that orders as the
scores do (:func:`score_keys`).  A state keeps ``bits`` leading bits of the
key: a bin is a key prefix, so every score of a bin lies between the scores
of the bins beside it, whatever data or partition made it.  A block keeps all
64 bits (one bin per distinct score) unless that makes more than ``max_bins``
bins; then the fewest bits dropped that make at most ``max_bins``.  Merging
states takes the fewest bits among them, adds the counts of equal bins, and
drops more bits only if the union needs it: the result is the state of the
concatenated rows, in any order of merges (the bits chosen are the most that
fit all the rows), bit for bit when unweighted (integer counts).

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core.footprint import SizedByArrays
from ..core.validation import (
    RowCounts,
    as_score_array,
    as_weight_array,
    distinct_labels,
    to_numpy,
)
from ..sort.compiled import usable

KEY_BITS = 64
#: the compiled path's parts a block (about; :func:`binned_rows`): few enough streams for its
#: scatter, and tables of a part's bins small enough for the caches; at least PART_ROWS rows each
PARTS, PART_ROWS = 256, 4096
_COLUMNS = ("bins", "pos", "neg", "low", "high")
#: the compiled tables pack a bin's two class counts in one uint64: blocks of fewer rows
PACKED_ROWS = 1 << 32
#: the most states the compiled merge joins at once (it compares their heads at each bin)
MERGED_RUNS = 16
_SIGN = np.uint64(1 << 63)
#: the targets whose positive class is 1 by default (scikit-learn's roc_curve rule)
_DEFAULT_TARGETS = ({0, 1}, {-1, 1})


def score_keys(scores: np.ndarray) -> np.ndarray:
    """An unsigned 64-bit key per score that orders as the scores (float64, -0.0 as 0.0).

    Examples
    --------
    >>> keys = score_keys(np.array([-2.0, -0.0, 0.0, 1e-300, 0.5, np.inf]))
    >>> bool(np.all(np.diff(keys.astype(object)) >= 0)), bool(keys[1] == keys[2])
    (True, True)
    """
    bits = (np.asarray(scores, dtype=np.float64) + 0.0).view(np.uint64)
    negative = (bits & _SIGN) != 0
    return np.where(negative, ~bits, bits | _SIGN)


@dataclass(frozen=True)
class StateBins(SizedByArrays):
    """The bins of a state, ascending by score, and what they were made with.

    ``pos`` and ``neg`` are int64 counts of rows (unweighted) or float64 sums
    of weights; ``low`` and ``high`` each bin's lowest and highest score;
    ``classes`` the labels seen when ``pos_label`` is None (to apply the
    default rule to the union of all states).
    """

    bits: int
    bins: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    low: np.ndarray
    high: np.ndarray
    max_bins: int
    pos_label: Any
    classes: tuple[Any, ...]

    @property
    def weighted(self) -> bool:
        return self.pos.dtype.kind == "f"


def block_state(
    label: Any,
    score: Any,
    weight: Any = None,
    *,
    max_bins: int,
    pos_label: Any = None,
    names: tuple[str, ...] = ("y_true", "y_score", "sample_weight"),
    compiled: bool = True,
) -> StateBins:
    """Validate one block (scikit-learn's messages) and reduce it to its state, without a sort.

    Rows of weight zero are left out, as they count for nothing.  The bins
    are made by :func:`binned_rows`: compiled (numba's parts, ``compiled`` and
    numba installed) or by NumPy, the same bits either way.

    Examples
    --------
    >>> s = block_state([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4], max_bins=8)
    >>> s.bits, s.pos.tolist(), s.neg.tolist(), s.low.tolist()
    (64, [0, 1, 1], [1, 1, 0], [0.1, 0.4, 0.8])
    >>> block_state([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4], max_bins=2).bins.size
    2
    """
    labels, scores = to_numpy(label), as_score_array(score)
    lengths = RowCounts.of(names, labels, scores, weight)
    if not lengths.aligned:
        counts = ", ".join(f"{n}: {c}" for n, c in zip(lengths.names, lengths.counts, strict=True))
        raise ValueError(f"Found input variables with inconsistent numbers of samples: {counts}")
    classes = distinct_labels(labels)
    if pos_label is None:
        check_default_target(classes)
        positive = labels == 1
    else:
        positive = labels == pos_label
    weights = None if weight is None else as_weight_array(weight)
    if weights is not None:
        kept = weights != 0
        labels, scores, positive, weights = (
            labels[kept],
            scores[kept],
            positive[kept],
            weights[kept].astype(np.float64),
        )
    bits, bins, pos, neg, low, high = binned_rows(
        scores, positive, weights, max_bins=max_bins, loops=_loops(compiled, len(scores))
    )
    return StateBins(
        bits=bits,
        bins=bins,
        pos=pos,
        neg=neg,
        low=low,
        high=high,
        max_bins=max_bins,
        pos_label=pos_label,
        classes=classes if pos_label is None else (),
    )


def check_default_target(classes: Sequence[Any]) -> None:
    """Without ``pos_label``, labels must be {0, 1} or {-1, 1} (scikit-learn's message)."""
    values: set[Any] = set()
    for c in classes:
        if isinstance(c, (bool, np.bool_)):
            values.add(int(c))
        elif isinstance(c, (int, float, np.integer, np.floating)):
            values.add(c)
        else:
            values.add(("other", c))
    if not any(values <= target for target in _DEFAULT_TARGETS):
        shown = "{" + ", ".join(str(c) for c in classes) + "}"
        raise ValueError(
            f"y_true takes value in {shown} and pos_label is not specified: either make "
            "y_true take value in {0, 1} or {-1, 1} or pass pos_label explicitly."
        )


def merge_states(states: Sequence[StateBins], loops: Any = True) -> StateBins:
    """The state of the concatenated rows of ``states`` (any order of merges gives the same).

    Unweighted, the compiled loops join the bins when they are ready
    (``loops``: True, or the module; None: NumPy): integer counts, so the
    same state either way.

    Examples
    --------
    >>> a = block_state([0, 1], [0.25, 0.5], max_bins=4)
    >>> b = block_state([1, 1], [0.5, 0.75], max_bins=4)
    >>> m = merge_states([a, b])
    >>> m.pos.tolist(), m.neg.tolist(), merge_states([b, a]).pos.tolist()
    ([0, 2, 1], [1, 0, 0], [0, 2, 1])
    """
    states = list(states)
    if not states:
        raise ValueError("no state to merge")
    first = states[0]
    for other in states[1:]:
        if other.max_bins != first.max_bins:
            raise ValueError(
                f"states of different resolutions do not merge: {first.max_bins} and "
                f"{other.max_bins} bins; make every state with the same resolution"
            )
        if not _same_label(other.pos_label, first.pos_label):
            raise ValueError(
                f"states of different positive classes do not merge: pos_label="
                f"{first.pos_label!r} and {other.pos_label!r}"
            )
    classes = tuple(sorted({c for s in states for c in s.classes}, key=repr))
    if first.pos_label is None:
        check_default_target(classes)
    weighted = any(s.weighted for s in states)
    bits = min(s.bits for s in states)
    size = sum(len(s.bins) for s in states)
    few = loops is not True or len(states) <= MERGED_RUNS  # (else: a head merge costs more)
    if loops is True:
        loops = None if weighted else _loops(True, size)
    if loops is not None and not weighted and size:
        starts = np.cumsum([0] + [len(s.bins) for s in states])
        drops = np.array([s.bits - bits for s in states], np.int64)
        found = loops.dense_merged(_joined(states), starts, drops, bits, first.max_bins)
        if found is None and few:
            parts = [_coarsened(s, bits) for s in states]
            starts = np.cumsum([0] + [len(p.bins) for p in parts])
            found = loops.merged_bins(*_joined(parts), starts, bits, first.max_bins)
        if found is not None:
            bits, *columns = found
            return replace(
                first, bits=bits, classes=classes, **dict(zip(_COLUMNS, columns, strict=True))
            )
    parts = [_coarsened(s, bits) for s in states]
    dtype = np.float64 if weighted else np.int64
    bins = np.concatenate([p.bins for p in parts])
    order = np.argsort(bins, kind="stable")
    merged = _regrouped(
        bins[order],
        np.concatenate([p.pos.astype(dtype) for p in parts])[order],
        np.concatenate([p.neg.astype(dtype) for p in parts])[order],
        np.concatenate([p.low for p in parts])[order],
        np.concatenate([p.high for p in parts])[order],
    )
    state = replace(first, bits=bits, classes=classes, **merged)
    if len(state.bins) > state.max_bins:
        state = _coarsened(state, fitting_bits(state.bins, bits, state.max_bins))
    return state


def scaled(state: StateBins, factor: float) -> StateBins:
    """Every count times ``factor`` (a decayed window): weight sums, float64."""
    return replace(
        state,
        pos=state.pos.astype(np.float64) * factor,
        neg=state.neg.astype(np.float64) * factor,
    )


def fitting_bits(sorted_keys: np.ndarray, bits: int, max_bins: int) -> int:
    """The most bits (at most ``bits``) whose prefixes of ``sorted_keys`` are ``<= max_bins``.

    ``sorted_keys`` hold ``bits``-bit prefixes, ascending.  Two neighbours
    part at ``level`` bits when their xor is longer than ``bits - level``
    bits, so one histogram of those lengths counts the prefixes at every
    level (the compiled loop counts them so too).

    Examples
    --------
    >>> keys = np.array([0b0001, 0b0011, 0b1000, 0b1001], np.uint64)
    >>> [fitting_bits(keys, 4, m) for m in (1, 2, 3, 4)]
    [0, 2, 3, 4]
    """
    if len(sorted_keys) <= max_bins:
        return bits
    lengths = np.bincount(_bit_lengths(sorted_keys[1:] ^ sorted_keys[:-1]), minlength=bits + 2)
    longer = np.cumsum(lengths[::-1])[::-1]  # longer[j]: neighbours whose xor is >= j bits long
    for level in range(bits - 1, -1, -1):  # the prefixes at ``level`` bits
        if 1 + longer[bits - level + 1] <= max_bins:
            return level
    return 0


def shifted(keys: np.ndarray, drop: int) -> np.ndarray:
    """``keys`` without their ``drop`` low bits (all 64: every key is 0)."""
    if drop >= KEY_BITS:
        return np.zeros_like(keys)
    return keys >> np.uint64(drop)


def group_starts(sorted_values: np.ndarray) -> np.ndarray:
    """Where each run of equal values begins."""
    if len(sorted_values) == 0:
        return np.zeros(0, np.intp)
    return np.concatenate([[0], np.flatnonzero(sorted_values[1:] != sorted_values[:-1]) + 1])


def binned_rows(
    scores: np.ndarray,
    positive: np.ndarray,
    weights: np.ndarray | None,
    *,
    max_bins: int,
    loops: Any = None,
    part_rows: int | None = None,
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(bits, bins, pos, neg, low, high)`` of the rows: the most bits that fit ``max_bins``.

    ``loops``: the compiled module (:mod:`._numba`: parts of rows, a small
    table of bins each, no sort of rows); None: NumPy (one sort of the keys,
    :func:`numpy.unique`).  The same bins, counts and scores either
    way; weights are added per bin in row order by both (``np.bincount``'s
    order), so weighted sums agree bit for bit too.  ``part_rows``: the
    compiled path's rows a part (default: a 256th of the rows, at least
    :data:`PART_ROWS`; the tests make it small to make many parts).

    Examples
    --------
    >>> bits, bins, pos, neg, low, high = binned_rows(
    ...     np.array([0.5, 0.25, 0.5, 2.0]), np.array([True, False, False, True]), None,
    ...     max_bins=2)
    >>> bits, pos.tolist(), neg.tolist(), low.tolist(), high.tolist()
    (10, [1, 1], [2, 0], [0.25, 2.0], [0.5, 2.0])
    """  # fmt: skip
    positive = np.ascontiguousarray(positive, dtype=np.bool_)
    if loops is not None and len(scores) < PACKED_ROWS:
        return _hashed(loops, scores, positive, weights, max_bins, part_rows)
    keys = score_keys(scores)
    distinct, inverse = np.unique(keys, return_inverse=True)
    bits = fitting_bits(distinct, KEY_BITS, max_bins)
    prefixes = shifted(distinct, KEY_BITS - bits)
    starts = group_starts(prefixes)
    size = len(starts)
    first = np.zeros(len(distinct), np.intp)
    first[starts[1:]] = 1
    row_bins = np.cumsum(first)[inverse.reshape(-1)]  # each row's bin
    if weights is None:
        pos = np.bincount(row_bins[positive], minlength=size).astype(np.int64)
        neg = np.bincount(row_bins[~positive], minlength=size).astype(np.int64)
    else:
        # (float64 also where one class has no row: bincount of nothing gives int64)
        pos = np.bincount(row_bins[positive], weights[positive], size).astype(np.float64)
        neg = np.bincount(row_bins[~positive], weights[~positive], size).astype(np.float64)
    ends = np.append(starts[1:], len(distinct)) - 1 if size else starts
    low, high = key_scores(distinct[starts]), key_scores(distinct[ends])
    return bits, prefixes[starts], pos, neg, low, high


def _hashed(
    loops: Any,
    scores: np.ndarray,
    positive: np.ndarray,
    weights: np.ndarray | None,
    max_bins: int,
    part_rows: int | None,
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`binned_rows` by the compiled loops (:mod:`._numba`).

    A block of at most ``max_bins`` rows keeps every key (its bits: 64): a
    small table counts them if they are at most a quarter of its rows, else
    a sort of the keys does (:mod:`._sorted`: NumPy's SIMD sort, then one
    merge of runs), measured several times faster there than the parts or
    the NumPy definition, and no bitmap to clear.  A larger block: no sort
    of rows.  A bitmap of fine prefixes gives the bits on continuous scores; where
    their prefixes are few, one dense table counts the rows; else the rows
    are scattered into parts (contiguous ranges of keys, ascending), each
    part's bins counted in a small table and appended to the sorted bins.
    Scores of few distinct values are counted in one table of whole keys.
    Otherwise the parts start
    with whole keys and drop low bits, as bins read exceed ``1.25 *
    max_bins``, to the most at which they make at most ``max_bins`` (a sort
    of bins, not rows); a level is dropped only when rows of the block make
    too many bins there, so the bits are the most that fit the whole block:
    the NumPy path's.
    """
    if len(scores) == 0:
        empty = np.zeros(0, np.float64 if weights is not None else np.int64)
        return KEY_BITS, np.zeros(0, np.uint64), empty, empty.copy(), np.zeros(0), np.zeros(0)
    bits = np.ascontiguousarray(scores, dtype=np.float64).view(np.uint64)  # the loops key them
    flags = positive.view(np.uint8)
    if weights is not None:
        weights = np.ascontiguousarray(weights, dtype=np.float64)
    limit = min(max_bins + max_bins // 4, len(scores))
    part_rows = part_rows or max(-(-len(scores) // PARTS), PART_ROWS)
    given = np.zeros(0, np.float64) if weights is None else weights
    if len(scores) <= max_bins:  # every key a bin: one small table if few keys, else a sort
        few = loops.few_keys(bits, flags, given, min(max(len(scores) // 4, 64), max_bins))
        if few is None:
            return KEY_BITS, *loops.sorted_bins(bits, flags, weights)
        shift, (found, sums) = 0, few
    else:
        shift, found, sums = loops.block_bins(bits, flags, given, max_bins, limit, part_rows)
    bins, pos, neg, low, high = loops.columns(found)
    low, high = low.view(np.float64), high.view(np.float64)
    if weights is not None:
        pos, neg = sums[:, 0].copy(), sums[:, 1].copy()
    return KEY_BITS - shift, bins, pos, neg, low, high


def key_scores(keys: np.ndarray) -> np.ndarray:
    """The scores of keys (:func:`score_keys` inverted; ``0.0`` for ``-0.0``'s key)."""
    bits = np.where((keys & _SIGN) != 0, keys ^ _SIGN, ~keys)
    return bits.view(np.float64)


def _bit_lengths(values: np.ndarray) -> np.ndarray:
    """Each uint64's bit length (0 for 0), exactly: six halving steps, no float rounding."""
    values = values.copy()
    lengths = np.zeros(len(values), np.intp)
    for step in (32, 16, 8, 4, 2, 1):
        long = (values >> np.uint64(step)) != 0
        lengths[long] += step
        values[long] >>= np.uint64(step)
    return lengths + (values != 0)


def _loops(compiled: bool, rows: int) -> Any:
    """The compiled loops if ``compiled`` and ready (:func:`~..sort.compiled.usable`), or None."""
    return usable(compiled, "states", np.zeros(0, np.uint64), work=rows)


def _joined(states: Sequence[StateBins]) -> list[np.ndarray]:
    """The states' columns end to end (:data:`_COLUMNS`), for the compiled merges."""
    return [np.concatenate([getattr(s, name) for s in states]) for name in _COLUMNS]


def _coarsened(state: StateBins, bits: int) -> StateBins:
    """``state`` with ``bits`` leading key bits (its own or fewer)."""
    if bits == state.bits:
        return state
    bins = shifted(state.bins, state.bits - bits)
    merged = _regrouped(bins, state.pos, state.neg, state.low, state.high)
    return replace(state, bits=bits, **merged)


def _regrouped(bins, pos, neg, low, high) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """Equal sorted bins joined: counts added, the lowest low and the highest high kept."""
    starts = group_starts(bins)
    if len(starts) == len(bins):
        return {"bins": bins, "pos": pos, "neg": neg, "low": low, "high": high}
    return {
        "bins": bins[starts],
        "pos": np.add.reduceat(pos, starts),
        "neg": np.add.reduceat(neg, starts),
        "low": np.minimum.reduceat(low, starts),
        "high": np.maximum.reduceat(high, starts),
    }


def _same_label(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return bool(a == b)
