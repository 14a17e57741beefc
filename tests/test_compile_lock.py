"""One process of a machine compiles a stage's numba loops at a time (a lock file a stage).

A fresh installation leaves numba's disk cache empty, and every process that starts then
(a ``LocalCluster``'s workers, a test run's) would compile every loop itself: behind the
lock the first compiles and writes the cache, the others compile other stages meanwhile,
then load it.  A process whose first loop came from the cache lets the lock go at once,
so that loading is not serialized.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import threading
from types import SimpleNamespace

import pytest

from dask_auc._kernels.sort import loading


def _lock_path(name: str) -> str:
    return next(
        os.path.join(tempfile.gettempdir(), entry)
        for entry in os.listdir(tempfile.gettempdir())
        if entry.startswith(f"{name}-") and entry.endswith(".lock")
    )


def _free(path: str) -> bool:
    """Whether another open file description can take the lock now."""
    handle = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(handle)
    return True


@pytest.fixture
def family_name(request):
    name = f"dask-auc-test-lock-{os.getpid()}-{request.node.name[-12:]}"
    yield name
    for entry in os.listdir(tempfile.gettempdir()):
        if entry.startswith(f"{name}-"):
            os.remove(os.path.join(tempfile.gettempdir(), entry))


def test_a_second_compiler_waits_for_the_first(family_name) -> None:
    inside, leave, order = threading.Event(), threading.Event(), []

    def first() -> None:
        with loading._one_compiler(family_name):
            order.append("first in")
            inside.set()
            leave.wait(10)
            order.append("first out")

    thread = threading.Thread(target=first)
    thread.start()
    assert inside.wait(10)
    path = _lock_path(family_name)
    assert not _free(path)  # another process (file description) would wait here
    leave.set()
    thread.join(10)
    assert order == ["first in", "first out"]
    assert _free(path)
    assert family_name not in loading._compilers


def test_a_loop_from_the_cache_lets_the_lock_go_at_once(family_name) -> None:
    family = loading._Family(family_name, ("sort",), lambda f: None, 20.0, 2.0, 0.0)
    from_cache = SimpleNamespace(stats=SimpleNamespace(cache_hits={("float64",): 1}))
    compiled_now = SimpleNamespace(stats=SimpleNamespace(cache_hits={}))
    warm_before = loading._cache_warm.is_set()  # loaded() sets it: this process's state
    with loading._one_compiler(family_name):
        family.holding = family_name
        path = _lock_path(family_name)
        family.loaded(compiled_now)  # compiled, not loaded: the cache was empty, keep it
        assert not _free(path)
        family.loaded(from_cache)
        assert _free(path)
    assert family_name not in loading._compilers
    if not warm_before:
        loading._cache_warm.clear()


def test_a_stage_another_process_compiles_is_left_for_last(family_name, monkeypatch) -> None:
    """Two processes on an empty cache compile different stages side by side."""
    order = []
    modules = {
        stage: SimpleNamespace(warm_up=lambda loaded, stage=stage: order.append(stage))
        for stage in ("sort", "binary", "groups")
    }
    monkeypatch.setattr(loading, "_module", modules.get)
    monkeypatch.setattr(loading, "_cache_warm", threading.Event())  # an empty cache
    family = loading._Family(family_name, tuple(modules), loading._compile, 20.0, 2.0, 0.0)
    # "another process": its own open file description holding the binary stage's lock
    with loading._one_compiler(f"{family_name}-binary"):
        other = loading._compilers.pop(f"{family_name}-binary")
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        thread = threading.Thread(target=loading._compile, args=(family,))
        thread.start()
        thread.join(0.5)
        assert order == ["sort", "groups"]  # the free stages, not waiting for binary
        assert thread.is_alive()  # then it waits for the other process's stage
        os.close(other)  # that process is done: this one loads the stage
        thread.join(10)
    finally:
        with contextlib.suppress(OSError):
            os.close(other)
    assert order == ["sort", "groups", "binary"]
    assert family.holding is None and not any(n.startswith(family_name) for n in loading._compilers)


def test_once_the_cache_held_a_stage_the_others_load_on_first_use(family_name, monkeypatch) -> None:
    """A first stage loaded from the disk cache: the family's later stages serve unwarmed."""
    warmed = []

    def warm_up(loaded, stage):
        warmed.append(stage)
        loaded(SimpleNamespace(stats=SimpleNamespace(cache_hits={("float64",): 1})))

    modules = {
        stage: SimpleNamespace(warm_up=lambda loaded, stage=stage: warm_up(loaded, stage))
        for stage in ("sort", "binary", "groups")
    }
    monkeypatch.setattr(loading, "_module", modules.get)
    monkeypatch.setattr(loading, "_cache_warm", threading.Event())
    family = loading._Family(family_name, tuple(modules), loading._compile, 20.0, 2.0, 0.0)
    loading._compile(family)
    assert warmed == ["sort"]  # the cache held it: binary and groups load when called
    assert family.stages_ready == {"sort", "binary", "groups"}
    assert all(family.serves(stage) for stage in modules)
    loading._warm_every_stage(family)  # what compile_now adds: every loop run once
    assert warmed == ["sort", "binary", "groups"] and family.warmed == set(modules)

    # an empty cache (the first loop compiled, not loaded): every stage is warmed up
    warmed.clear()
    monkeypatch.setattr(loading, "_cache_warm", threading.Event())
    modules = {
        stage: SimpleNamespace(warm_up=lambda loaded, stage=stage: warmed.append(stage))
        for stage in ("sort", "binary", "groups")
    }
    monkeypatch.setattr(loading, "_module", modules.get)
    family = loading._Family(family_name, tuple(modules), loading._compile, 20.0, 2.0, 0.0)
    loading._compile(family)
    assert warmed == ["sort", "binary", "groups"]
