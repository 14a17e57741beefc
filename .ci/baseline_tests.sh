#!/usr/bin/env bash
# The float-sensitive tests a second time, as on a CPU without this one's SIMD extensions:
# NumPy held to its baseline SIMD, numba compiling for a generic CPU, OpenBLAS on its oldest
# kernels (.ci/baseline_simd.py says which and why).  A weighted result compared bit for bit
# must be the same operations in the same order on every CPU; this pass catches one that is
# equal only with AVX-512 (issue 20).
# The tests it runs are the ones marked `float_order` (pyproject.toml): their result depends
# on the order of float operations -- weighted and compensated sums, the order of tied rows,
# the compiled loops against NumPy.  Tests of errors, graphs, keys and integer counts are
# left to the main run; so are the real process clusters (`cluster`: the same kernels as
# threads), the 2,000-partition scheduling tests (unweighted: exact integers on any CPU) and
# the registry's persisted-ROC entries (the same kernels as their function entries).  Of the
# invariance properties it keeps those that hold a result against another computation (the
# reference, one partition, NumPy against the compiled loops, a merge tree's fan-in); the
# others (bucket counts, row order, coalesced blocks and exchanges) regroup the same exact
# sums in other blocks, which the kept ones already do on this instruction set.
# Its numba loops (compiled for a generic CPU, in a cache directory of their own) were
# compiled beside the suite by .ci/baseline_compile.sh; what that has not compiled, its two
# workers compile at their start.
# Hypothesis runs its `baseline` profile (tests/conftest.py): a few examples of each property,
# the main run having drawn the many.
# Usage: bash .ci/baseline_tests.sh [PYTHON]   (default python3: the environment with the `test` extra)
set -euo pipefail
export HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-baseline}
cd "$(dirname "$0")/.."
export NUMBA_CACHE_DIR=${BASELINE_NUMBA_CACHE:-$PWD/.numba-baseline}
python=${1:-python3}
# only the files that hold such tests are collected (collecting all of tests/ takes longer
# than many of the tests)
mapfile -t files < <(grep -l "pytest.mark.float_order" tests/test_*.py)
exec "$python" .ci/baseline_simd.py "$python" -m pytest -q ${BASELINE_PYTEST_ARGS:-} -p no:cacheprovider -n 2 --dist worksteal \
    -m "float_order and not cluster" \
    -k "not thousands_of_tiny_partitions and not persisted-roc and not bucket_count_does_not and not row_order_does_not and not coalesced_partitions_and_every" \
    "${files[@]}"
