#!/usr/bin/env bash
# numba's loops compiled for the baseline-SIMD pass (.ci/baseline_tests.sh) ahead of it:
# numba keys its disk cache by CPU name, so that pass's NUMBA_CPU_NAME=generic finds the
# cache of .ci/compile_numba.sh empty, and its two test workers spent their first ~30 s
# compiling every loop again.  .ci/docs.sh starts this beside the docs build, which README's
# test command runs beside the suite, at the normal priority: at `nice 19` the suite starved
# it, and it compiled for 74 s after the suite had ended (CI run 15: the site built in 226 s,
# the suite 481 s, this 555 s).  What it has not compiled by the baseline pass, that pass
# compiles as before (the same cache, the same result: this changes only when it happens).
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
TMPDIR=$locks "$python" .ci/baseline_simd.py "$python" -c "$compile" >/dev/null
