"""The NumPy kernels alone, with no scheduler: sort, split, summarize, partial AUC."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from references import pairwise_auc
from sklearn.metrics import roc_auc_score as sklearn_auc
from strategies import scored_rows

from dask_auc._kernels import (
    _cut_positions,
    assemble_bucket,
    block_meta,
    plan_sort,
    prepare_block,
    split_block,
    summarize_bucket,
)
from dask_auc._partial_auc import cut_bucket, locate_crossing, mcclish, partial_area
from dask_auc._summary import merge_run


def _pipeline(y, s, w, cuts, n_buckets):
    """Run every kernel by hand over blocks cut at ``cuts``; return summaries and buckets."""
    blocks = [
        prepare_block(y[a:b], s[a:b], None if w is None else w[a:b])
        for a, b in zip(cuts[:-1], cuts[1:])
    ]
    plan = plan_sort([block_meta(b, 16 * n_buckets) for b in blocks], n_buckets)
    pieces = [split_block(b, plan) for b in blocks]
    buckets = [assemble_bucket(*[p[k] for p in pieces]) for k in range(n_buckets)]
    return [summarize_bucket(b) for b in buckets], buckets


@given(scored_rows(), st.data(), st.integers(1, 12))
def test_kernel_pipeline_reproduces_the_exact_pair_count(rows, data, n_buckets):
    y, s, _ = rows
    n = len(y)
    cuts = [0, *sorted(data.draw(st.lists(st.integers(0, n), max_size=5))), n]
    summaries, _ = _pipeline(y, s, None, cuts, n_buckets)
    whole = merge_run(summaries)
    assert whole.twice_area / (2 * whole.pos * whole.neg) == pairwise_auc(y, s)


@given(scored_rows(min_size=3), st.data(), st.integers(1, 9), st.floats(0.01, 0.99))
def test_partial_area_kernels_match_sklearn(rows, data, n_buckets, max_fpr):
    y, s, w = rows
    n = len(y)
    cuts = [0, *sorted(data.draw(st.lists(st.integers(0, n), max_size=4))), n]
    summaries, buckets = _pipeline(y, s, None, cuts, n_buckets)
    crossing = locate_crossing(summaries, max_fpr)
    cuts_found = [cut_bucket(b, crossing, k) for k, b in enumerate(buckets)]
    assert sum(c is not None for c in cuts_found) == 1
    area, pos, neg = partial_area(summaries, crossing, cuts_found)
    assert mcclish(area / (pos * neg), max_fpr) == pytest.approx(
        sklearn_auc(y, s, max_fpr=max_fpr), abs=1e-12
    )


def test_buckets_are_sorted_descending_and_balanced_under_heavy_ties():
    rng = np.random.default_rng(0)
    n = 100_000
    y = rng.integers(0, 2, n)
    s = rng.random(n)
    s[rng.random(n) < 0.5] = 0.0  # half of all rows share one score
    summaries, buckets = _pipeline(y, s, None, [0, 30_000, 30_000, 70_000, n], 10)
    sizes = np.array([len(b.pos) + len(b.neg) for b in buckets])
    assert sizes.sum() == n
    assert sizes.max() <= 2 * n / 10, sizes
    for higher, lower in zip(summaries, summaries[1:]):
        if not higher.is_empty and not lower.is_empty:
            assert higher.bottom.score >= lower.top.score
    whole = merge_run(summaries)
    assert whole.twice_area / (2 * whole.pos * whole.neg) == pytest.approx(sklearn_auc(y, s), abs=1e-12)


def test_only_a_hundred_distinct_scores_still_balance():
    rng = np.random.default_rng(1)
    n = 50_000
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 100, n) / 100
    _, buckets = _pipeline(y, s, None, [0, 25_000, n], 40)
    sizes = np.array([len(b.pos) + len(b.neg) for b in buckets])
    assert sizes.max() <= 3 * n / 40, sizes


def test_cut_positions_spread_a_repeated_splitter_and_keep_single_ties_whole():
    scores = np.array([0.1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.9])
    # 0.5 appears twice among the splitters: its six rows are cut in three parts
    assert _cut_positions(scores, np.array([0.5, 0.5])).tolist() == [0, 3, 5, 8]
    # once: all ties of 0.5 stay together, below the cut
    assert _cut_positions(scores, np.array([0.5])).tolist() == [0, 7, 8]


def test_prepare_block_drops_zero_weights_after_counting_classes():
    block = prepare_block(np.array([0, 1, 1]), np.array([0.3, 0.2, 0.1]), np.array([0.0, 1.0, 2.0]))
    assert block.classes == (0, 1)
    assert len(block.by_label[0]) == 0
    assert block.by_label[1].weights.tolist() == [2.0, 1.0]


def test_prepare_block_reports_misaligned_lengths_instead_of_guessing():
    block = prepare_block([0, 1, 1], [0.1, 0.2])
    assert block.lengths == (3, 2) and block.by_label == {}


@given(scored_rows(weighted=True))
def test_weighted_summary_equals_weighted_pair_count(rows):
    y, s, w = rows
    keep = w > 0
    summaries, _ = _pipeline(y, s, w, [0, len(y)], 3)
    whole = merge_run(summaries)
    if whole.pos == 0 or whole.neg == 0:
        return
    assert whole.area / (whole.pos * whole.neg) == pytest.approx(
        pairwise_auc(y[keep], s[keep], w[keep]), abs=1e-12
    )
