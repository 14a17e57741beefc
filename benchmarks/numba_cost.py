"""What the optional numba kernels cost a process: the first call's compile time and memory.

Run it as a script::

    python benchmarks/numba_cost.py

Each measurement is a fresh Python process that imports dask_auc, records its
resident memory, then times ``roc_auc_score`` of 2.6e5 rows in two blocks
(above the row threshold of the compiled paths) on continuous and then tied
scores, twice each, and records its memory again.  It runs once with an
empty numba cache (``NUMBA_CACHE_DIR`` pointing at a new directory: every
loop is compiled) and once more with that cache filled (the loops are loaded),
and once with ``dask-auc.numba`` False for the baseline.  Fresh processes are
what it measures: it has no ``--in-process`` mode (``_process.py``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _process  # noqa: E402

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
before = resident_mib()
rng = np.random.default_rng(0)
n = 1 << 18
y = da.from_array((rng.random(n) < 0.3).astype(np.int8), chunks=n // 2)
result = {"rss_before_mib": before}
with dask.config.set({"dask-auc.numba": sys.argv[1] == "on"}):
    for kind, score in (("continuous", rng.random(n)), ("tied", np.round(rng.random(n), 2))):
        s = da.from_array(score, chunks=n // 2)
        times = []
        for _ in range(2):
            started = time.perf_counter()
            dask_auc.roc_auc_score(y, s)
            times.append(time.perf_counter() - started)
        result[kind] = times
result["rss_after_mib"] = resident_mib()
_process.emit(result)
"""


def measure(setting: str, cache: str) -> dict:
    """One fresh process, ``dask-auc.numba`` on or off, with numba's cache at ``cache``."""
    command = [sys.executable, "-c", _CHILD, setting]
    result = _process.run_child(command, env={"NUMBA_CACHE_DIR": cache})
    if "error" in result:
        raise SystemExit(f"numba {setting}: the measuring process failed: {result['error']}")
    return result


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        rows = [
            ("numba off", measure("off", cache)),
            ("numba, empty cache", measure("on", cache)),
            ("numba, cache filled", measure("on", cache)),
        ]
    header = ["run", "continuous: 1st, 2nd call s", "tied: 1st, 2nd call s"]
    header += ["RSS after import MiB", "RSS after MiB"]
    print("| " + " | ".join(header) + " |")
    print("| --- | --- | --- | ---: | ---: |")
    for name, r in rows:
        calls = [" / ".join(f"{t:.3f}" for t in r[kind]) for kind in ("continuous", "tied")]
        cells = [name, *calls]
        cells += [f"{r['rss_before_mib']:.0f}", f"{r['rss_after_mib']:.0f}"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
