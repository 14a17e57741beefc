#!/usr/bin/env bash
# The float-sensitive tests a second time, as on a CPU without this one's SIMD extensions:
# NumPy held to its baseline SIMD, numba compiling for a generic CPU, OpenBLAS on its oldest
# kernels (.ci/baseline_simd.py says which and why).  A weighted result compared bit for bit
# must be the same operations in the same order on every CPU; this pass catches one that is
# equal only with AVX-512 (issue 20).  About 1.7 minutes of CPU (2.5 min on 2 busy cores).
# Usage: bash .ci/baseline_tests.sh [PYTHON]   (default python3: the environment with the `test` extra)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
files=(
    tests/test_order.py           # stable_argsort and the tied rows' order
    tests/test_grouped_kernels.py # group_pair_sums: compensated and scaled weighted sums
    tests/test_grouped.py         # grouped AUC end to end, weighted, any layout
    tests/test_trust.py           # weight scales, float edges, sklearn parity
    tests/test_aggregated.py      # tied blocks aggregated (pyarrow and compiled hashes)
    tests/test_compiled.py        # the numba loops against the NumPy kernels
    tests/test_invariance.py      # every metric, weighted and not, under any layout
)
# Left out, not float-sensitive in another way and slow: the real process clusters (the same
# kernels as threads), the benchmark script's run, the 2,000-partition scheduling tests
# (unweighted: exact integers on any CPU), and the registry's persisted-ROC entries (the same
# kernels as their function entries).
exec "$python" .ci/baseline_simd.py "$python" -m pytest -q -p no:cacheprovider \
    -m "not cluster" \
    -k "not process_cluster and not benchmark_script and not thousands_of_tiny_partitions and not persisted-roc" \
    "${files[@]}"
