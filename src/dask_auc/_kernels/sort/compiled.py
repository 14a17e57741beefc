"""The optional compiled kernels, behind one door: each returns ``None`` when it cannot run.

``pip install dask-auc[numba]`` installs numba; each stage's loops live beside
its kernels, in its ``_numba`` module (the sort's, the binary queries', the
groups', the replicates': :attr:`_Family.stages`), and each stage's entries to
them beside their callers, through :func:`usable` (the sort's own are here:
:func:`grouped_rows`, :func:`pair_counts`, :func:`aggregate`, :func:`ranks`,
:func:`partitioned`).  They are compiled in the background,
in two families (:class:`_Family`): the first task of a process that could use a
family's loops starts a thread that compiles (or loads from numba's disk
cache) them for float64 and int64 scores, and meanwhile tasks take their
NumPy path -- unless the compiled loops would save a task more time than the
compile has left (:func:`waits_for_compile`): such a task waits for the
compile, then runs compiled, so that a process's first call is slower than
neither the NumPy path nor waiting for the compiler
(``benchmarks/numba_cost.py``, ``benchmarks/bench_first_call.py``).  Other
score dtypes compile on their first use after that.  :func:`compile_now`
waits for both families (the tests do).

Without numba, or with the ``dask-auc.numba`` setting False (the engine
passes it to every task as ``compiled=False``), every caller takes its NumPy
path, which gives the same numbers: the compiled path changes the time, never
a result.  Nothing here imports dask.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from .preferences import calibrate, counting_pays, hash_pays

#: score dtypes the compiled loops are built for (others take the NumPy path)
_SCORE_KINDS = frozenset("fiu")
_UNSIGNED = {8: np.uint64, 4: np.uint32, 2: np.uint16, 1: np.uint8}


@functools.cache
def _available() -> bool:
    """Whether numba is installed here (found, not imported: importing it takes ~0.2 s)."""
    return importlib.util.find_spec("numba") is not None


@functools.cache
def _module(stage: str) -> ModuleType | None:
    """``dask_auc._kernels.<stage>._numba`` (imports numba), or None when it cannot be imported."""
    if not _available():
        return None
    try:
        return importlib.import_module(f"dask_auc._kernels.{stage}._numba")
    except ImportError:
        return None


#: the clock of the compile estimates (tests replace it)
_clock = time.monotonic
#: set once a family's first loop came from numba's disk cache: the next family's will too
_cache_warm = threading.Event()
_start = threading.Lock()
_warming = threading.local()


@dataclass(eq=False)
class _Family:
    """One background compilation of loops, and when it is due to finish.

    ``stages``: whose ``_numba`` modules it compiles; ``cold``, ``warm``: its compile's
    estimated seconds from an empty numba cache and from a filled one (compiled once per
    process: nothing to measure first); ``saved``: seconds its loops save a task per unit.
    """

    name: str
    stages: tuple[str, ...]
    compile_all: Callable[[_Family], None]
    cold: float
    warm: float
    saved: float
    ready: threading.Event = field(default_factory=threading.Event)
    #: its stages loaded so far, in order: a task takes a stage's loops as soon as they are
    #: in, not once the whole family (and the calibration after it) is
    stages_ready: set[str] = field(default_factory=set)
    thread: threading.Thread | None = None
    started: float = 0.0
    due: float = 0.0  # seconds after ``started``
    waited: int = 0  # tasks that waited for it
    holding: str | None = None  # the stage lock its compile thread holds (:func:`_compile`)

    def loaded(self, dispatcher: Any) -> None:
        """Revise the estimate once the first loop is in: numba's disk cache held it, or not."""
        stats = getattr(dispatcher, "stats", None)
        if stats is not None and sum(stats.cache_hits.values()):
            _cache_warm.set()
            self.due = min(self.due, _clock() - self.started + self.warm)
            if self.holding is not None:  # the cache is filled: others may load at once
                _release_compiler(self.holding)

    def serves(self, stage: str) -> bool:
        """Whether ``stage``'s loops are in: the whole family is, or that stage already."""
        return self.ready.is_set() or stage in self.stages_ready

    def importable(self) -> bool:
        """Whether its stages' loops import (numba found but broken: the NumPy paths only)."""
        return all(_module(stage) is not None for stage in self.stages)


def remaining_compile(elapsed: float, due: float) -> float:
    """Seconds a compile running for ``elapsed`` seconds has left, estimated due at ``due``.

    Once overdue, it is assumed to take as long again (no task waits for a hung one).
    """
    return due - elapsed if elapsed < due else elapsed


def waits_for_compile(work: float, remaining: float, *, saved_per_unit: float) -> bool:
    """Whether a task of ``work`` units waits ``remaining`` seconds for the compiled loops.

    It waits when they would save it more than that (``work * saved_per_unit``
    seconds, the NumPy path's time less the compiled loops'): so it is never
    slower than the better of the NumPy path and waiting, as far as the
    estimates hold.
    """
    return work > 0 and work * saved_per_unit > remaining


def loops(stage: str = "sort", work: float = 0) -> ModuleType | None:
    """A stage's compiled loops once compiled in this process, else None (take the NumPy path).

    The first call starts its family's compilation in a background thread.  ``work``:
    the task's rows times replicates; a task whose NumPy path would take longer than
    the compile has left waits for it (:func:`waits_for_compile`).
    """
    if not _available():
        return None
    family = _family_of(stage)
    if family.serves(stage) or getattr(_warming, "active", False):
        return _module(stage)
    with _start:
        if family.thread is None:
            family.started = _clock()
            family.due = family.warm if _cache_warm.is_set() else family.cold
            family.thread = threading.Thread(
                target=_run, args=(family,), name=family.name, daemon=True
            )
            family.thread.start()
    return _module(stage) if _awaited(family, work) else None


def loaded(stage: str) -> bool:
    """Whether a stage's loops are compiled in this process now (asking starts no compile)."""
    return _available() and _family_of(stage).serves(stage)


def _family_of(stage: str) -> _Family:
    return next((f for f in (_STATES, _REPLICATES) if stage in f.stages), _MAIN)


def _awaited(family: _Family, work: float) -> bool:
    """Wait for ``family`` while that pays (at most what its loops would save); whether ready."""
    saving = work * family.saved
    deadline = _clock() + saving
    counted = False
    while not family.ready.is_set():
        now = _clock()
        remaining = remaining_compile(now - family.started, family.due)
        if now >= deadline or not waits_for_compile(work, remaining, saved_per_unit=family.saved):
            return False
        if not counted:
            with _start:
                family.waited += 1
            counted = True
        family.ready.wait(max(1e-3, min(remaining, deadline - now)))
    return True


def compile_now(timeout: float | None = None) -> bool:
    """Compile every loop now (or wait for the background compilations); whether they are ready."""
    if not _available():
        return False
    families = (_MAIN, _STATES, _REPLICATES)
    for family in families:
        loops(family.stages[0])
    for family in families:
        if family.thread is not None:
            family.thread.join(timeout)
    return all(family.ready.is_set() and family.importable() for family in families)


def _run(family: _Family) -> None:
    """The compile thread: the family's loops run once on tiny inputs (numba compiles them).

    One process of the machine compiles a stage's loops at a time (:func:`_compile`):
    the others compile other stages meanwhile, or wait on their NumPy paths, then load
    the loops from numba's disk cache.
    """
    _warming.active = True
    try:
        if family.importable():
            family.compile_all(family)
    finally:
        _warming.active = False
        family.ready.set()


#: lock files held by this process's compile threads, by stage lock (:func:`_one_compiler`)
_compilers: dict[str, int] = {}


@contextlib.contextmanager
def _one_compiler(name: str, *, wait: bool = True) -> Any:
    """Compile a stage as the only process of this machine (and installation) compiling it.

    A fresh installation (or a new CPU setting) leaves numba's disk cache empty; the
    processes that start then -- a ``LocalCluster``'s workers, a test run's -- would
    each compile every loop (~30 s of CPU a process for the sort's family).  Behind a
    lock file, the first compiles and writes the cache, and each of the others then
    finds it there (~3 s).  A process whose first loop came from the cache lets the
    lock go at once (:meth:`_Family.loaded`): loading is not serialized.  The operating
    system releases the lock of a process that dies.  Where locking is unavailable (no
    ``fcntl``, an unwritable temporary directory), each process compiles on its own.
    Yields whether this process holds the lock: with ``wait=False``, False at once
    when another process holds it.
    """
    try:
        import fcntl
    except ImportError:  # Windows: no lock, each process compiles
        yield True
        return
    # one lock per installation (its path) and name: other checkouts do not wait
    here = hashlib.sha256(os.path.dirname(os.path.abspath(__file__)).encode()).hexdigest()
    path = os.path.join(tempfile.gettempdir(), f"{name}-{here[:16]}.lock")
    try:
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        yield True
        return
    _compilers[name] = handle
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:  # with wait=False: another process compiles it
            yield False
            return
        yield True
    finally:
        _release_compiler(name)


def _release_compiler(name: str) -> None:
    """Let another process compile (or load) the family: close the lock file, if held."""
    handle = _compilers.pop(name, None)
    if handle is not None:
        os.close(handle)  # releases the lock


def _compile(family: _Family) -> None:
    """Run every loop of the family's stages once on tiny inputs: numba compiles (or loads) them.

    Each stage's ``_numba`` module has a ``warm_up(loaded)`` that calls its loops through
    their doors, for float64 and int64 scores, and hands its first loop to
    :meth:`_Family.loaded`.  A stage is compiled behind its own lock
    (:func:`_one_compiler`); one another process is compiling is left for last, when
    this process loads it from the cache that process wrote: processes started together
    on an empty cache (a cluster's workers, a test run's) compile different stages side
    by side, in about half the time of one compiling them all while the others wait.
    """
    taken = []
    for wait in (False, True):
        for stage in family.stages:
            if stage in taken:
                continue
            lock = f"{family.name}-{stage}"
            with _one_compiler(lock, wait=wait) as held:
                if not held:
                    continue
                module = _module(stage)
                assert module is not None  # family.importable() was checked
                family.holding = lock
                try:
                    module.warm_up(family.loaded)
                finally:
                    family.holding = None
                taken.append(stage)
                family.stages_ready.add(stage)


def _compile_main(family: _Family) -> None:
    """:func:`_compile`, then the tie-hash calibration (:func:`_calibrate`)."""
    _compile(family)
    _calibrate()


#: the sort's, curves' and groups' loops (and the tie-hash calibration): no task waits for
#: them, as they save one at most ~1 s (a 128 MiB bucket) and compile for ~30 s of CPU cold
#: (sort ~14, binary ~9, groups ~6; the states' family ~10, the replicates' ~5)
_MAIN = _Family(
    "dask-auc-numba",
    ("sort", "binary", "groups"),
    _compile_main,
    cold=30.0,
    warm=2.0,
    saved=0.0,
)
#: the certified states' loops, loaded apart on a process's first state: from the cache they
#: took 0.14 s of the 0.4 s that every process's first metric shared its cores with
_STATES = _Family("dask-auc-numba-states", ("states",), _compile, cold=10.0, warm=1.0, saved=0.0)
#: the bootstrap's loops, compiled apart on a process's first bootstrap (the other metrics'
#: first call does not pay for them): ~6 s cold, ~0.1 s from the cache on 2 busy cores
#: (issue 29), where they take 10-30 ns per row and replicate against NumPy's 160-440 ns
_REPLICATES = _Family(
    "dask-auc-numba-bootstrap", ("replicates",), _compile, cold=10.0, warm=1.0,
    saved=1.5e-7,
)  # fmt: skip


def _calibrate(rows: int = 1 << 20, repeats: int = 3) -> None:
    """This CPU's two timed choices (:func:`.preferences.calibrate`), in the background compile."""
    calibrate(aggregate, _module("sort"), rows, repeats)


def supports(dtype: np.dtype) -> bool:
    """Whether the compiled loops take scores of this dtype (and numba is installed)."""
    return dtype.kind in _SCORE_KINDS and dtype.itemsize in _UNSIGNED and _available()


def usable(compiled: bool, stage: str, *arrays: np.ndarray, work: float = 0) -> ModuleType | None:
    """A stage's loops for these arrays (:func:`loops`), or None: take the NumPy path.

    Every entry to compiled loops asks here: ``compiled`` False (the
    ``dask-auc.numba`` setting), a score dtype the loops are not built for, or
    a compile not done yet (unless ``work`` is worth the wait) give None.
    """
    if not compiled or not all(supports(a.dtype) for a in arrays):
        return None
    return loops(stage, work)


def grouped_rows(
    scores: np.ndarray,
    codes: np.ndarray,
    n_codes: int,
    splitters: np.ndarray,
    ids: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
    """Unsorted rows grouped by (ascending score bucket, code), in two passes, or None.

    ``codes`` (uint8, 0 or 1; ``n_codes`` 1 or 2) give each row's part.  Returns
    ``(rows, starts, row_ids)``: the scores ordered by group ``bucket * n_codes +
    code`` (input order within one), group ``g`` being
    ``rows[starts[g]:starts[g + 1]]``, and ``ids`` (the rows' ids on a traced
    sort; else None) in the same order.  A score equal to a splitter goes to
    the bucket below it; a splitter value repeated ``m`` times deals its rows
    over ``m + 1`` buckets.
    """
    kernel = usable(True, "sort", scores)
    if kernel is None or scores.dtype != splitters.dtype or not 1 <= n_codes <= 2:
        return None
    spread = np.zeros(len(splitters), np.int64)
    if len(splitters):
        _, first, repeats = np.unique(splitters, return_index=True, return_counts=True)
        spread[first] = repeats
    n_groups = (len(splitters) + 1) * n_codes
    group_dtype = np.uint8 if n_groups <= 1 << 8 else np.uint16 if n_groups <= 1 << 16 else np.int64
    groups = np.empty(len(scores), group_dtype)
    counted_most = kernel.COUNTED_SPLITTERS if counting_pays.is_set() else -1
    counts = kernel.group_of_rows(scores, codes, n_codes, splitters, spread, groups, counted_most)
    starts = np.concatenate(([0], np.cumsum(counts)))
    rows = np.empty_like(scores)
    kernel.scatter(scores, groups, starts, rows)
    row_ids = None
    if ids is not None:
        row_ids = np.empty_like(ids)
        kernel.scatter(ids, groups, starts, row_ids)
    return rows, starts, row_ids


def pair_counts(
    pos: np.ndarray, neg: np.ndarray, *, compiled: bool = True
) -> tuple[int, int] | None:
    """(pairs pos > neg, pairs pos == neg) of two ascending arrays by one merge, or None."""
    kernel = usable(compiled, "binary", pos, neg)
    if kernel is None or pos.dtype != neg.dtype or len(pos) * len(neg) >= 2**63:
        return None
    strict, tied = kernel.merged_pair_counts(pos, neg)
    return int(strict), int(tied)


def ranks(
    values: np.ndarray, queries: np.ndarray, *, compiled: bool = True
) -> tuple[np.ndarray, np.ndarray] | None:
    """``searchsorted(values, queries, "left")`` and ``"right"`` of two ascending arrays, or None.

    One walk of the two arrays (linear) instead of two binary searches per query.
    """
    kernel = usable(compiled, "sort", values, queries)
    if kernel is None or values.dtype != queries.dtype:
        return None
    below = np.empty(len(queries), np.int64)
    through = np.empty(len(queries), np.int64)
    kernel.sorted_ranks(values, queries, below, through)
    return below, through


def partitioned(
    groups: np.ndarray, n_groups: int, *values: np.ndarray, compiled: bool = True
) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """Each of ``values`` ordered by ``groups`` (row order within one): a counting partition.

    ``groups`` (uint8 or uint16, below ``n_groups``) give each row's group.
    Returns ``(starts, ordered)``, group ``g`` of each ``ordered`` array being
    ``[starts[g]:starts[g + 1]]``; None where the compiled loops do not run.
    """
    kernel = usable(compiled, "sort", *values)
    if kernel is None or groups.dtype not in (np.uint8, np.uint16):
        return None
    starts = np.concatenate(([0], np.cumsum(np.bincount(groups, minlength=n_groups))))
    ordered = []
    for value in values:
        out = np.empty_like(value)
        kernel.scatter(value, groups, starts, out)
        ordered.append(out)
    return starts, ordered


def _hash(compiled: bool, scores: np.ndarray) -> ModuleType | None:
    """The sort's loops if their hash aggregates these scores here (else Arrow would), or None."""
    kernel = usable(compiled, "sort", scores)
    if kernel is None or not (hash_pays.is_set() or getattr(_warming, "active", False)):
        return None
    return kernel


def hashes(compiled: bool, scores: np.ndarray) -> bool:
    """Whether :func:`aggregate` would hash these scores now (numba, compiled, calibrated)."""
    return _hash(compiled, scores) is not None


def score_bits(scores: np.ndarray) -> tuple[np.ndarray, np.uint64]:
    """The scores' bit patterns (an unsigned view, no copy) and the pattern of ``-0.0``.

    Equal scores have equal patterns but for ``-0.0``, whose pattern the
    compiled hashes read as ``0.0``'s, 0 (for integer scores: 0, nothing to read).

    Examples
    --------
    >>> bits, negative_zero = score_bits(np.array([0.0, -0.0]))
    >>> bits.tolist(), hex(negative_zero)
    ([0, 9223372036854775808], '0x8000000000000000')
    """
    bits = scores.view(_UNSIGNED[scores.dtype.itemsize])
    negative_zero = (
        int(np.array(-0.0, scores.dtype).view(bits.dtype)) if scores.dtype.kind == "f" else 0
    )
    return bits, np.uint64(negative_zero)


def aggregate(
    scores: np.ndarray, positive: np.ndarray | None, limit: int, *, compiled: bool = True
) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct scores and their row counts per class, by hashing, or None.

    Returns ``(values, counts)`` with ``counts[i]`` = (rows of ``values[i]``
    not positive, positive); ``positive`` None: every row is of the first.
    None also when the rows hold more than ``limit`` distinct scores, or
    more than ``2**32 - 1`` rows (the hash counts in 32-bit halves).  Values
    come in no particular order; ``-0.0`` and ``0.0`` are one value.
    """
    kernel = _hash(compiled, scores)
    if kernel is None:
        return None
    bits, negative_zero = score_bits(scores)
    codes = np.zeros(len(scores), np.uint8) if positive is None else positive.view(np.uint8)
    found = kernel.aggregate_codes(bits, codes, negative_zero, limit)
    if found is None:
        return None
    patterns, counts = found
    return patterns.astype(bits.dtype).view(scores.dtype), counts
