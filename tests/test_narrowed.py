"""Doubles that are all float32 values travel narrowed through the sort, and change no result.

A float32 model's scores often reach dask-auc as float64.  On the compiled path
(numba) a large continuous block whose every score is a float32 value is held,
split and exchanged as float32, and each bucket widens its sorted rows to the
plan's float64 (:func:`dask_auc._kernels.sort.prepare.narrowed`).  These tests
hold that path to the exact AUC, to the NumPy path's curves bit for bit, and to
the wide path wherever a block or a splitter is not a float32 value.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import dask
import dask.array as da
import numpy as np
import pytest
from sklearn.metrics import precision_recall_curve as sklearn_pr_curve
from sklearn.metrics import roc_curve as sklearn_roc_curve

pytest.importorskip("numba")

import dask_auc  # noqa: E402
from dask_auc._kernels.sort.buckets import assemble_bucket, split_block  # noqa: E402
from dask_auc._kernels.sort.plan import plan_sort  # noqa: E402
from dask_auc._kernels.sort.prepare import (  # noqa: E402
    UNSPLIT_MIN_ROWS,
    block_meta,
    narrowed,
    prepare_block,
    unsplit_rows,
)
from references import exact_auc  # noqa: E402

N = 4 * UNSPLIT_MIN_ROWS


def float32_valued(rng: np.random.Generator, n: int, label: np.ndarray) -> np.ndarray:
    """A logistic model's float32 output, read as doubles (continuous: few ties)."""
    logit = rng.standard_normal(n) + 1.2 * label
    return (1 / (1 + np.exp(-logit))).astype(np.float32).astype(np.float64)


def test_narrowed_takes_only_doubles_that_are_all_float32_values() -> None:
    rng = np.random.default_rng(0)
    scores = float32_valued(rng, N, rng.random(N) < 0.3)
    scores[[0, 7]] = [-0.0, 2.0**-140]  # a float32 subnormal, and the sign of zero, kept
    narrow = narrowed(scores)
    assert narrow is not None and narrow.dtype == np.float32
    np.testing.assert_array_equal(narrow.astype(np.float64), scores)
    assert np.signbit(narrow[0]) and narrow[7] == 2.0**-140
    late = scores.copy()
    late[-1] = 0.1  # not a float32 value, after every chunk but the last
    assert narrowed(late) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # beyond float32's range: turned down, no overflow warning
        huge = scores.copy()
        huge[N // 2] = 1e300
        assert narrowed(huge) is None
    assert narrowed(scores.astype(np.float32)) is None  # narrow already: nothing to do
    assert narrowed(np.arange(10, dtype=np.int64)) is None


def test_a_prepared_block_holds_narrowed_rows_and_plans_in_the_given_dtype() -> None:
    rng = np.random.default_rng(1)
    label = (rng.random(N) < 0.3).astype(np.int8)
    block = prepare_block(label, float32_valued(rng, N, label), compiled=True)
    rows = block.unsplit
    assert rows is not None and rows.scores.dtype == np.float32
    assert rows.given == np.float64 and rows.dtype == np.float64
    assert block_meta(block, 64).score_dtype == np.float64
    # a traced sort (DeLong's, the bootstrap's) keeps its rows as given
    traced = unsplit_rows((0, 1), label, float32_valued(rng, N, label), compiled=True, ids=label)
    assert traced is not None and traced.scores.dtype == np.float64 and traced.given is None


@pytest.mark.parametrize("splitters", ["float32 values", "not float32 values"])
def test_narrowed_rows_split_into_the_buckets_of_the_given_rows(splitters: str) -> None:
    """Exact splitters cut the narrowed rows; others make the block split wide: same buckets."""
    rng = np.random.default_rng(2)
    label = (rng.random(N) < 0.3).astype(np.int8)
    scores = float32_valued(rng, N, label)
    scores[rng.random(N) < 0.2] = scores[5]  # a heavy tie: its splitter repeats, its rows dealt
    narrow = prepare_block(label, scores, compiled=True)
    assert narrow.unsplit is not None
    # the same block kept wide: the same compiled split, which deals a tie's rows in turn
    wide = replace(narrow, unsplit=replace(narrow.unsplit, scores=scores, given=None))
    plan = plan_sort([block_meta(narrow, 256)], 9)
    if splitters == "not float32 values":
        plan = type(plan)(plan.classes, plan.splitters + 1e-12, 0, plan.group_keys, True)
    else:
        plan = type(plan)(plan.classes, plan.splitters, 0, plan.group_keys, True)
        assert np.array_equal(plan.splitters.astype(np.float32), plan.splitters)
        assert len(np.unique(plan.splitters)) < len(plan.splitters)  # the tie's splitter repeats
    pieces = split_block(narrow, plan)
    piece_dtype = pieces[0].groups[1].scores.dtype
    assert piece_dtype == (np.float32 if splitters == "float32 values" else np.float64)
    for got, expected in zip(pieces, split_block(wide, plan), strict=True):
        bucket, reference = assemble_bucket(got), assemble_bucket(expected)
        for part, expected_part in zip(bucket.groups, reference.groups, strict=True):
            assert part.scores.dtype == np.float64
            assert part.counted == expected_part.counted
            np.testing.assert_array_equal(part.scores, expected_part.scores)
            np.testing.assert_array_equal(part.weights, expected_part.weights)


def _mixed_blocks(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Narrowable blocks beside a block of doubles, a small one and an empty one."""
    label = (rng.random(4 * N + 300) < 0.3).astype(np.int8)
    scores = float32_valued(rng, len(label), label)
    scores[N : 2 * N] += rng.standard_normal(N) * 1e-9  # a block that is not float32 values
    scores[3 * N : 3 * N + N // 4] = scores[3 * N]  # a heavy tie inside a narrowed block
    return label, scores, (N, N, 0, N, N, 300)


@pytest.mark.float_order
def test_mixed_blocks_give_the_exact_auc_and_the_numpy_paths_curves() -> None:
    rng = np.random.default_rng(3)
    label, scores, chunks = _mixed_blocks(rng)
    y, s = da.from_array(label, chunks=(chunks,)), da.from_array(scores, chunks=(chunks,))
    results = {}
    for flag in (True, False):
        with dask.config.set({"dask-auc.numba": flag, "dask-auc.buckets": 7}):
            results[flag] = (
                dask_auc.roc_auc_score(y, s),
                dask_auc.roc_curve(y, s),
                dask_auc.precision_recall_curve(y, s),
                dask_auc.average_precision_score(y, s),
            )
    auc, roc, pr, ap = results[True]
    assert auc == float(exact_auc(label, scores)) == results[False][0]
    assert ap == results[False][3]
    for got, expected in zip((*roc, *pr), (*results[False][1], *results[False][2]), strict=True):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    for got, expected in zip(roc, sklearn_roc_curve(label, scores), strict=True):
        np.testing.assert_array_equal(got, expected)
    assert roc[2].dtype == np.float64
    np.testing.assert_array_equal(pr[2], sklearn_pr_curve(label, scores)[2])


@pytest.mark.cluster
def test_narrowed_pieces_cross_a_process_cluster_exactly(client) -> None:
    """P2P sends the narrowed pieces between worker processes; the AUC is the exact one."""
    rng = np.random.default_rng(4)
    label, scores, chunks = _mixed_blocks(rng)
    y, s = da.from_array(label, chunks=(chunks,)), da.from_array(scores, chunks=(chunks,))
    for exchange in ("p2p", "tasks"):
        with dask.config.set({"dask-auc.exchange": exchange, "dask-auc.buckets": 5}):
            assert dask_auc.roc_auc_score(y, s) == float(exact_auc(label, scores))
