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

KEY_BITS = 64
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
) -> StateBins:
    """Validate one block (scikit-learn's messages) and reduce it to its state.

    Rows of weight zero are left out, as they count for nothing.

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
            weights[kept],
        )
    keys = score_keys(scores)
    order = np.argsort(keys, kind="stable")
    keys, scores, positive = keys[order], scores[order].astype(np.float64), positive[order]
    bits = fitting_bits(keys, KEY_BITS, max_bins)
    bins = shifted(keys, KEY_BITS - bits)
    starts = group_starts(bins)
    if weights is None:
        rows = np.diff(np.append(starts, len(bins))).astype(np.int64)
        pos = np.add.reduceat(positive.astype(np.int64), starts) if len(bins) else rows
        neg = rows - pos
    else:
        w = weights[order].astype(np.float64)
        pos = _sums(np.where(positive, w, 0.0), starts)
        neg = _sums(np.where(positive, 0.0, w), starts)
    ends = np.append(starts[1:], len(bins)) - 1 if len(bins) else starts
    return StateBins(
        bits=bits,
        bins=bins[starts],
        pos=pos,
        neg=neg,
        low=scores[starts],
        high=scores[ends],
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


def merge_states(states: Sequence[StateBins]) -> StateBins:
    """The state of the concatenated rows of ``states`` (any order of merges gives the same).

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
    """The most bits (at most ``bits``) whose prefixes of ``sorted_keys`` are ``<= max_bins``."""
    low, high = 0, bits
    while low < high:
        middle = (low + high + 1) // 2
        if _distinct(shifted(sorted_keys, bits - middle)) <= max_bins:
            low = middle
        else:
            high = middle - 1
    return low


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


def _distinct(sorted_values: np.ndarray) -> int:
    return len(group_starts(sorted_values))


def _sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.add.reduceat(values, starts) if len(values) else np.zeros(0, values.dtype)


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
