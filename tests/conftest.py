"""Shared fixtures: references, hypothesis profiles, a real process cluster."""

from __future__ import annotations

import os

import dask
import pytest
from hypothesis import HealthCheck, settings

import schedule
from clusters import two_worker_processes

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# .ci/baseline_tests.sh reruns the float-order tests at baseline SIMD: the main run has
# covered the examples' variety, this pass asks whether the same operations give the same
# bits on another instruction set, which a few examples of each test show.  It caps the
# tests' own counts too, through strategies.examples.
settings.register_profile(
    "baseline",
    max_examples=2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True, scope="session")
def _one_block_per_partition():
    """Tests cut their inputs on purpose (ties across edges, empty partitions): keep every cut.

    Coalescing tiny partitions is tested where it is switched on again
    (``test_scale.py``, ``test_invariance.py::test_coalesced_partitions_*``).
    """
    with dask.config.set({"dask-auc.coalesce": False}):
        yield


@pytest.fixture(autouse=True, scope="session")
def _compiled_loops_ready():
    """The numba loops compiled before any test, so that tests of the compiled paths take them.

    (A user's process compiles them in the background and uses NumPy meanwhile.)
    """
    from dask_auc._kernels.sort import compiled, preferences

    compiled.compile_now()
    # the compiled hash is tested wherever numba runs, whichever path this CPU's
    # calibration chose (test_compiled.py tests the choice itself)
    preferences.prefer_hash(True)


@pytest.fixture(scope="session")
def process_cluster():
    """A LocalCluster of two worker *processes*, shared by the cluster tests."""
    with two_worker_processes() as cluster:
        yield cluster


@pytest.fixture
def client(process_cluster):
    from distributed import Client

    with Client(process_cluster) as client:
        yield client


def pytest_collection_modifyitems(config, items):
    """The long tests first, dealt over xdist's workers (``schedule.py`` says why)."""
    workers = getattr(config.option, "numprocesses", None)
    workers = workers if isinstance(workers, int) and workers > 0 else 1
    items[:] = schedule.order(items, [item.nodeid for item in items], parts=workers)
