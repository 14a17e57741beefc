"""The NumPy kernels alone, with no scheduler: sort, split, summarize, partial AUC."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sklearn_auc

from dask_auc._kernels.binary.partial import cut_bucket_at, interval_area, locate_crossings, mcclish
from dask_auc._kernels.core.summary import merge_run
from dask_auc._kernels.sort.buckets import (
    _run_pair_counts,
    assemble_bucket,
    cut_positions,
    split_block,
    summarize_bucket,
)
from dask_auc._kernels.sort.plan import plan_sort
from dask_auc._kernels.sort.prepare import block_meta, prepare_block
from dask_auc._kernels.sort.rows import SortedScores, _merge_runs, looks_tied, score_runs
from references import pairwise_auc
from strategies import scored_rows


def _pipeline(y, s, w, cuts, n_buckets):
    """Run every kernel by hand over blocks cut at ``cuts``; return summaries and buckets."""
    blocks = [
        prepare_block(y[a:b], s[a:b], None if w is None else w[a:b])
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
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
    requests = locate_crossings(summaries, (0.0, max_fpr))
    cuts_found = [cut_bucket_at(b, r) for b, r in zip(buckets, requests, strict=True)]
    # the crossing bucket, and at most one neighbour on each side cutting a shared tie out
    assert 1 <= sum(c is not None for c in cuts_found) <= 3
    partial, pos, neg = interval_area(summaries, requests, cuts_found, (0.0, max_fpr))
    assert mcclish(partial, max_fpr) == pytest.approx(sklearn_auc(y, s, max_fpr=max_fpr), abs=1e-12)


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
    for higher, lower in zip(summaries, summaries[1:], strict=False):
        if not higher.is_empty and not lower.is_empty:
            assert higher.bottom.score >= lower.top.score
    whole = merge_run(summaries)
    assert whole.twice_area / (2 * whole.pos * whole.neg) == pytest.approx(
        sklearn_auc(y, s), abs=1e-12
    )


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
    assert cut_positions(scores, np.array([0.5, 0.5])).tolist() == [0, 3, 5, 8]
    # once: all ties of 0.5 stay together, below the cut
    assert cut_positions(scores, np.array([0.5])).tolist() == [0, 7, 8]


def test_prepare_block_drops_zero_weights_after_counting_classes():
    block = prepare_block(np.array([0, 1, 1]), np.array([0.3, 0.2, 0.1]), np.array([0.0, 1.0, 2.0]))
    assert block.classes == (0, 1)
    assert len(block.by_label[0]) == 0
    assert block.by_label[1].weights.tolist() == [2.0, 1.0]


def test_prepare_block_reports_misaligned_lengths_instead_of_guessing():
    block = prepare_block([0, 1, 1], [0.1, 0.2])
    assert block.lengths.counts == (3, 2) and block.by_label == {}
    assert block.lengths.names == ("y_true", "y_score")


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


# -- the run-length paths taken by heavily tied data --------------------------------


@st.composite
def sorted_classes(draw, weighted=False):
    """Sorted positive and negative scores with few distinct values (runs), maybe weights."""
    distinct = draw(st.sampled_from([1, 2, 3, 7, 50]))
    values = st.integers(0, distinct - 1).map(lambda v: v / distinct)
    pos = np.sort(np.array(draw(st.lists(values, min_size=1, max_size=80))))
    neg = np.sort(np.array(draw(st.lists(values, min_size=1, max_size=80))))
    if not weighted:
        return SortedScores(pos), SortedScores(neg)
    weight = st.sampled_from([0.0, 0.5, 1.0, 3.0, 0.1])
    pos_w = np.array(draw(st.lists(weight, min_size=len(pos), max_size=len(pos))))
    neg_w = np.array(draw(st.lists(weight, min_size=len(neg), max_size=len(neg))))
    return SortedScores(pos, pos_w), SortedScores(neg, neg_w)


def _brute_pair_counts(pos, neg):
    """(strict, tied) pair totals by comparing every positive with every negative."""
    pw = np.ones(len(pos)) if pos.weights is None else pos.weights
    nw = np.ones(len(neg)) if neg.weights is None else neg.weights
    pair = pw[:, None] * nw[None, :]
    above = pos.scores[:, None] > neg.scores[None, :]
    level = pos.scores[:, None] == neg.scores[None, :]
    return (pair * above).sum(), (pair * level).sum()


@given(sorted_classes())
def test_run_pair_counts_equal_the_brute_force_pair_counts_exactly(classes):
    pos, neg = classes
    strict, tied = _run_pair_counts(pos, neg)
    assert (strict, tied) == tuple(int(x) for x in _brute_pair_counts(pos, neg))
    assert isinstance(strict, int) and isinstance(tied, int)


@given(sorted_classes(weighted=True))
def test_weighted_run_pair_counts_equal_the_brute_force_weighted_sums(classes):
    pos, neg = classes
    expected = _brute_pair_counts(pos, neg)
    assert _run_pair_counts(pos, neg) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@given(st.lists(st.lists(st.integers(0, 6), max_size=60), min_size=1, max_size=6))
def test_merging_runs_gives_the_sorted_concatenation(parts):
    arrays = [np.sort(np.array(p, dtype=np.float64) / 4) for p in parts]
    merged = _merge_runs([score_runs(a) for a in arrays])
    assert merged.weights is None
    np.testing.assert_array_equal(merged.scores, np.sort(np.concatenate(arrays)))


def test_tie_probe_tells_tied_from_continuous_and_ignores_tiny_arrays():
    rng = np.random.default_rng(3)
    assert looks_tied(np.sort(rng.integers(0, 1000, 100_000) / 1000))
    assert not looks_tied(np.sort(rng.random(100_000)))
    assert not looks_tied(np.zeros(10))  # too small to sample: the row path


@pytest.mark.parametrize("distinct", [1, 3, 100, 5_000])
def test_pipeline_on_large_tied_blocks_takes_the_run_paths_and_stays_exact(distinct):
    """Big enough for the tie probe to pick the run-length merge and pair count."""
    rng = np.random.default_rng(distinct)
    n = 6_000
    y = rng.integers(0, 2, n)
    s = rng.integers(0, distinct, n) / distinct + 0.2 * y * (distinct > 1)
    summaries, buckets = _pipeline(y, s, None, [0, 1_000, 1_000, 4_500, n], 3)
    for bucket in buckets:
        for part in (bucket.pos, bucket.neg):
            assert np.all(np.diff(part.scores) >= 0)
    if distinct <= 100:
        assert any(looks_tied(b.pos.scores) and looks_tied(b.neg.scores) for b in buckets)
    whole = merge_run(summaries)
    assert whole.twice_area / (2 * whole.pos * whole.neg) == pairwise_auc(y, s)
    w = rng.choice([0.0, 0.5, 2.0], n)
    summaries, _ = _pipeline(y, s, w, [0, 2_500, n], 2)
    whole = merge_run(summaries)
    assert whole.area / (whole.pos * whole.neg) == pytest.approx(
        sklearn_auc(y, s, sample_weight=w), abs=1e-12
    )


def test_a_small_block_split_over_many_buckets_shares_one_empty_piece():
    """Issue 20 item 9: a 2-row block cut for 600 buckets makes 2 pieces, not 600."""
    rng = np.random.default_rng(9)
    y, s = (rng.random(1200) < 0.3).astype(int), rng.random(1200)
    blocks = [prepare_block(y[i : i + 2], s[i : i + 2], None) for i in range(0, 1200, 2)]
    plan = plan_sort([block_meta(b, 16) for b in blocks], 600)
    pieces = split_block(blocks[0], plan)
    assert len(pieces) == 600
    filled = [p for p in pieces if any(len(g) for g in p.groups)]
    assert len(filled) <= 2 and sum(len(g) for p in filled for g in p.groups) == 2
    empty = [p for p in pieces if not any(len(g) for g in p.groups)]
    assert len({id(p) for p in empty}) == 1
    assert all(g.scores.dtype == plan.splitters.dtype for g in empty[0].groups)
