"""Run a command as on a CPU without the running one's SIMD extensions, or print how.

Weighted results are float sums; their last bits may depend on the order of
additions, and NumPy's sorts and reductions, OpenBLAS's dot products and
numba's compiled loops each pick code for the CPU they run on.  A test that
passes only with AVX-512 (issue 20: ``152.9074670172693 !=
152.90746701726934`` on a machine with AVX2 only) fails CI elsewhere.  CI
runs the float-sensitive tests a second time with

- NumPy held to its baseline SIMD: ``NPY_DISABLE_CPU_FEATURES`` names every
  dispatched target this CPU has (NumPy refuses a name the build does not
  dispatch, and baseline features cannot be disabled);
- numba compiling for a generic CPU: ``NUMBA_CPU_NAME=generic``;
- OpenBLAS (NumPy's ``@`` / ``np.dot``) on its oldest x86-64 kernels:
  ``OPENBLAS_CORETYPE=Prescott`` (SSE3, which every CPU NumPy 2 runs on has).

Usage::

    python .ci/baseline_simd.py                 # print the NPY_DISABLE_CPU_FEATURES value
    python .ci/baseline_simd.py --env           # print all three settings
    python .ci/baseline_simd.py CMD [ARG ...]   # run CMD with them (its exit status)

Run it with the Python whose NumPy the tests use.
"""

from __future__ import annotations

import importlib
import os
import platform
import subprocess
import sys

# What this CPU has must be read with nothing disabled: NumPy applies these
# variables when it is imported, and reports disabled features as absent.
for _name in ("NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES"):
    os.environ.pop(_name, None)

import numpy as np  # noqa: E402

try:  # NumPy 2
    _umath = importlib.import_module("numpy._core._multiarray_umath")
except ImportError:  # NumPy 1.26
    _umath = importlib.import_module("numpy.core._multiarray_umath")

#: OpenBLAS's oldest x86-64 kernels (it reports them as "Katmai")
_OPENBLAS_BASELINE = "Prescott"


def disabled_features() -> list[str]:
    """NumPy's dispatched SIMD targets that this CPU has, in NumPy's order."""
    found = _umath.__cpu_features__
    return [name for name in _umath.__cpu_dispatch__ if found.get(name, False)]


def baseline_env() -> dict[str, str]:
    """The variables that hold NumPy, numba and OpenBLAS to code any CPU of this kind runs."""
    env = {"NPY_DISABLE_CPU_FEATURES": " ".join(disabled_features()), "NUMBA_CPU_NAME": "generic"}
    if platform.machine().lower() in ("x86_64", "amd64"):
        env["OPENBLAS_CORETYPE"] = _OPENBLAS_BASELINE
    return env


def _describe(env: dict[str, str]) -> str:
    """This CPU's SIMD as NumPy sees it, and what the child will run with (for CI logs)."""
    probe = (
        "try:\n    from numpy.lib._utils_impl import _opt_info\n"
        "except ImportError:\n    from numpy.lib.utils import _opt_info\n"
        "print(_opt_info())"
    )
    child = subprocess.run(
        [sys.executable, "-c", probe], env={**os.environ, **env}, capture_output=True, text=True
    )
    held = child.stdout.strip() if child.returncode == 0 else "unknown"
    baseline = " ".join(_umath.__cpu_baseline__)
    has = " ".join(disabled_features()) or "nothing beyond it"
    settings = " ".join(f"{k}={v!r}" for k, v in env.items())
    return (
        f"baseline SIMD pass: NumPy {np.__version__} on {platform.machine()}, "
        f"baseline {baseline}, this CPU adds {has}\n"
        f"  running with {settings}\n"
        f"  NumPy's SIMD then ('?': not used): {held}"
    )


def main(argv: list[str]) -> int:
    env = baseline_env()
    if not argv:
        print(env["NPY_DISABLE_CPU_FEATURES"])
        return 0
    if argv == ["--env"]:
        for name, value in env.items():
            print(f"{name}={value}")
        return 0
    print(_describe(env), flush=True)
    return subprocess.run(argv, env={**os.environ, **env}, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
