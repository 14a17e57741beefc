#!/usr/bin/env bash
# numba's loops compiled for the baseline-SIMD pass (.ci/baseline_tests.sh) ahead of it, in
# the background of the suite's step (README's test command starts it beside the docs
# build): numba keys its cache by CPU name, so that pass's NUMBA_CPU_NAME=generic finds the
# loops of .ci/compile_numba.sh unusable, and its two workers spent ~45 s compiling them
# all again at its start, with nothing else to run.  One process, so that it takes at most
# one core from the suite; its own cache directory (BASELINE_NUMBA_CACHE, which
# baseline_tests.sh reads too), so that its writes never touch the index files the suite's
# processes read; its lock files in a temporary directory of its own, so that the suite's
# processes, which compile or load the loops for this CPU behind locks of the same names,
# never wait for it.  What it has not compiled by then, the baseline pass compiles as before.
# (Tried before without its own cache directory, CI runs 14-16: at `nice 19` the suite
# starved it; at the normal priority the suite took 581 s against 481.)
# Usage: bash .ci/baseline_compile.sh [PYTHON]   (default python3)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
export NUMBA_CACHE_DIR=${BASELINE_NUMBA_CACHE:-$PWD/.numba-baseline}
locks=$(mktemp -d)
trap 'rm -rf "$locks"' EXIT
compile='from dask_auc._kernels.sort import compiled
import importlib.util
import sys
if importlib.util.find_spec("numba") is None:
    sys.exit(0)  # the baseline pass then runs without numba too
sys.exit(0 if compiled.compile_now(timeout=900) else "numba is installed but its loops did not compile")'
start=$SECONDS
TMPDIR=$locks "$python" .ci/baseline_simd.py "$python" -c "$compile" >/dev/null
echo "baseline loops compiled in $((SECONDS - start)) s"
