"""Which of two exact compiled paths runs faster on this CPU: timed once a process.

Both choices give the same numbers; only the time differs, and it differs by
machine (vector width, caches), not by data.  :func:`calibrate` times each
pair once, in the background compile's thread
(:func:`~dask_auc._kernels.sort.loading.compile_now`), and sets the two
flags read by the sort's doors; tests set them with :func:`prefer_hash` and
:func:`prefer_counting`.

Nothing here imports dask.
"""

from __future__ import annotations

import functools
import threading
import timeit
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from .arrow_groups import arrow_group_totals

__all__ = ["calibrate", "counting_pays", "hash_pays", "prefer_counting", "prefer_hash"]

#: cleared when the compiled hash of tied scores lost to Arrow's group_by on this CPU: until
#: timed, the hash runs as soon as its loop is loaded (Arrow took 2-2.5x the hash's time, and
#: more than the sort's, on this project's machine; the hash lost by 15-20% on another)
hash_pays = threading.Event()
hash_pays.set()
#: cleared when counting rows a splitter at a time lost to a count per row on this CPU
counting_pays = threading.Event()
counting_pays.set()


def prefer_hash(preferred: bool | None = None) -> bool:
    """Whether the compiled hash aggregates tied rows here; ``preferred`` sets it (tests)."""
    if preferred is not None:
        (hash_pays.set if preferred else hash_pays.clear)()
    return hash_pays.is_set()


def prefer_counting(preferred: bool | None = None) -> bool:
    """Whether the split counts buckets a splitter at a time; ``preferred`` sets it (tests)."""
    if preferred is not None:
        (counting_pays.set if preferred else counting_pays.clear)()
    return counting_pays.is_set()


def calibrate(
    aggregate: Callable[..., Any], kernel: ModuleType | None, rows: int, repeats: int
) -> None:
    """Time the compiled hash of tied scores against Arrow's ``group_by`` on this CPU (and
    the split's two ways, :func:`_calibrate_split`); ``aggregate`` is the hash's door,
    ``kernel`` the sort's loops.

    Which is faster depends on the machine, not on the data's answer: 2.7x in favour of
    the hash on one AMD EPYC (with numba compiling for a generic CPU too), 15-20% slower
    than Arrow on another x86-64 machine (issue 20).  So each process measures both on 1e6
    tied rows once, in this background thread, and the hash's door declines (the caller
    takes Arrow's path) if the hash lost.  The same numbers either way.
    """
    rng = np.random.default_rng(0)
    scores = np.round(rng.random(rows), 3)
    positive = rng.random(rows) < 0.3
    # aggregated_rows' two paths (the sort of the distinct scores after either is the same work)
    paths: list[Callable[[], object]] = [
        functools.partial(arrow_group_totals, scores, None, positive),
        functools.partial(aggregate, scores, positive, rows),
    ]

    hash_pays.set()  # the door then runs the hash: time it, whatever was decided before
    prefer_hash(_fastest(paths[True], repeats) < _fastest(paths[False], repeats))
    if kernel is not None:
        _calibrate_split(kernel, rows // 4, repeats)


def _calibrate_split(kernel: ModuleType, rows: int, repeats: int) -> None:
    """Time the split's two ways of finding each row's bucket among 7 splitters (8 buckets).

    Counted a splitter at a time over runs of rows, the compares are vector
    instructions: with AVX-512 that took 3.3 ns a row against 5.9 for a count
    per row and its histogram; compiled for a generic x86-64 CPU
    (``NUMBA_CPU_NAME=generic``, SSE2) it took 7.2 against 4.4.  So each
    process times both once, in the background thread, and keeps the faster
    (:func:`prefer_counting`).  The same groups either way.
    """
    rng = np.random.default_rng(1)
    scores = rng.random(rows)
    codes = (rng.random(rows) < 0.3).astype(np.uint8)
    splitters = np.sort(rng.random(7))
    spread, groups = np.zeros(7, np.int64), np.empty(rows, np.uint8)

    split = functools.partial(kernel.group_of_rows, scores, codes, 2, splitters, spread, groups)
    counted = _fastest(functools.partial(split, kernel.COUNTED_SPLITTERS), repeats)
    prefer_counting(counted <= _fastest(functools.partial(split, -1), repeats))


def _fastest(call: Callable[[], object], repeats: int) -> float:
    """The best of ``repeats`` timings of one call (the least disturbed by other work)."""
    return min(timeit.repeat(call, number=1, repeat=repeats))
