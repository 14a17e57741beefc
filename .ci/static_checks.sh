#!/usr/bin/env bash
# The static checks CI runs beside the tests: ruff's linter and formatter, and mypy
# (their settings are in pyproject.toml; ruff and mypy come with the `test` extra).
# Usage: bash .ci/static_checks.sh [PYTHON]   (default python3: the environment to run them from)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
set -x
"$python" -m ruff check src tests
"$python" -m ruff format --check src tests
"$python" -m mypy
