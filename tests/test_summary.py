"""PartialROC: identity, associativity, order sensitivity, tie corrections."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dask_auc import PartialROC, TieGroup, merge_adjacent
from dask_auc._kernels.core.summary import drop_bottom_group, merge_run
from dask_auc._kernels.sort.buckets import Bucket, summarize_bucket
from dask_auc._kernels.sort.rows import SortedScores
from strategies import scored_rows


def _summary_of(y, s, w=None):
    y, s = np.asarray(y), np.asarray(s)
    parts = []
    for label in (1, 0):
        rows = y == label
        order = np.argsort(s[rows])
        weights = None if w is None else np.asarray(w)[rows][order]
        parts.append(SortedScores(s[rows][order], weights))
    return summarize_bucket(Bucket.binary(*parts))


def _runs(y, s, cuts, w=None):
    """Summaries of the descending-sorted rows cut at ``cuts``, highest first."""
    order = np.argsort(-np.asarray(s), kind="stable")
    y, s = np.asarray(y)[order], np.asarray(s)[order]
    w = None if w is None else np.asarray(w)[order]
    return [
        _summary_of(y[a:b], s[a:b], None if w is None else w[a:b])
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]


@given(scored_rows(), st.data())
def test_merging_any_cut_of_sorted_rows_equals_the_whole(rows, data):
    y, s, _ = rows
    n = len(y)
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=8)))
    whole = _summary_of(y, s)
    assert merge_run(_runs(y, s, [0, *cuts, n])) == whole


@given(scored_rows(weighted=True), st.data())
def test_weighted_merge_matches_whole_to_rounding(rows, data):
    y, s, w = rows
    keep = w > 0
    y, s, w = y[keep], s[keep], w[keep]
    n = len(y)
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=6)))
    merged = merge_run(_runs(y, s, [0, *cuts, n], w))
    whole = _summary_of(y, s, w)
    assert merged.area == pytest.approx(whole.area, rel=1e-12, abs=1e-12)
    assert merged.pos == pytest.approx(whole.pos) and merged.neg == pytest.approx(whole.neg)


@given(scored_rows(max_size=60), st.data())
def test_merge_is_associative(rows, data):
    y, s, _ = rows
    n = len(y)
    a, b = sorted(data.draw(st.lists(st.integers(0, n), min_size=2, max_size=2)))
    x, y_, z = _runs(y, s, [0, a, b, n])
    assert merge_adjacent(merge_adjacent(x, y_), z) == merge_adjacent(x, merge_adjacent(y_, z))


@given(scored_rows(max_size=40))
def test_empty_run_is_the_identity(rows):
    y, s, _ = rows
    summary = _summary_of(y, s)
    empty = PartialROC.empty()
    assert merge_adjacent(empty, summary) == summary
    assert merge_adjacent(summary, empty) == summary
    assert merge_adjacent(empty, empty) == empty


def test_merge_is_not_commutative_and_rejects_wrong_order():
    high = _summary_of([1, 0], [0.9, 0.8])
    low = _summary_of([1, 0], [0.2, 0.1])
    with pytest.raises(ValueError, match="higher scores"):
        merge_adjacent(low, high)


def test_straddling_tie_group_counts_one_half_both_ways():
    # one tie group at 0.5 split over two runs: 2 pos + 1 neg above, 1 pos + 2 neg below
    above = PartialROC(2, 1, 0, 2, TieGroup(0.5, 2, 1), TieGroup(0.5, 2, 1))
    below = PartialROC(1, 2, 0, 2, TieGroup(0.5, 1, 2), TieGroup(0.5, 1, 2))
    merged = merge_adjacent(above, below)
    assert (merged.pos, merged.neg, merged.strict, merged.tied) == (3, 3, 0, 9)
    assert merged.top == merged.bottom == TieGroup(0.5, 3, 3)


def test_unweighted_counts_stay_python_ints_beyond_int64():
    big = 2**40
    high = PartialROC(big, 0, 0, 0, TieGroup(1.0, big, 0), TieGroup(1.0, big, 0))
    low = PartialROC(0, big, 0, 0, TieGroup(0.0, 0, big), TieGroup(0.0, 0, big))
    merged = merge_adjacent(high, low)
    assert merged.strict == big * big and isinstance(merged.strict, int)


@given(scored_rows(max_size=60))
def test_dropping_the_bottom_group_equals_summary_of_rows_above(rows):
    y, s, _ = rows
    lowest = s.min()
    above = s > lowest
    dropped = drop_bottom_group(_summary_of(y, s))
    if not above.any():
        assert dropped.is_empty
        return
    direct = _summary_of(y[above], s[above])
    assert (dropped.pos, dropped.neg, dropped.strict, dropped.tied) == (
        direct.pos,
        direct.neg,
        direct.strict,
        direct.tied,
    )
