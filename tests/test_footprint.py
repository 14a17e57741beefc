"""Kernel values tell Dask their real size (``dask.sizeof``), not a few dozen bytes."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import numpy as np
import pytest
from dask.sizeof import sizeof

import dask_auc._kernels
from dask_auc._kernels.core.footprint import SizedByArrays, footprint
from dask_auc._kernels.sort.buckets import split_block
from dask_auc._kernels.sort.plan import plan_sort
from dask_auc._kernels.sort.prepare import block_meta, prepare_block

KERNEL_MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(dask_auc._kernels.__path__, "dask_auc._kernels.")
    # the compiled loops need the optional numba and hold no dataclass
    if not info.ispkg and info.name.rpartition(".")[2] != "_numba"
)


def test_prepared_block_and_pieces_are_sized_by_their_arrays():
    rng = np.random.default_rng(0)
    n = 200_000
    block = prepare_block(rng.integers(0, 2, n), rng.random(n))
    assert n * 8 <= sizeof(block) <= n * 8 + 4096
    plan = plan_sort([block_meta(block, 64)], 4)
    pieces = split_block(block, plan)
    assert sum(sizeof(piece) for piece in pieces) == pytest.approx(n * 8, rel=0.01)
    assert sizeof(pieces) == pytest.approx(n * 8, rel=0.05)  # dask samples long lists


def test_weights_and_views_count_their_own_extent():
    scores, weights = np.arange(1000.0), np.ones(1000)
    assert footprint({"a": (scores[:10], weights[:10])}) == 160
    assert footprint([scores, None]) == 8000 + footprint(None)


@pytest.mark.parametrize("module_name", KERNEL_MODULES)
def test_every_kernel_dataclass_holding_arrays_is_sized_by_them(module_name):
    module = importlib.import_module(module_name)
    for name, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ != module_name or not dataclasses.is_dataclass(cls):
            continue
        annotations = " ".join(str(f.type) for f in dataclasses.fields(cls))
        if "ndarray" in annotations or "SortedScores" in annotations:
            assert issubclass(cls, SizedByArrays), f"{module_name}.{name} hides its arrays"
