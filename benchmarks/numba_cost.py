"""What the optional numba kernels cost a process: its first calls, the compile and memory.

Run it as a script::

    python benchmarks/numba_cost.py

Each measurement is a fresh Python process that imports dask_auc, records its
resident memory, then times the first and second call of each family's
calls on ``--rows`` rows (2.6e5) in two blocks (above the row threshold of the
compiled paths), as a user's process makes them: the family's loops compile (or load)
in a background thread meanwhile (``dask_auc._kernels.sort.compiled``).  Then
it waits for the families' loops to be ready (``loops ready s``, since the
first call began), says whether they came from numba's disk cache, and
records its memory again.  Families (``--families``):

* ``main`` -- the sort's, curves' and groups' loops (~30 s of CPU cold; the certified
  states' loops are a family of their own, loaded on a process's first state):
  ``roc_auc_score`` on continuous and then on tied scores;
* ``replicates`` -- the bootstrap's loops (~5 s cold):
  ``bootstrap_ci(roc_auc)`` of 20 replicates, which uses no other family's.

It runs once with an empty numba cache (``NUMBA_CACHE_DIR`` pointing at a new
directory: every loop is compiled and written there), once more with that
cache filled (the loops are loaded), and once with ``dask-auc.numba`` False
for the baseline.  Fresh processes are what it measures: it has no
``--in-process`` mode (``_process.py``).  ``--families replicates`` is the
smallest run that shows all three (the test suite's smoke run).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _process  # noqa: E402

FAMILIES = ("main", "replicates")
#: each family's calls, in the order made (a table column each)
CALLS = {
    "main": ("roc_auc_score continuous", "roc_auc_score tied"),
    "replicates": ("bootstrap_ci continuous",),
}

_CHILD = r"""
import sys, time
import _process
import dask, dask.array as da, numpy as np

def resident_mib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")

import dask_auc
from dask_auc._kernels.sort import compiled, loading
before = resident_mib()
setting, families, n = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
rng = np.random.default_rng(0)
y = da.from_array((rng.random(n) < 0.3).astype(np.int8), chunks=n // 2)
continuous = da.from_array(rng.random(n), chunks=n // 2)
tied = da.from_array(np.round(rng.random(n), 2), chunks=n // 2)
calls = {
    "roc_auc_score continuous": lambda: dask_auc.roc_auc_score(y, continuous),
    "roc_auc_score tied": lambda: dask_auc.roc_auc_score(y, tied),
    "bootstrap_ci continuous": lambda: dask_auc.bootstrap_ci(
        y, continuous, n_bootstraps=20, random_state=0
    ),
}
names = {"main": ["roc_auc_score continuous", "roc_auc_score tied"],
         "replicates": ["bootstrap_ci continuous"]}
result = {"rss_before_mib": before}
first = time.perf_counter()
with dask.config.set({"dask-auc.numba": setting == "on", "scheduler": "threads"}):
    for family in families:
        for name in names[family]:
            times = []
            for _ in range(2):
                started = time.perf_counter()
                calls[name]()
                times.append(time.perf_counter() - started)
            result[name] = times
if setting == "on":
    stage = {"main": "sort", "replicates": "replicates"}
    for family in families:
        compiled.loops(stage[family])  # starts the family's compile, if no call did
    for family in (loading._MAIN, loading._REPLICATES):
        if family.thread is not None:
            family.thread.join()
    result["ready_s"] = time.perf_counter() - first
    result["from_cache"] = loading._cache_warm.is_set()
result["rss_after_mib"] = resident_mib()
_process.emit(result)
"""


def measure(setting: str, cache: str, args: argparse.Namespace) -> dict:
    """One fresh process, ``dask-auc.numba`` on or off, with numba's cache at ``cache``."""
    command = [sys.executable, "-c", _CHILD, setting, ",".join(args.families), str(args.rows)]
    result = _process.run_child(command, env={"NUMBA_CACHE_DIR": cache})
    if "error" in result:
        raise SystemExit(f"numba {setting}: the measuring process failed: {result['error']}")
    return result


def parse_families(text: str) -> list[str]:
    families = [f.strip() for f in text.split(",") if f.strip()]
    if not families or any(f not in FAMILIES for f in families):
        raise argparse.ArgumentTypeError(f"{text!r}: choose among {', '.join(FAMILIES)}")
    return [f for f in FAMILIES if f in families]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--families",
        type=parse_families,
        default=list(FAMILIES),
        help="the numba families whose calls are timed and whose loops are compiled: "
        f"{', '.join(FAMILIES)} (comma-separated; default: both)",
    )
    parser.add_argument(
        "--rows", type=lambda t: int(float(t)), default=1 << 18, help="rows of each call"
    )
    args = parser.parse_args(argv)
    if args.rows < 4:
        parser.error("--rows must be >= 4")
    with tempfile.TemporaryDirectory() as cache:
        rows = [
            ("numba off", measure("off", cache, args)),
            ("numba, empty cache", measure("on", cache, args)),
            ("numba, cache filled", measure("on", cache, args)),
        ]
    calls = [name for family in args.families for name in CALLS[family]]
    print(f"numba families: {', '.join(args.families)}; {args.rows:,} rows in 2 blocks, threads")
    print()
    header = ["run", *(f"{name}: 1st, 2nd call s" for name in calls)]
    header += ["loops ready s", "loops from the cache", "RSS after import MiB", "RSS after MiB"]
    print("| " + " | ".join(header) + " |")
    print("| --- |" + " --- |" * len(calls) + " ---: | --- | ---: | ---: |")
    for name, r in rows:
        cells = [name, *(" / ".join(f"{t:.3f}" for t in r[call]) for call in calls)]
        cells += (
            [f"{r['ready_s']:.2f}", "yes" if r["from_cache"] else "no"]
            if "ready_s" in r
            else ["-", "-"]
        )
        cells += [f"{r['rss_before_mib']:.0f}", f"{r['rss_after_mib']:.0f}"]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
