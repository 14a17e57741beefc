"""Out of core: the exact AUC of a Parquet data set larger than the cluster's memory.

Run it as a script::

    python benchmarks/out_of_core.py --rows 1e8              # try it first
    python benchmarks/out_of_core.py --rows 1e9 --output benchmarks/results/out-of-core.md
    python benchmarks/out_of_core.py --rows 1e9 --states        # + the one-pass state


Step 1 writes ``--rows`` rows (label int8, score float32 or float64) to
``--data-dir`` as many Parquet files, one file of ``--file-rows`` rows at a
time, and skips this when a finished data set of the same shape is there.
Step 2 computes ``dask_auc.roc_auc_score`` from ``dd.read_parquet`` on a
``LocalCluster`` of ``--workers`` worker processes with ``--memory-limit``
each, and prints one Markdown table: time, peak RSS of every worker process,
bytes spilled to disk, workers lost, and the exact-answer check.

With ``--by USERS`` every row also gets a ``user`` column (a hash of its
position modulo ``USERS``: about ``rows / USERS`` rows each), and step 2 times
``grouped_roc_auc_score(by="user")`` beside the plain AUC of the same rows, on
the same cluster.  The users whose id is a multiple of ``--check-every`` are
checked exactly: while writing, their rows' grid indices are kept per class,
and each one's AUC, counted in exact integers, must equal dask-auc's.
``--heavy FRACTION`` gives that share of the rows to one more user (id
``USERS``), whose AUC is counted exactly too: a heavy user the grouped AUC
must cut over several buckets rather than hold in one worker's memory.

With ``--reliability`` step 2 also computes ``dask_auc.reliability_diagram`` of the
same rows after the AUC, on the same cluster with its workers restarted (so that each
run's peak RSS is its own), and checks its Brier decomposition against scikit-learn's
``IsotonicRegression`` fitted to the generator's per-grid-value class counts (saved
beside the files, ``_histograms.npz``): the CORP fit of every row, out of core, with the
memory of the AUC.

With ``--states`` step 2 first times, on the same cluster, the read floor
(read both columns and sum each: the least any one pass costs) and
``dask_auc.roc_state`` (one read, no exchange), alternating, twice each, and
prints the state's certified bounds, which must contain the exact AUC;
``--no-exact`` then skips the exact AUC.

How the answer is checked exactly
---------------------------------
The scores are a logistic model's output (``_data.py``, ~30% positives, AUC
about 0.84) rounded to the grid ``k / 2**24`` -- the resolution of a float32
in ``[0.5, 1)``, so the data has the ties a float32 model produces.  Every
grid value is exact in float32 and float64, so while writing, the generator
counts each class per grid index (``np.bincount``) and from those two
histograms computes the AUC numerator ``2 * (pairs ranked right) + (tied
pairs)`` in exact integers.  ``numerator / (2 * P * N)`` with Python integers
is correctly rounded, and so is dask-auc's final division of its exact
integer counts: the two floats must be *equal*, not close.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import platform
import shutil
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _data import generate_range  # noqa: E402

GRID_BITS = 24
GRID = 1 << GRID_BITS
GIB = 1 << 30
MIB = 1 << 20
_DONE = "_dataset.json"  # a leading underscore: Parquet readers skip it
_HISTOGRAMS = "_histograms.npz"


# -- step 1: the data set and its exact answer ---------------------------------------------


def exact_counts(pos_hist: np.ndarray, neg_hist: np.ndarray) -> tuple[int, int, int]:
    """``(2 * right + tied, P, N)`` from per-class counts of each score value, in ascending order.

    A positive outranks every negative in a lower bin and ties with those in
    its own bin.  All sums stay below ``2 * P * N < 2**63`` for up to ~3e9 rows.

    >>> exact_counts(np.array([0, 1, 1]), np.array([1, 1, 0]))   # pos 0.5, 1.0; neg 0.0, 0.5
    (7, 2, 2)
    """
    pos_hist, neg_hist = pos_hist.astype(np.int64), neg_hist.astype(np.int64)
    neg_below = np.cumsum(neg_hist) - neg_hist
    twice_area = int(pos_hist @ (2 * neg_below + neg_hist))
    return twice_area, int(pos_hist.sum()), int(neg_hist.sum())


def _file_rows(
    rows: int, start: int, stop: int, dtype: str, seed: int, users: int = 0, heavy: float = 0.0
) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray | None]:
    """Rows ``start:stop`` as an Arrow table, their grid indices ``k`` (score = k / 2**24),
    and with ``users`` their user ids (a ``heavy`` share of them the id ``users``)."""
    import pyarrow as pa

    label, score = generate_range(rows, start, stop, "continuous", seed)
    grid_index = np.rint(score * GRID).astype(np.int32)
    # k / 2**24 is exact in both float widths: a power-of-two scaling of an integer < 2**24+1
    values = grid_index.astype(dtype) * np.asarray(1.0 / GRID, dtype=dtype)
    columns = {"label": pa.array(label), "score": pa.array(values)}
    user = None
    if users:
        position = np.arange(start, stop, dtype=np.uint64) + np.uint64(seed)
        user = (_mixed(position) % users).astype(np.int64)
        if heavy:
            draw = _mixed(position ^ np.uint64(0x9E3779B97F4A7C15))
            user[draw < np.uint64(heavy * 2.0**64)] = users
        columns["user"] = pa.array(user)
    return pa.table(columns), label, grid_index, user


def _mixed(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: a row's user id from its position."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def generate_dataset(
    path: Path,
    rows: int,
    file_rows: int,
    dtype: str,
    seed: int,
    users: int = 0,
    check_every: int = 100_003,
    heavy: float = 0.0,
) -> dict:
    """Write the data set (skipped when a finished one of this shape exists); return its record."""
    import pyarrow.parquet as pq

    shape = {"rows": rows, "file_rows": file_rows, "dtype": dtype, "seed": seed, "grid": GRID}
    if users:
        shape.update(users=users, check_every=check_every)
    if heavy:
        shape.update(heavy=heavy)
    record_path = path / _DONE
    if record_path.exists():
        record = json.loads(record_path.read_text())
        if all(record.get(k) == v for k, v in shape.items()):
            print(f"data set present in {path} ({record['files']} files), generation skipped")
            return record
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    pos_hist = np.zeros(GRID + 1, dtype=np.int64)
    neg_hist = np.zeros(GRID + 1, dtype=np.int64)
    started = time.perf_counter()
    bounds = list(range(0, rows, file_rows)) + [rows]
    checked: dict[int, list[list[np.ndarray]]] = {}  # user -> [negatives' k, positives' k]
    heavy_hist = np.zeros((2, GRID + 1), dtype=np.int64) if heavy else None
    for index, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        table, label, grid_index, user = _file_rows(rows, start, stop, dtype, seed, users, heavy)
        pq.write_table(table, path / f"part-{index:05d}.parquet", row_group_size=1 << 20)
        if user is not None and heavy_hist is not None:
            mine = user == users
            for cls in (0, 1):
                chosen = grid_index[mine & (label == cls)]
                heavy_hist[cls] += np.bincount(chosen, minlength=GRID + 1)
        if user is not None:
            kept = np.flatnonzero((user % check_every == 0) & (user != users))
            for row in kept:
                parts = checked.setdefault(int(user[row]), [[], []])
                parts[int(label[row])].append(grid_index[row])
        positive = label == 1
        for hist, rows_of_class in ((pos_hist, positive), (neg_hist, ~positive)):
            # counts of the grid values present, added in place: cheap for small files
            values, counts = np.unique(grid_index[rows_of_class], return_counts=True)
            hist[values] += counts
        if index % 10 == 0:
            print(f"  wrote {stop:,} rows ({time.perf_counter() - started:.0f} s)", flush=True)
    twice_area, pos, neg = exact_counts(pos_hist, neg_hist)
    # each grid value's class counts, for --reliability's reference (a leading underscore:
    # Parquet readers skip the file)
    np.savez(path / _HISTOGRAMS, pos=pos_hist, neg=neg_hist)
    record = dict(
        shape,
        files=len(bounds) - 1,
        positives=pos,
        negatives=neg,
        twice_area=str(twice_area),  # JSON-safe: may exceed 2**53
        distinct_scores=int(np.count_nonzero(pos_hist + neg_hist)),
        bytes_on_disk=sum(f.stat().st_size for f in path.glob("*.parquet")),
        generation_seconds=round(time.perf_counter() - started, 1),
    )
    if users:
        record["checked_users"] = {str(u): _exact_user_auc(*parts) for u, parts in checked.items()}
    if heavy_hist is not None:
        twice, p, n = exact_counts(heavy_hist[1], heavy_hist[0])
        auc = float(Fraction(twice, 2 * p * n)) if p and n else None
        record["heavy_user"] = {"id": users, "rows": p + n, "auc": auc}
    record_path.write_text(json.dumps(record, indent=1))
    return record


def _exact_user_auc(neg: list, pos: list) -> float | None:
    """One user's AUC by exact counts of its rows' grid indices (None: one class only)."""
    if not neg or not pos:
        return None
    top = GRID + 1
    twice, p, n = exact_counts(
        np.bincount(np.asarray(pos), minlength=top), np.bincount(np.asarray(neg), minlength=top)
    )
    return float(Fraction(twice, 2 * p * n))


def reference_brier(path: Path) -> dict[str, float] | None:
    """The Brier decomposition from the generator's class counts per grid value, or None.

    scikit-learn's ``IsotonicRegression`` fitted to each occupied grid value's share of
    positives, weighted by its rows (the CORP fit of the pooled ties), then ``S``,
    ``S_rc`` and ``UNC`` as sums over the grid values: an independent reference for
    :func:`dask_auc.reliability_diagram` of the whole data set.
    """
    if not (path / _HISTOGRAMS).exists():
        return None
    from sklearn.isotonic import IsotonicRegression

    saved = np.load(path / _HISTOGRAMS)
    pos, neg = saved["pos"].astype(np.float64), saved["neg"].astype(np.float64)
    occupied = np.flatnonzero(pos + neg)
    pos, neg = pos[occupied], neg[occupied]
    weight = pos + neg
    score = occupied / GRID  # every grid value is exact in float32 and float64
    fit = IsotonicRegression().fit(score, pos / weight, sample_weight=weight).predict(score)
    total, rate = weight.sum(), pos.sum() / weight.sum()
    brier = float((pos * (1 - score) ** 2 + neg * score**2).sum() / total)
    recalibrated = float((pos * (1 - fit) ** 2 + neg * fit**2).sum() / total)
    uncertainty = rate * (1 - rate)
    return {
        "score": brier,
        "miscalibration": brier - recalibrated,
        "discrimination": uncertainty - recalibrated,
        "uncertainty": uncertainty,
    }


def exact_auc(record: dict) -> float:
    """The correctly rounded exact AUC of a generated data set."""
    pairs = 2 * record["positives"] * record["negatives"]
    return float(Fraction(int(record["twice_area"]), pairs))


# -- step 2: the computation on a memory-limited cluster -----------------------------------


def _status_bytes(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class WorkerWatch:
    """Samples the worker processes and the scheduler's memory view once a second.

    Peak RSS per process is the kernel's high-water mark (``VmHWM``), so no
    spike between samples is missed; spilled bytes are the scheduler's view
    (``WorkerState.memory.spilled``), whose peak is kept per worker.
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self.pids: dict[str, int] = client.run(os.getpid)
        self.peak_rss = dict.fromkeys(self.pids.values(), 0)
        self.peak_spilled: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> WorkerWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _loop(self) -> None:
        while not self._stop.wait(1.0):
            self._sample()

    def _sample(self) -> None:
        for pid in self.peak_rss:
            self.peak_rss[pid] = max(self.peak_rss[pid], _status_bytes(pid, "VmHWM"))
        try:
            spilled = self.client.run_on_scheduler(_scheduler_spilled, wait=True)
        except Exception:  # the scheduler is busy or shutting down: keep the last peak
            return
        for address, nbytes in spilled.items():
            self.peak_spilled[address] = max(self.peak_spilled.get(address, 0), nbytes)


def _scheduler_spilled(dask_scheduler: Any) -> dict[str, int]:
    return {a: ws.memory.spilled for a, ws in dask_scheduler.workers.items()}


def _spill_totals(dask_worker: Any) -> dict[str, float]:
    """Cumulative bytes this worker wrote to and read from its spill directory.

    Also the bytes its P2P exchanges buffered on disk and read back (the P2P
    extension keeps them outside the spill directory; each is read once).
    """
    metrics = getattr(dask_worker.data, "cumulative_metrics", {})
    p2p = sum(
        value
        for key, value in dask_worker.digests_total.items()
        if isinstance(key, tuple) and key[0] == "p2p" and key[-2:] == ("disk-read", "bytes")
    )
    return {
        "written": metrics.get(("disk-write", "bytes"), 0.0),
        "read": metrics.get(("disk-read", "bytes"), 0.0),
        "p2p": float(p2p),
    }


class _LostWorkers(logging.Handler):
    """Counts the nannies' reports of a worker process that died or was restarted."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if any(word in text.lower() for word in ("restart", "killed", "exceeded", "died")):
            self.messages.append(text)


def _read_floor(frame: Any) -> float:
    """Seconds to read the two columns and sum each: what any one pass over the data costs."""
    import dask

    started = time.perf_counter()
    dask.compute(frame["label"].sum(), frame["score"].sum())
    return time.perf_counter() - started


def _one_pass_state(frame: Any) -> dict:
    """Time :func:`dask_auc.roc_state` (one read, no exchange) and its certified bounds."""
    import dask_auc

    started = time.perf_counter()
    state = dask_auc.roc_state(frame["label"], frame["score"])
    seconds = time.perf_counter() - started
    bounds = state.auc()
    return {"seconds": seconds, "bounds": bounds, "bins": state.n_bins}


def run_on_cluster(
    path: Path,
    workers: int,
    memory_limit: str,
    threads: int,
    by: bool = False,
    states: bool = False,
    exact: bool = True,
    reliability: bool = False,
) -> dict:
    """Compute the AUC of the Parquet files in ``path``; return the measurements.

    With ``by``: the grouped AUC by ``user`` too, timed after the plain AUC.
    With ``states``: the read floor (read and sum the two columns) and the
    one-pass :func:`dask_auc.roc_state`, each timed twice (the first read
    warms the page cache for both), before the exact AUC; ``exact=False``
    skips the exact AUC.
    """
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import dask_auc

    lost = _LostWorkers()
    for name in ("distributed.nanny", "distributed.scheduler", "distributed.worker"):
        logging.getLogger(name).addHandler(lost)
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=threads,
            memory_limit=memory_limit,
            processes=True,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        frame = dd.read_parquet(str(path), columns=["label", "score"])
        one_pass = None
        if states:
            floors, passes = [], []
            for _ in range(2):  # alternating, each twice: the page cache warm for both
                floors.append(_read_floor(frame))
                passes.append(_one_pass_state(frame))
            one_pass = min(passes, key=lambda p: p["seconds"])
            one_pass["floor"] = min(floors)
            one_pass["all_seconds"], one_pass["all_floors"] = [p["seconds"] for p in passes], floors
        auc, seconds = None, float("nan")
        with WorkerWatch(client) as watch:
            if exact:
                started = time.perf_counter()
                auc = dask_auc.roc_auc_score(frame["label"], frame["score"])
                seconds = time.perf_counter() - started
        grouped = None
        if by:
            users = dd.read_parquet(str(path), columns=["user", "label", "score"])
            started = time.perf_counter()
            result = dask_auc.grouped_roc_auc_score(users, by="user", label="label", score="score")
            grouped = {
                "seconds": time.perf_counter() - started,
                "gauc": result.gauc,
                "groups": len(result.per_group),
                "auc": result.per_group["auc"],
                # the processes' high-water marks: the peak of both runs
                "peak_rss": [_status_bytes(pid, "VmHWM") for pid in watch.pids.values()],
            }
        pids_after = client.run(os.getpid)
        replaced = sorted(set(watch.pids.values()) - set(pids_after.values()))
        spill = client.run(_spill_totals)
        partitions = frame.npartitions
        calibration = None
        if reliability:  # fresh workers: their peak RSS is this run's alone
            counted = len(lost.messages)
            client.restart()
            del lost.messages[counted:]  # the restart asked for is no worker lost
            with WorkerWatch(client) as watch_diagram:
                started = time.perf_counter()
                diagram = dask_auc.reliability_diagram(frame["label"], frame["score"])
                calibration = {
                    "seconds": time.perf_counter() - started,
                    "brier": diagram.brier._asdict(),
                    "steps": len(diagram.low),
                }
            calibration["peak_rss"] = list(watch_diagram.peak_rss.values())
            calibration["peak_spilled"] = list(watch_diagram.peak_spilled.values())
            after = client.run(os.getpid)  # workers lost during the diagram's run
            replaced += sorted(set(watch_diagram.pids.values()) - set(after.values()))
    return {
        "auc": auc,
        "seconds": seconds,
        "partitions": partitions,
        "peak_rss": list(watch.peak_rss.values()),
        "peak_spilled": list(watch.peak_spilled.values()),
        "spill_written": [s["written"] for s in spill.values()],
        "spill_read": [s["read"] for s in spill.values()],
        "p2p_disk": [s["p2p"] for s in spill.values()],
        "replaced_pids": replaced,
        "lost_messages": lost.messages,
        "grouped": grouped,
        "one_pass": one_pass,
        "calibration": calibration,
    }


# -- report -------------------------------------------------------------------------------


def _gib(values: list[float]) -> str:
    return " / ".join(f"{v / GIB:.2f}" for v in values) if values else "n/a"


def _seconds(values: list[float]) -> str:
    return ", ".join(f"{s:.1f}" for s in values)


def _machine_load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def report(args: argparse.Namespace, record: dict, result: dict, load: tuple[str, str]) -> str:
    expected = exact_auc(record)
    killed = len(result["replaced_pids"]) + len(result["lost_messages"])
    if result["auc"] is None:
        exact_rows = [("AUC time (read_parquet -> float)", "not run (--no-exact)")]
        answer_rows = [("exact AUC (integer counts)", repr(expected))]
    else:
        same = result["auc"] == expected
        exact_rows = [
            ("AUC time (read_parquet -> float)", f"{result['seconds']:.1f} s"),
            ("rows per second", f"{record['rows'] / result['seconds'] / 1e6:.1f} million"),
        ]
        answer_rows = [
            ("dask-auc AUC", repr(result["auc"])),
            ("exact AUC (integer counts)", repr(expected)),
            ("equal", "yes" if same else f"NO (difference {result['auc'] - expected:.3g})"),
        ]
    rows = [
        ("rows", f"{record['rows']:,} ({record['positives']:,} positive)"),
        ("score dtype / distinct scores", f"{record['dtype']} / {record['distinct_scores']:,}"),
        ("files / partitions", f"{record['files']} / {result['partitions']}"),
        ("Parquet on disk", f"{record['bytes_on_disk'] / GIB:.2f} GiB"),
        ("generation", f"{record['generation_seconds']:.0f} s (skipped if present)"),
        ("cluster", f"{args.workers} workers x {args.threads} thread, {args.memory_limit} each"),
        *exact_rows,
        ("peak RSS per worker (VmHWM)", f"{_gib(result['peak_rss'])} GiB"),
        ("peak bytes on disk per worker", f"{_gib(result['peak_spilled'])} GiB"),
        ("P2P exchange buffered on disk and read back", f"{_gib(result['p2p_disk'])} GiB"),
        (
            "spilled (written / read back)",
            f"{_gib(result['spill_written'])} GiB written, {_gib(result['spill_read'])} GiB read",
        ),
        ("workers killed or restarted", str(killed)),
        *answer_rows,
    ]
    one_pass = result.get("one_pass")
    if one_pass is not None:
        bounds = one_pass["bounds"]
        inside = bounds.lower <= expected <= bounds.upper
        rows += [
            (
                "read floor (read and sum both columns; best of 2)",
                f"{one_pass['floor']:.1f} s ({_seconds(one_pass['all_floors'])})",
            ),
            (
                "roc_state, one pass (best of 2)",
                f"{one_pass['seconds']:.1f} s ({_seconds(one_pass['all_seconds'])})",
            ),
            ("roc_state / read floor", f"{one_pass['seconds'] / one_pass['floor']:.2f}x"),
            ("state bins", f"{one_pass['bins']:,}"),
            (
                "certified bounds (lower, upper; width)",
                f"{bounds.lower!r}, {bounds.upper!r}; {bounds.width:.3g}",
            ),
            ("exact AUC inside the bounds", "yes" if inside else "NO"),
        ]
    calibration = result.get("calibration")
    if calibration is not None:
        reference = calibration.get("reference")
        got = calibration["brier"]
        rows += [
            ("reliability_diagram time", f"{calibration['seconds']:.1f} s"),
            (
                "reliability_diagram / AUC time",
                f"{calibration['seconds'] / result['seconds']:.2f}x",
            ),
            ("its peak RSS per worker (VmHWM)", f"{_gib(calibration['peak_rss'])} GiB"),
            ("its peak bytes on disk per worker", f"{_gib(calibration['peak_spilled'])} GiB"),
            ("PAV steps", f"{calibration['steps']:,}"),
            (
                "Brier score, MCB, DSC, UNC",
                ", ".join(
                    f"{got[k]!r}"
                    for k in ("score", "miscalibration", "discrimination", "uncertainty")
                ),
            ),
        ]
        if reference is not None:
            rows.append(
                (
                    "largest relative difference from IsotonicRegression's",
                    f"{calibration['difference']:.2g}",
                )
            )
    grouped = result.get("grouped")
    if grouped is not None:
        checked = record["checked_users"]
        wrong = [
            user
            for user, want in checked.items()
            if want is not None and grouped["auc"].get(int(user)) != want
        ]
        rows += [
            ("grouped AUC time (by user)", f"{grouped['seconds']:.1f} s"),
            ("grouped / plain AUC time", f"{grouped['seconds'] / result['seconds']:.2f}x"),
            ("users / GAUC", f"{grouped['groups']:,} / {grouped['gauc']!r}"),
            ("peak RSS per worker, both runs", f"{_gib(grouped['peak_rss'])} GiB"),
            *_heavy_rows(record, grouped),
            (
                "checked users equal to exact counts",
                f"{len(checked) - len(wrong)} of {len(checked)}"
                + (f" (NOT: {wrong[:5]})" if wrong else ""),
            ),
        ]
    lines = [
        f"# Out of core, {datetime.date.today().isoformat()}",
        "",
        "```bash",
        "python " + " ".join(sys.argv),
        "```",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / GIB:.0f} GiB, "
        f"Python {platform.python_version()}; before: {load[0]}; after: {load[1]}.",
        "",
        "| measure | value |",
        "| --- | --- |",
        *[f"| {name} | {value} |" for name, value in rows],
    ]
    if result["lost_messages"]:
        lines += ["", "Worker messages:", *[f"- {m}" for m in result["lost_messages"]]]
    return "\n".join(lines) + "\n"


def _heavy_rows(record: dict, grouped: dict) -> list[tuple[str, str]]:
    heavy = record.get("heavy_user")
    if heavy is None:
        return []
    got = grouped["auc"].get(heavy["id"])
    share = heavy["rows"] / record["rows"]
    return [
        (
            f"heavy user {heavy['id']} ({heavy['rows']:,} rows, {share:.1%})",
            f"AUC {got!r}, exact {heavy['auc']!r}: " + ("equal" if got == heavy["auc"] else "NOT"),
        )
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=100_000_000)
    parser.add_argument("--file-rows", type=lambda t: int(float(t)), default=10_000_000)
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float64")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="default: /tmp/dask-auc-out-of-core/<rows>-<dtype>",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="threads per worker")
    parser.add_argument("--memory-limit", default="6GiB")
    parser.add_argument("--generate-only", action="store_true")
    parser.add_argument(
        "--by",
        type=lambda t: int(float(t)),
        default=0,
        help="users: add a user column and time the grouped AUC by it",
    )
    parser.add_argument("--check-every", type=int, default=100_003)
    parser.add_argument(
        "--heavy",
        type=float,
        default=0.0,
        help="with --by: this share of the rows goes to one more user (id USERS)",
    )
    parser.add_argument(
        "--states",
        action="store_true",
        help="also time the read floor and the one-pass roc_state (certified bounds)",
    )
    parser.add_argument(
        "--no-exact", action="store_true", help="skip the exact AUC (with --states)"
    )
    parser.add_argument(
        "--reliability",
        action="store_true",
        help="also the reliability diagram, after the AUC, checked against IsotonicRegression",
    )
    parser.add_argument("--output", type=Path, help="also append the report to this file")
    args = parser.parse_args(argv)
    name = f"{args.rows:.0e}-{args.dtype}" + (f"-by-{args.by:.0e}" if args.by else "")
    name += f"-heavy-{args.heavy:g}" if args.heavy else ""
    path = args.data_dir or Path("/tmp/dask-auc-out-of-core") / name
    record = generate_dataset(
        path,
        args.rows,
        args.file_rows,
        args.dtype,
        args.seed,
        args.by,
        args.check_every,
        args.heavy,
    )
    print(json.dumps(record, indent=1))
    if args.generate_only:
        return 0
    before = _machine_load()
    result = run_on_cluster(
        path,
        args.workers,
        args.memory_limit,
        args.threads,
        bool(args.by),
        states=args.states,
        exact=not args.no_exact,
        reliability=args.reliability,
    )
    calibration_ok = True
    if result["calibration"] is not None:
        reference = reference_brier(path)
        result["calibration"]["reference"] = reference
        if reference is not None:
            got = result["calibration"]["brier"]
            difference = max(abs(got[k] - v) / max(abs(v), 1e-300) for k, v in reference.items())
            result["calibration"]["difference"] = difference
            calibration_ok = difference <= 1e-12
    text = report(args, record, result, (before, _machine_load()))
    print(text)
    if args.output:
        with open(args.output, "a") as output:
            output.write(text + "\n")
    grouped_ok = result["grouped"] is None or "NOT" not in text
    exact_ok = result["auc"] is None or result["auc"] == exact_auc(record)
    one_pass = result["one_pass"]
    bounds_ok = one_pass is None or (
        one_pass["bounds"].lower <= exact_auc(record) <= one_pass["bounds"].upper
    )
    return 0 if exact_ok and grouped_ok and bounds_ok and calibration_ok else 1


if __name__ == "__main__":
    sys.exit(main())
