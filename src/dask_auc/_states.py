"""Certified AUC in one pass: :func:`roc_state`, the :class:`ROCState` it makes, and its bounds.

A state is a small summary of a binary input -- per bin of scores, the rows
(or weight) of each class and the bin's lowest and highest score -- made in
one pass over the partitions, with no sort and no exchange of rows.  States
of partitions, workers and days merge in any order into the state of all
their rows (bins are prefixes of an order-preserving key of the score,
:mod:`dask_auc._kernels.states.bins`), save to a small file, and scale (a
decayed window).  From a state, the AUC is certified: a lower and an upper
bound that contain the exact AUC, equal -- and exact -- where every bin
holds one distinct score (:mod:`dask_auc._kernels.states.bounds`).
:func:`roc_auc_bounds` reads the rows of the widest bins again when the
bounds are wider than asked.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ._engine import (
    LazyScore,
    bucket_bytes,
    gather,
    lazy_of,
    map_blocks,
    prepared_blocks,
    split_every_default,
)
from ._kernels.binary.partial import mcclish
from ._kernels.core.validation import defined_or_warn
from ._kernels.states.bins import StateBins, block_state, merge_states, scaled
from ._kernels.states.bounds import (
    PairCounts,
    auc_bounds,
    chosen_bins,
    curve_points,
    pair_counts,
    rounded,
    selected_rows,
    within_bin_pairs,
)
from ._kernels.states.queries import corners, ks_gaps, partial_area
from ._params import AtLeast, Boolean, Interval, Label, check_params

__all__ = ["AUCBounds", "KSBounds", "ROCState", "roc_auc_bounds", "roc_state"]

#: a state of at most 2**18 bins is at most 10 MiB; on continuous scores it certifies
#: the AUC to a few 1e-6 (benchmarks/bench_states.py)
DEFAULT_RESOLUTION = 1 << 18
_FORMAT, _VERSION = "dask-auc ROCState", 1
#: the non-exact partial-AUC bounds are widened by this much beyond the exact rationals: it
#: covers the rounding of McClish's formula in floats (at most ~6 * 2**-53 for a partial area
#: in [0, max_fpr]), so that they contain roc_auc_score(max_fpr=)'s float too
_MCCLISH_MARGIN = Fraction(1, 1 << 50)
_PARAMETERS = {
    "max_fpr": Interval(0, 1, closed="right", none=True),
    "pos_label": Label(),
    "resolution": AtLeast(1, none=False),
    "compute": Boolean(),
    "max_width": Interval(0, 1, closed="both"),
    "split_every": AtLeast(2),
}


class _Incompatible(ValueError):
    """A state file of another format or version."""


class AUCBounds(NamedTuple):
    """The AUC certified by a state: ``lower <= exact AUC <= upper``.

    ``estimate`` counts the pairs inside each bin of several scores as half
    ordered (the trapezoid); ``exact`` is True when no bin holds several
    scores, and then ``lower == estimate == upper`` is the exact AUC.
    """

    lower: float
    estimate: float
    upper: float
    exact: bool

    @property
    def width(self) -> float:
        """``upper - lower``: how far the exact AUC can be from either bound."""
        return self.upper - self.lower


class KSBounds(NamedTuple):
    """The Kolmogorov-Smirnov statistic certified by a state: ``lower <= exact KS <= upper``.

    ``lower`` is the largest ``|tpr - fpr|`` at the bins' corners (exact
    points of the curve), reached at ``threshold`` (a bin's lowest score;
    the highest of equal gaps); ``exact`` is True when no bin can hide a
    larger gap, and then ``lower == upper`` is :func:`dask_auc.ks_statistic`'s
    statistic.
    """

    lower: float
    upper: float
    exact: bool
    threshold: Any

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower


class ROCState:
    """A mergeable summary of a binary input from which the AUC is certified.

    Make it with :func:`roc_state`; ``a + b`` and :meth:`merge` join states of
    other partitions or days, :meth:`save` and :meth:`load` store it,
    :meth:`scale` weighs it (a decayed window).
    """

    def __init__(self, bins: StateBins):
        self._bins = bins

    @classmethod
    def merge(cls, states: list[ROCState]) -> ROCState:
        """The state of all the rows of ``states`` (any order gives the same; exact unweighted)."""
        return cls(merge_states([s._bins for s in states]))

    def __add__(self, other: ROCState) -> ROCState:
        if not isinstance(other, ROCState):
            return NotImplemented
        return ROCState.merge([self, other])

    def scale(self, factor: float) -> ROCState:
        """Every row's weight times ``factor`` (>= 0): a day's weight in a decayed window."""
        if not (isinstance(factor, (int, float, np.integer, np.floating)) and factor >= 0):
            raise ValueError(f"scale needs a non-negative number, got {factor!r}")
        return ROCState(scaled(self._bins, float(factor)))

    def auc(self, max_fpr: float | None = None) -> AUCBounds:
        """The certified AUC: ``AUCBounds(lower, estimate, upper, exact)``.

        With ``max_fpr``, scikit-learn's McClish-standardised partial AUC over
        ``0 <= fpr <= max_fpr`` (as :func:`dask_auc.roc_auc_score`'s
        ``max_fpr``): only the bins left of ``max_fpr`` -- and the one it cuts
        -- count, and ``exact`` when none of them holds several scores (then
        ``roc_auc_score``'s value, bit for bit unweighted).  NaNs with an
        :class:`~dask_auc.UndefinedMetricWarning` when a class is missing.

        Examples
        --------
        >>> import numpy as np, dask_auc
        >>> y, s = np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])
        >>> state = dask_auc.roc_state(y, s)
        >>> state.auc()
        AUCBounds(lower=0.75, estimate=0.75, upper=0.75, exact=True)
        >>> state.auc(max_fpr=0.5).lower == dask_auc.roc_auc_score(y, s, max_fpr=0.5)
        True
        """
        max_fpr = _checked("ROCState.auc", max_fpr=max_fpr)["max_fpr"]
        if max_fpr is None or max_fpr == 1.0:
            return self._bounds(pair_counts(self._bins))
        if not self._defined():
            nan = float("nan")
            return AUCBounds(nan, nan, nan, False)
        area = partial_area(corners(self._bins), max_fpr)
        if area.lower == area.upper:  # roc_auc_score's formula on the exact area
            value = mcclish(area.lower, max_fpr)
            return AUCBounds(value, value, value, True)
        lower = rounded(_standardised(area.lower, max_fpr) - _MCCLISH_MARGIN, down=True)
        upper = rounded(_standardised(area.upper, max_fpr) + _MCCLISH_MARGIN, down=False)
        estimate = min(max(mcclish(area.estimate, max_fpr), lower), upper)
        return AUCBounds(lower, estimate, upper, False)

    def ks(self) -> KSBounds:
        """The certified Kolmogorov-Smirnov statistic: ``KSBounds(lower, upper, exact, threshold)``.

        The largest ``|tpr - fpr|`` over the curve's points (as
        :func:`dask_auc.ks_statistic`): at least the largest at the bins'
        corners, at most what a bin of several scores could hide.  NaNs (and
        threshold None) with an :class:`~dask_auc.UndefinedMetricWarning` when
        a class is missing.

        Examples
        --------
        >>> import numpy as np, dask_auc
        >>> y, s = np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])
        >>> dask_auc.roc_state(y, s).ks()
        KSBounds(lower=0.5, upper=0.5, exact=True, threshold=0.8)
        >>> dask_auc.ks_statistic(y, s)
        KSStatistic(statistic=0.5, threshold=0.8)
        """
        if not self._defined():
            nan = float("nan")
            return KSBounds(nan, nan, False, None)
        c = corners(self._bins)
        gaps = ks_gaps(c)
        whole = c.total_pos * c.total_neg
        if gaps.lower == gaps.upper:
            value = float(Fraction(gaps.lower, whole))
            return KSBounds(value, value, True, gaps.threshold)
        lower = rounded(Fraction(gaps.lower, whole), down=True)
        upper = rounded(Fraction(gaps.upper, whole), down=False)
        return KSBounds(lower, upper, False, gaps.threshold)

    def roc_curve(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``fpr, tpr, thresholds`` at the bins' lowest scores: exact points of the ROC curve.

        Where every bin holds one score, these are the curve's points
        (:func:`dask_auc.roc_curve` with ``drop_intermediate=False``); else a
        subset of them.
        """
        return curve_points(self._bins)

    @property
    def n_bins(self) -> int:
        """The occupied bins (at most the ``resolution`` it was made with)."""
        return len(self._bins.bins)

    @property
    def nbytes(self) -> int:
        """Bytes of its arrays."""
        b = self._bins
        return sum(a.nbytes for a in (b.bins, b.pos, b.neg, b.low, b.high))

    def save(self, path: str | Path) -> None:
        """Write the state to ``path`` (NumPy's ``.npz``, versioned, no pickle)."""
        b = self._bins
        meta = {
            "format": _FORMAT,
            "version": _VERSION,
            "bits": b.bits,
            "max_bins": b.max_bins,
            "pos_label": _plain(b.pos_label),
            "classes": [_plain(c) for c in b.classes],
        }
        with open(path, "wb") as file:  # np.savez would append ".npz" to a bare name
            np.savez(
                file, meta=np.array(json.dumps(meta)), bins=b.bins, pos=b.pos, neg=b.neg,
                low=b.low, high=b.high,
            )  # fmt: skip

    @classmethod
    def load(cls, path: str | Path) -> ROCState:
        """A state written by :meth:`save`; ``ValueError`` for another file or version."""
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                if meta.get("format") != _FORMAT or meta.get("version") != _VERSION:
                    raise _Incompatible(
                        f"{path} holds {meta.get('format')!r} version {meta.get('version')!r}; "
                        f"this dask-auc reads {_FORMAT!r} version {_VERSION}"
                    )
                arrays = {k: data[k] for k in ("bins", "pos", "neg", "low", "high")}
        except _Incompatible:
            raise
        except (OSError, KeyError, ValueError) as error:
            raise ValueError(f"{path} is not a state written by ROCState.save: {error}") from None
        bins = StateBins(
            bits=int(meta["bits"]),
            max_bins=int(meta["max_bins"]),
            pos_label=meta["pos_label"],
            classes=tuple(meta["classes"]),
            **arrays,
        )
        return cls(bins)

    def __repr__(self) -> str:
        b = self._bins
        kind = "weighted" if b.weighted else "rows"
        return (
            f"ROCState(bins={self.n_bins}, positives={b.pos.sum()}, negatives={b.neg.sum()}, "
            f"{kind}, resolution={b.max_bins})"
        )

    def _bounds(self, counts: PairCounts, resolved: Any = 0, unresolved: Any = None) -> AUCBounds:
        """The bounds from ``counts`` (the state's), with a refinement's exact pairs if any."""
        if not self._defined():
            nan = float("nan")
            return AUCBounds(nan, nan, nan, False)
        return AUCBounds(*auc_bounds(counts, resolved, unresolved))

    def _defined(self) -> bool:
        """Both classes have rows (or weight); else warn (the curve is undefined)."""
        b = self._bins
        n_classes = 2 if b.pos_label is not None else len(b.classes)
        return defined_or_warn(n_classes, float(b.pos.sum()), float(b.neg.sum()))


def roc_state(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    resolution: int = DEFAULT_RESOLUTION,
    split_every: int | None = None,
    compute: bool = True,
) -> ROCState | LazyScore:
    """The :class:`ROCState` of a binary input, in one pass: no sort, no exchange of rows.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        Binary labels, {0, 1} or {-1, 1} unless ``pos_label`` is given.
    y_score : same kinds as ``y_true``
        Scores; higher means more positive.
    pos_label : int, float, bool or str, optional
        The positive class (every other label is negative); default 1.
    sample_weight : same kinds as ``y_true``, optional
        Non-negative row weights; rows of weight zero are left out.
    resolution : int, default 2**18
        The most bins the state keeps (about 40 bytes each).  A state is
        exact -- one bin per distinct score -- while the data hold at most
        this many distinct scores; else bins are the coarsest prefixes of
        the scores' keys that fit.
    split_every : int, optional
        Fan-in of the tree that merges the blocks' states; by default
        ``dask-auc.split-every`` (8), fewer where that many states of
        ``resolution`` bins would pass ``dask-auc.bucket-bytes`` (2 from 2**21
        bins).
    compute : bool, default True
        If False, return a :class:`~dask_auc.LazyScore` of the state.

    Returns
    -------
    ROCState or LazyScore

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y, s = np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8])
    >>> day1, day2 = dask_auc.roc_state(y, s), dask_auc.roc_state(y[::-1], s)
    >>> (day1 + day2).auc()
    AUCBounds(lower=0.5, estimate=0.5, upper=0.5, exact=True)
    """
    checked = _checked(
        "roc_state", pos_label=pos_label, resolution=resolution, compute=compute,
        split_every=split_every,
    )  # fmt: skip
    lazy = lazy_of([_state_key(y_true, y_score, sample_weight, checked)], ROCState, "roc_state")
    return lazy.compute() if checked["compute"] else lazy


def roc_auc_bounds(
    y_true: Any,
    y_score: Any,
    *,
    max_width: float = 1e-4,
    pos_label: Any = None,
    sample_weight: Any = None,
    resolution: int = DEFAULT_RESOLUTION,
    split_every: int | None = None,
) -> AUCBounds:
    """The AUC certified to ``max_width``: one pass, and a second over the widest bins' rows.

    The one pass makes the :class:`ROCState`; while its bounds are wider than
    ``max_width``, a second pass reads the input again and counts exactly the
    pairs inside the bins that hold most of the width (only their rows are
    kept), so that the bounds come within ``max_width``.  ``max_width=0``
    gives the exact AUC (unweighted, equal to :func:`dask_auc.roc_auc_score`
    bit for bit).  Each pass is one compute: the input is read twice when the
    first is not enough, never held in memory between them.

    Parameters
    ----------
    y_true, y_score, pos_label, sample_weight, resolution, split_every
        As in :func:`roc_state`.
    max_width : float in [0, 1], default 1e-4
        The widest ``upper - lower`` to return.

    Returns
    -------
    AUCBounds

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y = np.arange(1000) % 3 == 0  # labels, and continuous scores that favour them
    >>> s = np.sin(np.arange(1000)) + y
    >>> coarse = dask_auc.roc_auc_bounds(y, s, resolution=8, max_width=1)
    >>> exact = dask_auc.roc_auc_bounds(y, s, resolution=8, max_width=0)
    >>> coarse.lower <= exact.lower == exact.upper <= coarse.upper, exact.exact
    (True, True)
    >>> exact.lower == dask_auc.roc_auc_score(y, s)
    True
    """
    checked = _checked(
        "roc_auc_bounds", max_width=max_width, pos_label=pos_label, resolution=resolution,
        split_every=split_every,
    )  # fmt: skip
    state = ROCState(
        lazy_of([_state_key(y_true, y_score, sample_weight, checked)], _bins_of, "roc_state")
        .compute()
    )  # fmt: skip
    bins = state._bins
    counts = pair_counts(bins)
    if not counts.pairs or not counts.unknown.any():
        return state._bounds(counts)
    chosen = chosen_bins(counts, bins, checked["max_width"])
    if len(chosen) == 0:
        return state._bounds(counts)
    rows = prepared_blocks(y_true, y_score, sample_weight, prepare=_rows, names=_NAMES)
    select = partial(selected_rows, bins=chosen, bits=bins.bits, pos_label=bins.pos_label)
    parts = map_blocks(_selected, rows, select)
    resolved = gather(within_bin_pairs, parts, bins.bits, counts.exact).compute()
    unresolved = np.where(np.isin(bins.bins, chosen), 0, counts.unknown)
    return state._bounds(counts, resolved, unresolved)


_NAMES = ("y_true", "y_score", "sample_weight")


def _state_key(y_true: Any, y_score: Any, sample_weight: Any, checked: dict[str, Any]) -> Any:
    """The key of the merged state: one state per block, then a tree of merges."""
    prepare = partial(block_state, max_bins=checked["resolution"], pos_label=checked["pos_label"])
    level = list(prepared_blocks(y_true, y_score, sample_weight, prepare=prepare, names=_NAMES))
    fan_in = checked["split_every"] or _merge_fan_in(checked["resolution"])
    while True:
        runs = [level[i : i + fan_in] for i in range(0, max(len(level), 1), fan_in)]
        level = [gather(merge_states, run) for run in runs]
        if len(level) == 1:
            return level[0]


#: a state's bytes a bin: its key, its two class counts, its lowest and its highest score
_BIN_BYTES = 40


def _merge_fan_in(resolution: int) -> int:
    """The merge tree's default fan-in: ``dask-auc.split-every``, fewer for large states.

    A merge holds its states whole, up to ``resolution`` bins each: as many as
    fit the bucket budget (``dask-auc.bucket-bytes``), at least 2.  At 2**25
    bins on 1e9 rows of 16.4 million distinct scores, 8 at a time killed 6 GiB
    workers; 2 at a time did not.

    Examples
    --------
    >>> _merge_fan_in(2**18), _merge_fan_in(2**25)
    (8, 2)
    """
    fitting = bucket_bytes() // (_BIN_BYTES * resolution)
    return max(2, min(split_every_default(), fitting))


def _checked(name: str, **values: Any) -> dict[str, Any]:
    """``values`` checked against their constraints, in the order given; messages name ``name``."""
    return check_params(name, {k: _PARAMETERS[k] for k in values}, **values)


def _bins_of(bins: StateBins) -> StateBins:
    return bins


def _rows(label: Any, score: Any, weight: Any = None, *, names: Any = None) -> tuple:
    """A block's rows as they are: the second pass reads them again, already checked once."""
    return label, score, weight


def _selected(block: tuple, select: Any) -> tuple:
    return select(*block)


def _standardised(area: Fraction, max_fpr: float) -> Fraction:
    """McClish's standardisation (scikit-learn's ``max_fpr``), exactly: increasing in ``area``."""
    m = Fraction(max_fpr)
    least = m * m / 2
    return (1 + (area - least) / (m - least)) / 2


def _plain(value: Any) -> Any:
    """A label as JSON holds it (NumPy scalars as Python ones)."""
    return value.item() if isinstance(value, np.generic) else value
