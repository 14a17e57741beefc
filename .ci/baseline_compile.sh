#!/usr/bin/env bash
# numba's loops compiled for the baseline-SIMD pass (.ci/baseline_tests.sh) ahead of it, at
# the lowest CPU priority: numba keys its disk cache by CPU name, so that pass's
# NUMBA_CPU_NAME=generic finds the cache of .ci/compile_numba.sh empty, and its two test
# workers spent their first ~30 s compiling every loop again.  .ci/docs.sh starts this
# beside the docs build, which README's test command runs beside the suite: at `nice 19`
# it takes only the cycles the suite and the build leave idle (their cluster and process
# tests wait), and what it has not compiled when they end, the baseline pass compiles as
# before (the same cache, the same result: this changes only when the compile happens).
# Its lock files go to a temporary directory of its own: the suite's processes compile
# (or load) the loops for this CPU behind locks of the same names (test_compile_lock.py
# looks at them), and must not wait for this one.
# Usage: bash .ci/baseline_compile.sh [PYTHON]   (default python3)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
locks=$(mktemp -d)
trap 'rm -rf "$locks"' EXIT
compile='from dask_auc._kernels.sort import compiled
import importlib.util
import sys
if importlib.util.find_spec("numba") is None:
    sys.exit(0)  # the baseline pass then runs without numba too
sys.exit(0 if compiled.compile_now(timeout=900) else "numba is installed but its loops did not compile")'
TMPDIR=$locks nice -n 19 "$python" .ci/baseline_simd.py "$python" -c "$compile" >/dev/null
