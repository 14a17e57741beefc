#!/usr/bin/env bash
# numba's loops compiled into the checkout's (empty) numba cache, before the suite and the
# docs build start: two processes, each stage's loops behind a lock of their own, so that
# they compile different stages side by side (~20 s on 2 cores).  Without this step every
# process of the suite and the docs build that starts on the empty cache joins in, and the
# two test workers wait at their session's start for stages that a notebook's worker,
# sharing the cores with everything else, holds the lock of (55 s in a CI run).
# Fails when numba is installed but its loops do not import: the suite would then test
# the NumPy paths only.
# .ci/baseline_compile.sh runs it too, for a generic CPU, in one process (COMPILE_PROCESSES=1).
# Usage: bash .ci/compile_numba.sh [PYTHON]   (default python3: the environment with the `test` extra)
set -euo pipefail
python=${1:-python3}
# numba keys a cached loop on its own file only: a loop that inlines a helper of another
# file (sort/_numba.py's walks, inlined into binary/_numba.py's merges) keeps its old
# machine code after that file changes.  So every cache file older than the newest kernel
# source is dropped first (a fresh checkout has none): an edit recompiles them all.
kernels=$("$python" -c 'import dask_auc, os; print(os.path.join(os.path.dirname(dask_auc.__file__), "_kernels"))')
newest=$(find "$kernels" -name '*.py' -printf '%T@ %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
caches=("$kernels")
if [ -n "${NUMBA_CACHE_DIR:-}" ] && [ -d "$NUMBA_CACHE_DIR" ]; then caches+=("$NUMBA_CACHE_DIR"); fi
find "${caches[@]}" \( -name '*.nbi' -o -name '*.nbc' \) ! -newer "$newest" -delete
compile='from dask_auc._kernels.sort import compiled
import importlib.util
import sys
if importlib.util.find_spec("numba") is None:
    sys.exit("numba is not installed: the test extra installs it")
sys.exit(0 if compiled.compile_now(timeout=600) else "numba is installed but its loops did not compile")'
pids=()
for _ in $(seq "${COMPILE_PROCESSES:-2}"); do
    "$python" -c "$compile" &
    pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
    wait "$pid" || status=1
done
exit "$status"
