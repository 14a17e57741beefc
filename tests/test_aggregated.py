"""Blocks of few distinct scores are aggregated (score, count): the answers stay the rows' answers.

``prepare_block`` hashes a block of few distinct scores into one entry per
(score, class) with its row count (an integer multiplicity) or its summed
weight; sorted rows that turn out tied become runs.  Every metric must read
the same numbers from such entries as from the rows: unweighted results
bit-identical (exact integers), weighted ones equal for weights whose sums
are exact (small dyadic values).  The data here are too small for the probe,
so each mode forces its path:

* ``rows``: never aggregate;
* ``hashed``: every block aggregated (``few_distinct`` always true);
* ``mixed``: every other block aggregated, the others sorted as rows;
* ``runs``: sorted rows turned into runs (``_as_runs``), never hashed.
"""

from __future__ import annotations

import itertools
import math

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics

import dask_auc
from dask_auc._kernels.core.summary import merge_run
from dask_auc._kernels.sort import prepare as prepare_module
from dask_auc._kernels.sort import rows as rows_module
from dask_auc._kernels.sort.aggregate import aggregated_rows
from dask_auc._kernels.sort.buckets import Bucket, assemble_bucket, split_block, summarize_bucket
from dask_auc._kernels.sort.plan import plan_sort
from dask_auc._kernels.sort.prepare import block_meta, few_distinct, prepare_block
from dask_auc._kernels.sort.rows import SortedScores
from references import counting_auc
from strategies import boundaries, dask_array, examples

MODES = ("rows", "hashed", "mixed", "runs")


def _force(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    if mode == "rows":
        monkeypatch.setattr(rows_module, "AGGREGATE_MIN_ROWS", 2**62)
    elif mode == "hashed":
        monkeypatch.setattr(
            prepare_module, "few_distinct", lambda scores, hashed=False: len(scores) > 0
        )
    elif mode == "mixed":
        turn = itertools.cycle([True, False])
        monkeypatch.setattr(
            prepare_module,
            "few_distinct",
            lambda scores, hashed=False: len(scores) > 0 and next(turn),
        )
        monkeypatch.setattr(rows_module, "AGGREGATE_MIN_ROWS", 2**62)  # the others stay rows
    else:
        monkeypatch.setattr(prepare_module, "few_distinct", lambda scores, hashed=False: False)
        monkeypatch.setattr(rows_module, "AGGREGATE_MIN_ROWS", 0)
        monkeypatch.setattr(rows_module, "_TIE_PROBES", 4)


@pytest.fixture(params=MODES)
def mode(request, monkeypatch):
    _force(monkeypatch, request.param)
    with dask.config.set(scheduler="sync"):
        yield request.param


def _tied(n: int, distinct: int, seed: int, dtype=np.float64):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(np.int8)
    y[:2] = [0, 1]
    raw = rng.integers(0, distinct, n) + y * rng.integers(0, 3, n)
    return y, (raw.astype(dtype) if dtype != np.float64 else raw / distinct)


def _chunks(n: int, parts: int) -> tuple[int, ...]:
    edges = [n * i // parts for i in range(parts + 1)]
    return tuple(b - a for a, b in zip(edges[:-1], edges[1:], strict=True))


# -- the kernels alone -------------------------------------------------------------------


def test_aggregated_rows_count_each_score_and_class():
    scores = np.array([0.5, 0.1, 0.5, -0.0, 0.0, 0.5])
    positive = np.array([1, 0, 1, 1, 0, 0], bool)
    neg, pos = aggregated_rows(scores, None, positive)
    assert neg.counted and pos.counted
    assert neg.scores.tolist() == [0.0, 0.1, 0.5] and neg.weights.tolist() == [1, 1, 1]
    assert pos.scores.tolist() == [0.0, 0.5] and pos.weights.tolist() == [1, 2]
    assert (neg.total, pos.total) == (3, 3) and isinstance(pos.total, int)
    (weighted,) = aggregated_rows(scores, np.array([1.0, 2, 0.5, 0.25, 0.25, 4]))
    assert weighted.scores.tolist() == [0.0, 0.1, 0.5]
    # dyadic weights: every sum exact, in any order
    assert weighted.weights.tolist() == [0.5, 2.0, 5.5] and not weighted.counted


def test_probe_tells_tied_from_continuous_blocks():
    rng = np.random.default_rng(0)
    n = 1 << 17
    assert few_distinct(np.round(rng.random(n), 3))
    assert few_distinct(rng.integers(0, 50, n))
    assert not few_distinct(rng.random(n))
    half = rng.random(n)
    half[: n // 2] = 0.0  # a heavy tie beside continuous scores: rows, spread by the sort
    assert not few_distinct(half)
    assert not few_distinct(np.round(rng.random(1000), 1))  # too small to bother
    # ~8,000 distinct scores in 2**21 rows: Chao1's estimate (~4,400) lets the hash take them,
    # not in a block 16x smaller, nor ~7e4 distinct (4 decimals) in the large one
    normal = rng.standard_normal(1 << 21)
    assert few_distinct(np.round(normal, 3), hashed=True)
    assert not few_distinct(np.round(normal, 3))  # Arrow's group_by: slower than the sort there
    assert not few_distinct(np.round(normal[: 1 << 17], 3), hashed=True)
    assert not few_distinct(np.round(normal, 4), hashed=True)


def test_prepare_block_aggregates_a_large_tied_block():
    y, s = _tied(1 << 17, 40, seed=1)
    block = prepare_block(y, s)
    assert all(part.counted for part in block.by_label.values())
    assert sum(len(p) for p in block.by_label.values()) <= 2 * 42
    assert block.by_label[1].total == int(y.sum())
    rows = prepare_block(y, s + np.random.default_rng(2).random(len(s)) * 1e-9)
    assert not any(part.counted for part in rows.by_label.values())


def _summary_of_blocks(blocks, n_buckets=3):
    metas = [block_meta(b, 16) for b in blocks]
    plan = plan_sort(metas, n_buckets)
    pieces = [split_block(b, plan) for b in blocks]
    buckets = [assemble_bucket(*[p[k] for p in pieces]) for k in range(plan.n_buckets)]
    return [summarize_bucket(b) for b in buckets]


@pytest.mark.float_order
def test_mixed_buckets_merge_rows_and_entries_exactly(monkeypatch):
    """Aggregated blocks beside row blocks, tied or continuous: the same exact summaries."""
    rng = np.random.default_rng(3)
    blocks_data = [_tied(3000, 7, seed) for seed in range(3)]
    y, s = rng.integers(0, 2, 3000), rng.random(3000)
    s[:1000] = 0.5  # continuous rows around a tie the tied blocks share
    blocks_data.append((y, s))
    monkeypatch.setattr(rows_module, "AGGREGATE_MIN_ROWS", 0)
    aggregated = [
        prepare_block(y, s) if k % 2 == 0 else _rows_block(monkeypatch, y, s)
        for k, (y, s) in enumerate(blocks_data)
    ]
    assert any(p.counted for b in aggregated for p in b.by_label.values())
    monkeypatch.setattr(rows_module, "AGGREGATE_MIN_ROWS", 2**62)
    rows = [prepare_block(y, s) for y, s in blocks_data]
    assert not any(p.counted for b in rows for p in b.by_label.values())
    expected = merge_run(_summary_of_blocks(rows))
    got = merge_run(_summary_of_blocks(aggregated))
    assert (got.pos, got.neg, got.strict, got.tied) == (
        expected.pos,
        expected.neg,
        expected.strict,
        expected.tied,
    )
    y_all = np.concatenate([y for y, _ in blocks_data])
    s_all = np.concatenate([s for _, s in blocks_data])
    assert got.auc() == pytest.approx(metrics.roc_auc_score(y_all, s_all), abs=1e-15)


def _rows_block(monkeypatch, y, s):
    with monkeypatch.context() as patch:
        patch.setattr(rows_module, "AGGREGATE_MIN_ROWS", 2**62)
        return prepare_block(y, s)


def test_huge_multiplicities_stay_exact():
    """Counts far beyond float precision: pair counts are exact Python ints."""
    big = 3 * 2**40 + 1
    pos = SortedScores(np.array([0.2, 0.7]), np.array([big, 5], np.int64))
    neg = SortedScores(np.array([0.2, 0.5]), np.array([big - 2, big + 3], np.int64))
    summary = summarize_bucket(Bucket.binary(pos, neg))
    assert summary.pos == big + 5 and summary.neg == 2 * big + 1
    assert summary.strict == 5 * (2 * big + 1)
    assert summary.tied == big * (big - 2)
    assert isinstance(summary.strict, int) and isinstance(summary.tied, int)
    assert summary.bottom.pos == big and summary.bottom.neg == big - 2
    # products beyond int64 switch to Python ints
    huge = SortedScores(np.array([0.9]), np.array([2**62], np.int64))
    assert summarize_bucket(Bucket.binary(huge, neg)).strict == 2**62 * (2 * big + 1)


# -- every metric, each path -----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8])
@pytest.mark.float_order
def test_auc_and_partial_auc_are_the_rows_answers(mode, dtype):
    y, s = _tied(4000, 9, seed=5, dtype=dtype)
    chunks = _chunks(len(y), 5)
    y_true, y_score = da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks)
    assert dask_auc.roc_auc_score(y_true, y_score) == counting_auc(y, s)  # exact
    for max_fpr in (0.05, 0.3, 1.0):
        got = dask_auc.roc_auc_score(y_true, y_score, max_fpr=max_fpr)
        assert got == pytest.approx(metrics.roc_auc_score(y, s, max_fpr=max_fpr), abs=1e-12)


@pytest.mark.float_order
def test_weights_with_zeros(mode):
    y, s = _tied(3000, 6, seed=6)
    w = np.random.default_rng(7).choice([0.0, 0.5, 1.0, 2.0, 4.0], len(y))
    chunks = _chunks(len(y), 4)
    args = [da.from_array(a, chunks=chunks) for a in (y, s, w)]
    got = dask_auc.roc_auc_score(args[0], args[1], sample_weight=args[2])
    assert got == metrics.roc_auc_score(y, s, sample_weight=w)  # dyadic weights: exact sums
    fpr, tpr, thr = dask_auc.roc_curve(*args[:2], sample_weight=args[2])
    ref = metrics.roc_curve(y, s, sample_weight=w)
    for a, b in zip((fpr, tpr, thr), ref, strict=True):
        np.testing.assert_array_equal(a, b)  # exact running sums, each rate divided once
    got_ap = dask_auc.average_precision_score(args[0], args[1], sample_weight=args[2])
    assert got_ap == pytest.approx(metrics.average_precision_score(y, s, sample_weight=w))


@pytest.mark.parametrize("drop", [True, False])
@pytest.mark.float_order
def test_curves_ap_and_ks_are_the_rows_answers(mode, drop):
    y, s = _tied(5000, 30, seed=8)
    chunks = _chunks(len(y), 6)
    y_true, y_score = da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks)
    for ours, theirs in (
        (dask_auc.roc_curve, metrics.roc_curve),
        (dask_auc.precision_recall_curve, metrics.precision_recall_curve),
    ):
        got = ours(y_true, y_score, drop_intermediate=drop)
        for a, b in zip(got, theirs(y, s, drop_intermediate=drop), strict=True):
            np.testing.assert_array_equal(a, b)
    ap = dask_auc.average_precision_score(y_true, y_score)
    assert ap == pytest.approx(metrics.average_precision_score(y, s), abs=1e-15)
    ks = dask_auc.ks_statistic(y_true, y_score)
    fpr, tpr, thresholds = metrics.roc_curve(y, s, drop_intermediate=False)
    assert ks.statistic == pytest.approx(np.max(tpr - fpr), abs=1e-15)
    assert ks.threshold == thresholds[np.argmax(tpr - fpr)]


@pytest.mark.float_order
def test_delong_interval_is_the_rows_answer(mode, monkeypatch):
    y, s = _tied(3000, 12, seed=9)
    chunks = _chunks(len(y), 4)
    ci = dask_auc.roc_auc_ci(da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks))
    _force(monkeypatch, "rows")
    rows = dask_auc.roc_auc_ci(da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks))
    assert ci.auc == rows.auc
    assert math.isclose(ci.std_error, rows.std_error, rel_tol=1e-12)


@pytest.mark.float_order
def test_multiclass_is_the_rows_answer(mode):
    rng = np.random.default_rng(10)
    n = 3000
    y = rng.integers(0, 3, n)
    raw = rng.integers(1, 6, (n, 3)) + 3 * np.eye(3, dtype=int)[y] * rng.integers(0, 2, (n, 1))
    proba = raw / raw.sum(axis=1, keepdims=True)
    y_true = da.from_array(y, chunks=700)
    y_score = da.from_array(proba, chunks=(700, 3))
    for multi_class, average in (("ovr", "macro"), ("ovr", "micro"), ("ovo", "macro")):
        got = dask_auc.roc_auc_score(y_true, y_score, multi_class=multi_class, average=average)
        expected = metrics.roc_auc_score(y, proba, multi_class=multi_class, average=average)
        assert got == pytest.approx(expected, abs=1e-15)


# 25 examples (the profile's 60 before; each is 4 computes): the five tie levels are drawn ~5
# times each, with cuts of up to 8 partitions, empty ones included; ties across every edge
# are also pinned by the fixed cuts above (9 scores over 4,000 rows in 5 chunks, each mode)
@settings(max_examples=examples(25))
@given(
    data=st.data(),
    distinct=st.sampled_from([1, 2, 3, 7, 50]),
    seed=st.integers(0, 2**32 - 1),
)
@pytest.mark.float_order
def test_aggregated_auc_is_bit_identical_for_any_cut(data, distinct, seed):
    """Ties across partition edges, empty partitions: aggregated == rows == sklearn, exactly."""
    y, s = _tied(data.draw(st.integers(2, 400)), distinct, seed)
    cuts = data.draw(boundaries(len(y), max_parts=8))
    answers = []
    for mode in MODES:
        with pytest.MonkeyPatch.context() as patch, dask.config.set(scheduler="sync"):
            _force(patch, mode)
            answers.append(dask_auc.roc_auc_score(dask_array(y, cuts), dask_array(s, cuts)))
    assert len(set(answers)) == 1
    assert answers[0] == counting_auc(y, s)  # the exact ratio, correctly rounded
