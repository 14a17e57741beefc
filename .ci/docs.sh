#!/usr/bin/env bash
# The documentation site (docs/): installs the `docs` extra into the given Python's
# environment, then builds the HTML with warnings as errors -- a broken cross-reference, a
# docstring numpydoc cannot parse, a page outside every toctree or a public name missing
# from docs/api.rst fails the build.  The docstrings' doctests run in the test suite
# (pytest --doctest-modules), not here; the notebooks are executed by the build (myst-nb) and
# rendered with their outputs.
# About 40 s from a fresh venv for the install (none when README's command installed the
# extra), 40-90 s for the build (the notebooks run), on 2 cores.
# Usage: bash .ci/docs.sh [PYTHON]   (default python3)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
# the `docs` extra, unless every one of its requirements is already met (README's test
# command installs it with the `test` extra, in one resolve)
if ! "$python" - <<'PY'
import importlib.metadata as metadata
import re
import sys

from packaging.requirements import Requirement

with open("pyproject.toml") as project:
    block = re.search(r"^docs = \[(.*?)^\]", project.read(), re.MULTILINE | re.DOTALL)
requirements = [Requirement(r) for r in re.findall(r'"([^"]+)"', block.group(1))]
try:
    met = all(r.specifier.contains(metadata.version(r.name), prereleases=True) for r in requirements)
except metadata.PackageNotFoundError:
    met = False
sys.exit(0 if met else 1)
PY
then
    "$python" -m pip install -q --no-compile -e ".[docs]"
fi
rm -rf docs/_build docs/generated   # a clean build: stale stubs could hide a warning
# the notebooks run during the build, on few rows, drawing off screen; scikit-learn's OpenMP
# threads would spin against the notebooks' local cluster on a small machine.  1e5 rows: the
# build runs beside the test suite, on the same two cores; every notebook's own checks
# (scikit-learn's numbers, xgboost's workers' mean AUC off the exact one, a state's exact
# certificate) hold on that many as on 2e5, and the pages quote no number of the data
export DASK_AUC_NOTEBOOK_ROWS="${DASK_AUC_NOTEBOOK_ROWS:-1e5}" MPLBACKEND=Agg OMP_NUM_THREADS=1
"$python" -m sphinx -W --keep-going -b html docs docs/_build/html
echo "docs: the site built in $SECONDS s"
echo "docs: $(pwd)/docs/_build/html/index.html"
