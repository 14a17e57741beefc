"""The same code on a cluster started as a user starts one: separate processes over TCP.

A ``dask scheduler`` and two ``dask worker`` processes are started with the
console scripts of this environment on the loopback interface, exactly as
they would be on several hosts (only the address differs).  The client
builds the dask collections in this process and sends the graphs over TCP;
the workers run dask-auc's kernels in their own processes; the results are
checked against scikit-learn.  The installed ``dask-auc`` command is pointed
at the same scheduler with ``--scheduler ADDRESS``.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import dask.dataframe as dd
import numpy as np
import pandas as pd
import psutil
import pytest
from distributed import Client
from sklearn.metrics import roc_auc_score as sklearn_auc
from sklearn.metrics import roc_curve as sklearn_roc_curve

import dask_auc
from references import counting_auc

pytestmark = pytest.mark.cluster

BIN = Path(sys.executable).parent
START_TIMEOUT = 60


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    """Scored rows with ties (a 1/1000 grid), zero weights, 200 users of uneven size."""
    rng = np.random.default_rng(42)
    n = 200_000
    label = (rng.random(n) < 0.25).astype(np.int8)
    return pd.DataFrame(
        {
            "label": label,
            "score": np.round(rng.random(n) * 0.7 + 0.3 * label, 3),
            "weight": rng.choice([0.0, 0.5, 1.0, 2.0], size=n),
            "user": np.minimum(rng.zipf(1.3, n), 200),
        }
    )


def _start(command: list[str], log: Path) -> subprocess.Popen:
    """Start a console script of this environment, its output going to ``log``."""
    with open(log, "wb") as out:
        return subprocess.Popen(
            [str(BIN / command[0]), *command[1:]],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM (a clean shutdown, the nanny closes its worker), SIGKILL what is left."""
    children: list[psutil.Process] = []
    with contextlib.suppress(psutil.NoSuchProcess):
        children = psutil.Process(process.pid).children(recursive=True)
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=20)
    _, alive = psutil.wait_procs(children, timeout=10)
    for child in alive:  # psutil checks the start time: never a reused pid
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()


def _scheduler_address(scheduler_file: Path, scheduler: subprocess.Popen, log: Path) -> str:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        assert scheduler.poll() is None, log.read_text()
        with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
            return json.loads(scheduler_file.read_text())["address"]
        time.sleep(0.1)
    raise TimeoutError(f"no scheduler file after {START_TIMEOUT} s:\n{log.read_text()}")


@pytest.fixture(scope="module")
def tcp_cluster(tmp_path_factory):
    """Address of a scheduler and two single-thread workers, each its own command."""
    root = tmp_path_factory.mktemp("tcp")
    started: list[subprocess.Popen] = []
    try:
        scheduler_log = root / "scheduler.log"
        scheduler = _start(
            ["dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(root / "scheduler.json")],
            scheduler_log,
        )  # fmt: skip
        started.append(scheduler)
        address = _scheduler_address(root / "scheduler.json", scheduler, scheduler_log)
        for i in range(2):
            started.append(
                _start(
                    ["dask", "worker", address, "--name", f"tcp-{i}", "--nworkers", "1",
                     "--nthreads", "1", "--memory-limit", "1GiB", "--host", "127.0.0.1",
                     "--no-dashboard", "--local-directory", str(root / f"worker-{i}")],
                    root / f"worker-{i}.log",
                )
            )  # fmt: skip
        yield address
    finally:
        for process in reversed(started):  # workers first
            _stop(process)


@pytest.fixture(scope="module")
def tcp_client(tcp_cluster):
    with Client(tcp_cluster, timeout=START_TIMEOUT) as client:
        client.wait_for_workers(2, timeout=START_TIMEOUT)
        yield client


def test_the_workers_are_the_separately_started_processes(tcp_client, tcp_cluster):
    workers = tcp_client.scheduler_info()["workers"]
    assert sorted(w["name"] for w in workers.values()) == ["tcp-0", "tcp-1"]
    assert all(address.startswith("tcp://127.0.0.1:") for address in workers)
    assert tcp_client.scheduler.address == tcp_cluster
    assert os.getpid() not in tcp_client.run(os.getpid).values()


def test_scores_computed_over_tcp_equal_sklearn(tcp_client, rows):
    frame = dd.from_pandas(rows, npartitions=6)
    executed = tcp_client.run(lambda dask_worker: dask_worker.state.executed_count)
    auc = dask_auc.roc_auc_score(frame["label"], frame["score"])
    partial = dask_auc.roc_auc_score(
        frame["label"], frame["score"], sample_weight=frame["weight"], max_fpr=0.1
    )
    fpr, tpr, thresholds = dask_auc.roc_curve(frame["label"], frame["score"])
    grouped = dask_auc.grouped_roc_auc_score(frame, by="user", label="label", score="score")
    after = tcp_client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert all(after[w] > executed[w] for w in executed)  # both workers did the work

    y, s, w = rows["label"], rows["score"], rows["weight"]
    assert auc == counting_auc(y, s)
    assert auc == pytest.approx(sklearn_auc(y, s), abs=1e-12)
    assert partial == pytest.approx(sklearn_auc(y, s, sample_weight=w, max_fpr=0.1), abs=1e-12)
    expected_fpr, expected_tpr, expected_thresholds = sklearn_roc_curve(y, s)
    np.testing.assert_array_equal(thresholds, expected_thresholds)
    np.testing.assert_allclose(fpr, expected_fpr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tpr, expected_tpr, rtol=0, atol=1e-12)
    by_user = {
        user: counting_auc(part["label"], part["score"])
        for user, part in rows.groupby("user")
        if part["label"].nunique() == 2
    }
    table = grouped.per_group
    assert len(by_user) > 50 and table["auc"].notna().sum() == len(by_user)
    assert table.loc[list(by_user), "auc"].tolist() == list(by_user.values())
    sizes = rows.groupby("user").size()[list(by_user)]
    assert grouped.gauc == pytest.approx(np.average(list(by_user.values()), weights=sizes))


def test_cli_with_scheduler_address_equals_sklearn(tcp_cluster, rows, tmp_path):
    path = tmp_path / "scores.parquet"
    path.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(rows)), 3)):
        rows.iloc[part].to_parquet(path / f"part-{i}.parquet", index=False)
    done = subprocess.run(
        [str(BIN / "dask-auc"), str(path), "--label", "label", "--score", "score",
         "--weight", "weight", "--max-fpr", "0.1", "--by", "user", "--json",
         "--scheduler", tcp_cluster],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    y, s, w = rows["label"], rows["score"], rows["weight"]
    assert got["ran_on"] == f"the cluster at {tcp_cluster}"
    assert (got["rows"], got["partitions"]) == (len(rows), 3)
    assert got["roc_auc"] == pytest.approx(sklearn_auc(y, s, sample_weight=w), abs=1e-12)
    assert got["partial_auc"] == pytest.approx(
        sklearn_auc(y, s, sample_weight=w, max_fpr=0.1), abs=1e-12
    )
    weighted = rows[rows["weight"] > 0].groupby("user")
    both = [part for _, part in weighted if part["label"].nunique() == 2]
    group_aucs = [sklearn_auc(p["label"], p["score"], sample_weight=p["weight"]) for p in both]
    group_weights = [p["weight"].sum() for p in both]
    assert got["gauc"] == pytest.approx(np.average(group_aucs, weights=group_weights), abs=1e-12)
