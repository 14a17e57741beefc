"""The binary queries' compiled loops (the optional ``numba`` extra).

Loaded only through :mod:`dask_auc._kernels.sort.compiled`, which falls back to
NumPy when numba is missing:

* :func:`merged_pair_counts`: the pair counts of two sorted arrays by one
  merge, instead of two binary searches per positive;
* :func:`merged_points`: a bucket's own curve points by the same merge;
* :func:`bucket_pav`, :func:`distinct_scores`, :func:`distinct_totals`,
  :func:`pooled_rounds`: the CORP
  reliability diagram's loops, in :mod:`._pav_numba` and taken from there
  (:mod:`.reliability_compiled` holds their door).

``nogil``, so that the threaded scheduler runs them on all cores; exact
integers, the NumPy path's numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from ..sort._numba import ranks_from

# the reliability loops, offered with these (the door takes them from this module)
from ._pav_numba import (  # noqa: F401
    bucket_pav,
    distinct_scores,
    distinct_totals,
    next_run,
    pooled_rounds,
)

#: nogil: the threaded scheduler runs the loops on all cores at once
_compile = njit(nogil=True, cache=True, boundscheck=False)


@_compile
def merged_pair_counts(pos, neg):  # pragma: no cover - compiled
    """(pairs pos > neg, pairs pos == neg) of two ascending arrays, by one merge.

    The caller makes sure ``len(pos) * len(neg)`` fits in int64.
    """
    below = 0  # negatives strictly below the current positive
    through = 0  # negatives at or below it
    strict = 0
    tied = 0
    for k in range(len(pos)):
        below, through = ranks_from(neg, below, through, pos[k])
        strict += below
        tied += through - below
    return strict, tied


@_compile
def merged_points(pos, neg, values, below_neg, below_pos):  # pragma: no cover - compiled
    """The distinct scores of two ascending arrays, ascending, and each array's rows below each.

    Writes them to the first ``m`` entries of the outputs and returns ``m``.
    Of equal scores (``-0.0`` and ``0.0``) the value written is the first
    of ``pos`` holding it, else the first of ``neg``: the first in a stable
    sort of ``pos`` then ``neg``.
    """
    n_pos, n_neg = len(pos), len(neg)
    i = 0
    j = 0
    m = 0
    while i < n_pos or j < n_neg:
        below_neg[m] = j
        below_pos[m] = i
        values[m], i, j = next_run(pos, neg, i, j)
        m += 1
    return m


def warm_up(loaded: Callable[[Any], None]) -> None:
    """Run :func:`merged_points` and the reliability loops once, through their doors.

    :mod:`~dask_auc._kernels.sort.compiled` calls this in the background compile
    (:func:`merged_pair_counts` is the sort's, warmed with its loops); ``loaded`` is
    given the first loop, to revise the compile's estimate.
    """
    from .curve_points import merged_points as points_door
    from .reliability_compiled import warm_up as reliability_warm_up

    for dtype in (np.float64, np.int64):
        ascending = np.arange(300, dtype=dtype)
        points_door(ascending[::2].copy(), ascending[1::2].copy())
    loaded(merged_points)
    reliability_warm_up()
