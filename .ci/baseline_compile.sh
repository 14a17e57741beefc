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
start=$SECONDS
# .ci/compile_numba.sh, in one process (it fails if numba is missing or its loops do not compile;
# CI's compile step before it has failed then already)
COMPILE_PROCESSES=1 TMPDIR=$locks "$python" .ci/baseline_simd.py bash .ci/compile_numba.sh "$python" >/dev/null
echo "baseline loops compiled in $((SECONDS - start)) s"
