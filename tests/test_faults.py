"""Lost workers and lost partitions: the computation goes on and the AUC stays exact.

Every task of a dask-auc graph is a pure function of its inputs, so when a
worker process dies the scheduler recomputes whatever was only in its memory
(input partitions, sorted pieces, bucket summaries) from the graph, on the
workers that remain or on the one its nanny restarts, and the answer is the
same, bit for bit, as without the failure.

What the user sees
------------------
- A worker killed in the middle of ``roc_auc_score`` (out of memory, a
  preempted machine, ``kill -9``): the call returns the exact AUC, a little
  later, and ``distributed`` logs what happened: the scheduler "Removing
  worker '...' caused the cluster to lose already computed task(s), which
  will be recomputed elsewhere: {...}", the other workers "Worker stream died
  during communication", the nanny "Restarting worker".
- Persisted input partitions lost with their worker: recomputed from the
  graph that made them (read again from Parquet, say), transparently.
- A task that kills every worker it runs on (a partition too large for any
  worker's memory, a crashing native library): after
  ``distributed.scheduler.allowed-failures`` retries (default 3, so 4 dead
  workers) the call raises :class:`distributed.scheduler.KilledWorker` naming
  the task; never a wrong number.

These tests use a cluster of their own (two single-thread worker processes
under nannies, which restart a killed worker), not the shared one.  A worker
is killed with ``SIGKILL`` in two ways: from a scheduler plugin, at the
moment the first task of a chosen stage of the sort finishes (a timer that
fires mid-computation, deterministically), and from an input task itself.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections import Counter
from pathlib import Path

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.utils import key_split
from distributed import Client, futures_of, wait
from distributed.diagnostics.plugin import SchedulerPlugin
from distributed.scheduler import KilledWorker
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from clusters import two_worker_processes
from references import counting_auc

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="kills worker processes (POSIX)"),
]

# a dozen blocks give every stage of the sort tasks on both workers (a kill always
# loses some); the rows only have to tie within and across blocks, which 2,000 a block
# on a 1/1000 grid do: more rows would only make each recomputation slower
BLOCKS, ROWS_PER_BLOCK = 12, 2_000
KILLER_BLOCK = 5


def scored_block(
    index: int,
    rows: int = ROWS_PER_BLOCK,
    record: Path | None = None,
    kill_marker: Path | None = None,
    kill_always: bool = False,
) -> pd.DataFrame:
    """Block ``index`` of scored rows: the same rows every time it runs.

    Scores on a 1/1000 grid tie within and across blocks; a fifth of the
    weights are zero.  Each run leaves a file in ``record``.  Block
    ``KILLER_BLOCK`` kills its own worker process with ``SIGKILL``: the first
    time it runs if ``kill_marker`` is given (the file marks that it did), or
    every time if ``kill_always``.
    """
    if record is not None:
        (record / f"{index}-{uuid.uuid4().hex}").touch()
    if index == KILLER_BLOCK and (kill_always or (kill_marker and _first_claim(kill_marker))):
        os.kill(os.getpid(), signal.SIGKILL)
    rng = np.random.default_rng([2026, index])
    label = (rng.random(rows) < 0.3).astype(np.int8)
    score = np.round(rng.random(rows) * 0.8 + 0.2 * label, 3)
    weight = rng.choice([0.0, 0.5, 1.0, 3.0], size=rows, p=[0.2, 0.3, 0.3, 0.2])
    return pd.DataFrame({"label": label, "score": score, "weight": weight})


def _first_claim(marker: Path) -> bool:
    """True for the one caller that creates ``marker`` (atomic across processes)."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def scored_frame(**options) -> dd.DataFrame:
    return dd.from_map(scored_block, range(BLOCKS), meta=scored_block(0, 0), **options)


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    return pd.concat([scored_block(i) for i in range(BLOCKS)], ignore_index=True)


@pytest.fixture(scope="module")
def fault_cluster():
    """Two single-thread worker processes under nannies (restarted when killed).

    Three settings make the kills deterministic and quick:

    - ``lost-worker-timeout``: 15 s after the scheduler removes a worker, the
      cluster closes that worker's nanny for good if no worker of the same name
      is registered *at that moment*.  A kill from an earlier test would then
      close a nanny whose worker the current test has just killed and which is
      restarting, leaving the cluster without workers and the test waiting.
    - ``worker-saturation`` 1.0: a single-thread worker holds one task at a
      time, so a worker's death makes only the task that killed it suspicious
      (with the default 1.1 a bystander queued beside it is blamed as well and
      may be the one reported as ``KilledWorker``).
    - ``allowed-failures`` 1 (default 3): a task that kills every worker it runs on
      raises ``KilledWorker`` after two deaths, both workers of the cluster, instead
      of waiting for the nannies to restart them twice more; a task that killed one
      worker (every other test here) is still retried.
    """
    settings = {
        "distributed.deploy.lost-worker-timeout": "1 hour",
        "distributed.scheduler.worker-saturation": 1.0,
        "distributed.scheduler.allowed-failures": 1,
    }
    with dask.config.set(settings), two_worker_processes("2GiB") as cluster:
        yield cluster


@pytest.fixture
def client(fault_cluster):
    """A client of the fault cluster, both workers up (the last test may have killed one)."""
    with Client(fault_cluster) as client:
        _wait_for(lambda: len(client.scheduler_info()["workers"]) == 2, "two workers")
        yield client


def _wait_for(condition, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what}")
        time.sleep(0.05)


class KillAtStage(SchedulerPlugin):
    """``SIGKILL`` the worker holding the first finished task of one stage, once.

    ``stage`` is a task prefix such as ``auc-bucket``: the kill lands after
    that stage has begun and before the tasks depending on it have run.
    Records the killed worker and every worker the scheduler removes.
    """

    name = "kill-at-stage"

    def __init__(self, scheduler, stage: str):
        self.scheduler = scheduler
        self.stage = stage
        self.killed: tuple[str, int] | None = None
        self.removed: list[str] = []

    def transition(self, key, start, finish, *args, **kwargs):
        if self.killed is None and finish == "memory" and key_split(key) == self.stage:
            worker = next(iter(self.scheduler.tasks[key].who_has))
            self.killed = (worker.address, worker.pid)
            os.kill(worker.pid, signal.SIGKILL)

    def remove_worker(self, scheduler, worker, **kwargs):
        self.removed.append(worker)


@pytest.fixture
def kill_at(fault_cluster):
    """Install a :class:`KillAtStage` on the scheduler (in this process); remove it after."""
    scheduler = fault_cluster.scheduler
    installed = []

    def install(stage: str) -> KillAtStage:
        plugin = KillAtStage(scheduler, stage)
        scheduler.add_plugin(plugin)
        installed.append(plugin)
        return plugin

    yield install
    for plugin in installed:
        scheduler.remove_plugin(name=plugin.name)


def _pids(client) -> set[int]:
    return set(client.run(os.getpid).values())


def _runs(record: Path) -> Counter:
    """How many times each block ran, from the files it left."""
    return Counter(int(path.name.split("-")[0]) for path in record.iterdir())


@pytest.mark.parametrize(
    "stage, persisted, exchange",
    [
        ("auc-split", False, "auto"),
        ("auc-bucket-piece", False, "tasks"),  # in the middle of the tasks exchange
        ("auc-bucket-transfer", False, "p2p"),  # in the middle of the P2P exchange
        ("auc-bucket", False, "p2p"),
        # ("auc-bucket", False, "tasks") is the weighted test's kill below ("auto" picks
        # the tasks exchange for a dozen partitions)
        ("auc-summary", True, "auto"),
    ],
)
def test_worker_killed_mid_sort_gives_the_exact_auc(
    client, kill_at, rows, stage, persisted, exchange
):
    frame = scored_frame()
    if persisted:
        frame = frame.persist()
        wait(frame)
    pids = _pids(client)
    plugin = kill_at(stage)
    with dask.config.set({"dask-auc.exchange": exchange, "dask-auc.buckets": 6}):
        got = dask_auc.roc_auc_score(frame["label"], frame["score"])
    assert got == counting_auc(rows["label"], rows["score"])
    assert got == pytest.approx(sklearn_auc(rows["label"], rows["score"]), abs=1e-12)
    assert plugin.killed is not None, f"no {stage} task ran"
    address, pid = plugin.killed
    _wait_for(lambda: address in plugin.removed, "the scheduler to see the worker die")
    _wait_for(lambda: len(_pids(client)) == 2, "the nanny to restart the worker")
    assert pid in pids and pid not in _pids(client)


def test_weighted_partial_auc_with_a_killed_worker_equals_the_run_without(client, kill_at, rows):
    frame = scored_frame()
    args = frame["label"], frame["score"]
    options = {"sample_weight": frame["weight"], "max_fpr": 0.3}
    undisturbed = dask_auc.roc_auc_score(*args, **options)
    plugin = kill_at("auc-bucket")
    got = dask_auc.roc_auc_score(*args, **options)
    assert plugin.killed is not None
    _wait_for(lambda: plugin.killed[0] in plugin.removed, "the scheduler to see the worker die")
    assert got == undisturbed  # same graph, same float operations, whoever ran them
    expected = sklearn_auc(rows["label"], rows["score"], sample_weight=rows["weight"], max_fpr=0.3)
    assert got == pytest.approx(expected, abs=1e-12)


def test_input_task_that_kills_its_worker_once_is_retried(client, rows, tmp_path):
    record = tmp_path / "runs"
    record.mkdir()
    marker = tmp_path / "killed-once"
    pids = _pids(client)
    frame = scored_frame(record=record, kill_marker=marker)
    got = dask_auc.roc_auc_score(frame["label"], frame["score"])
    assert got == counting_auc(rows["label"], rows["score"])
    assert marker.exists()
    assert _runs(record)[KILLER_BLOCK] == 2  # killed, then run again elsewhere
    _wait_for(lambda: len(_pids(client)) == 2, "the nanny to restart the worker")
    assert len(pids & _pids(client)) == 1


def test_lost_persisted_partitions_are_recomputed_from_the_graph(client, rows, tmp_path):
    record = tmp_path / "runs"
    record.mkdir()
    frame = scored_frame(record=record).persist()
    wait(frame)
    holders = client.who_has(futures_of(frame))
    by_worker = Counter(addresses[0] for addresses in holders.values())
    victim, _ = by_worker.most_common(1)[0]
    lost = {key[1] for key, addresses in holders.items() if set(addresses) == {victim}}
    assert lost, holders
    assert _runs(record) == Counter(range(BLOCKS))
    os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
    _wait_for(lambda: victim not in client.scheduler_info()["workers"], "the worker's removal")
    got = dask_auc.roc_auc_score(frame["label"], frame["score"])
    assert got == counting_auc(rows["label"], rows["score"])
    reruns = _runs(record) - Counter(range(BLOCKS))
    assert set(reruns) == lost and max(reruns.values()) == 1  # exactly the lost ones, once


def test_task_killing_every_worker_raises_killed_worker_not_a_number(client, tmp_path):
    frame = scored_frame(kill_always=True)
    allowed = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.allowed_failures)
    with pytest.raises(KilledWorker) as error:
        dask_auc.roc_auc_score(frame["label"], frame["score"])
    # the input task of the killer block (fused by dask with the column selection)
    assert key_split(error.value.task).startswith("scored_block")
    assert error.value.task[1] == KILLER_BLOCK
    assert f"on {allowed + 1} different workers" in str(error.value)
