"""How the compiled loops get into a process: in the background, in families, from numba's cache.

They are compiled in the background, in families (:class:`_Family`): the first
task of a process that could use a family's loops starts a thread that
compiles (or loads from numba's disk cache) them for float64 and int64 scores
(once the cache held a family's first stage, its other stages' loops are left
to load on their first call), and meanwhile tasks take their NumPy path --
unless the compiled loops would save a task more time than the compile has
left (:func:`waits_for_compile`): such a task waits for the compile, then runs
compiled, so that a process's first call is slower than neither the NumPy path
nor waiting for the compiler (``benchmarks/numba_cost.py``,
``benchmarks/bench_first_call.py``).  Other score dtypes compile on their first
use after that.  :func:`compile_now` waits for every family and runs every loop.
The doors to the loops are :mod:`.compiled`'s :func:`~.compiled.usable`.

Nothing here imports dask.
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
    #: its stages whose loops were run once (compiled or loaded), not left to their first use
    warmed: set[str] = field(default_factory=set)
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
        if family.ready.is_set() and family.importable():
            _warm_every_stage(family)  # those the compile left to their first use too
    return all(family.ready.is_set() and family.importable() for family in families)


def _warm_every_stage(family: _Family) -> None:
    """Run the loops of the family's stages not warmed yet: compile_now's promise is all of them.

    (A stage the background compile left to its first use is normally in numba's
    cache; one that is not -- its source changed since -- is compiled here.)
    """
    for stage in family.stages:
        if stage not in family.warmed:
            _warm_stage(family, stage)


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

    Once a stage's first loop came from numba's disk cache (:data:`_cache_warm`), the
    family's later stages are not warmed up: their loops serve at once, each loaded
    from the cache by the first task that calls it (a few ms a loop), so that a
    process's first call shares its cores with the loading of its own loops only
    (``benchmarks/bench_first_call.py``: the binary stage's ~30 loops took ~0.2 s of
    CPU beside every process's first AUC, which needs a few of them).
    :func:`compile_now` still runs them all (:func:`_warm_every_stage`).
    """
    taken: list[str] = []
    for wait in (False, True):
        for stage in family.stages:
            if stage in taken:
                continue
            if taken and _cache_warm.is_set():  # the cache holds them: loaded on first use
                taken.append(stage)
                family.stages_ready.add(stage)
            elif _warm_stage(family, stage, wait=wait):
                taken.append(stage)


def _warm_stage(family: _Family, stage: str, *, wait: bool = True) -> bool:
    """Run one stage's loops once, behind its lock; False (at once) if another process holds it.

    ``wait``: wait for that process instead, then load the loops it wrote to the cache.
    """
    lock = f"{family.name}-{stage}"
    with _one_compiler(lock, wait=wait) as held:
        if not held:
            return False
        module = _module(stage)
        assert module is not None  # family.importable() was checked
        family.holding = lock
        try:
            module.warm_up(family.loaded)
        finally:
            family.holding = None
    family.warmed.add(stage)
    family.stages_ready.add(stage)
    return True


#: what runs once the main family's loops are in: :mod:`.compiled` adds this CPU's timed
#: choices (its ``_calibrate``), which time its doors (a hook: they import this module)
after_main: list[Callable[[], None]] = []


def _compile_main(family: _Family) -> None:
    """:func:`_compile`, then :data:`after_main` (the tie-hash calibration)."""
    _compile(family)
    for step in after_main:
        step()


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
