"""Curve kernels without a scheduler: bucket points, corners and thinning vs brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dask_auc._kernels.binary.average_precision import average_precision, bucket_precision_sum
from dask_auc._kernels.binary.corners import corner_mask
from dask_auc._kernels.binary.curve_context import curve_contexts
from dask_auc._kernels.binary.curve_points import (
    CurvePoints,
    KeptView,
    bucket_points,
    concatenated,
    count_while,
    first_reaching,
    integer_counts,
    kept_points,
)
from dask_auc._kernels.binary.curves import PRECISION_RECALL, ROC, bucket_curve
from dask_auc._kernels.binary.persisted import with_placed_points
from dask_auc._kernels.binary.thinning import grid_cells, grid_step, thin_on_grid
from dask_auc._kernels.sort.buckets import assemble_bucket, split_block, summarize_bucket
from dask_auc._kernels.sort.labels import LabelRule, binary_bucket, choose_positive, plan_labels
from dask_auc._kernels.sort.prepare import block_meta, prepare_block
from references import exact_average_precision
from strategies import scored_rows


def _sorted_buckets(y, s, w, cuts, n_buckets):
    """The ROC object's sort, run by hand: blocks cut at ``cuts`` into ``n_buckets`` buckets."""
    blocks = [
        prepare_block(y[a:b], s[a:b], None if w is None else w[a:b], any_labels=True)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    plan = plan_labels([block_meta(b, 4 * n_buckets) for b in blocks], n_buckets)
    choice = choose_positive(plan, None)
    pieces = [split_block(block, plan) for block in blocks]
    buckets = [
        binary_bucket(assemble_bucket(*[p[b] for p in pieces]), choice)
        for b in range(plan.n_buckets)
    ]
    return buckets, [summarize_bucket(b) for b in buckets]


def _reference_points(y, s, w):
    """Brute force: for each distinct score (descending), the weight at or above it."""
    w = np.ones(len(y)) if w is None else w
    keep = w != 0
    y, s, w = y[keep], s[keep], w[keep]
    thresholds = np.unique(s)[::-1]
    tps = np.array([w[(s >= t) & (y == 1)].sum() for t in thresholds])
    fps = np.array([w[(s >= t) & (y == 0)].sum() for t in thresholds])
    return tps, fps, thresholds


def _cuts(data, n):
    parts = data.draw(st.integers(1, 8))
    inner = sorted(data.draw(st.lists(st.integers(0, n), min_size=parts - 1, max_size=parts - 1)))
    return [0, *inner, n]


def _heavy_tie_rows(n=400, seed=0):
    """Half the rows share one score: the sort spreads that tie over several buckets."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.where(rng.random(n) < 0.5, 0.5, np.round(rng.random(n), 2))
    return y, s


@given(scored_rows(weighted=True), st.data(), st.sampled_from([1, 2, 3, 6, 11]), st.booleans())
def test_bucket_points_shifted_by_the_scan_are_the_whole_curve(rows, data, n_buckets, weighted):
    y, s, w = rows
    w = w if weighted else None
    buckets, summaries = _sorted_buckets(y, s, w, _cuts(data, len(y)), n_buckets)
    contexts = curve_contexts(summaries)
    parts = [
        bucket_curve(b, c, ROC, False, None)[0] for b, c in zip(buckets, contexts, strict=True)
    ]
    points = concatenated(parts)
    tps, fps, thresholds = _reference_points(y, s, w)
    assert len(points) == len(thresholds)  # one point per distinct score, ties spread or not
    np.testing.assert_array_equal(points.thresholds, thresholds)
    np.testing.assert_allclose(points.tps, tps, rtol=0, atol=1e-9)
    np.testing.assert_allclose(points.fps, fps, rtol=0, atol=1e-9)
    if not weighted:
        assert points.tps.dtype.kind == "i" and points.fps.dtype.kind == "i"


@given(scored_rows(weighted=True), st.data(), st.sampled_from([1, 2, 3, 6]), st.booleans())
def test_kept_points_of_integer_counts_give_the_remainders_summed_from_the_rows(
    rows, data, n_buckets, weighted
):
    """A persisted bucket keeps no remainders of integer counts; the totals give the same ones."""
    y, s, w = rows
    w = w if weighted else None
    buckets, summaries = _sorted_buckets(y, s, w, _cuts(data, len(y)), n_buckets)
    for bucket, context in zip(buckets, curve_contexts(summaries), strict=True):
        summed = bucket_points(bucket, context, remainders=True)  # from the rows below
        kept = with_placed_points(bucket, context)
        assert (kept.placed.fns is None) is (not weighted)
        assert integer_counts(bucket) is (not weighted)
        asked = bucket_points(kept, context, remainders=True)
        for name in ("tps", "fps", "thresholds", "fns", "tns"):
            np.testing.assert_array_equal(getattr(asked, name), getattr(summed, name))
            assert getattr(asked, name).dtype == getattr(summed, name).dtype
        assert bucket_points(kept, context).fns is None


@given(
    scored_rows(),
    st.data(),
    st.sampled_from([1, 2, 3, 6]),
    st.sampled_from(["float64", "float32", "int64", "signed zeros"]),
)
def test_points_kept_in_int32_are_the_points_they_were_kept_from(rows, data, n_buckets, kind):
    """A persisted bucket's :class:`KeptPoints` give back every point, bit for bit, and by lookup.

    Thresholds included: of ``-0.0`` and ``0.0`` in one tie, the same one as the walk wrote.
    """
    y, s, _ = rows
    if kind == "signed zeros":  # a tie of -0.0 and 0.0, in either class or both
        s = np.where(s < np.median(s), np.where(np.arange(len(s)) % 2 == 0, -0.0, 0.0), s)
    elif kind == "int64":
        s = np.round(s * 100).astype(np.int64)
    else:
        s = s.astype(kind)
    buckets, summaries = _sorted_buckets(y, s, None, _cuts(data, len(y)), n_buckets)
    for bucket, context in zip(buckets, curve_contexts(summaries), strict=True):
        points = bucket_points(bucket, context)
        kept = kept_points(bucket, points, context)
        assert kept is not None and kept.positives.dtype == np.int32
        own_rows = (points.tps - context.above[0]) + (points.fps - context.above[1])
        one_row_each = np.array_equal(own_rows, np.arange(1, len(points) + 1))
        assert (kept.rows is None) is one_row_each  # the rows are kept only where there are ties
        view = KeptView(kept, bucket.pos.scores, bucket.neg.scores)
        assert len(view) == len(points)
        for name in ("tps", "fps", "thresholds"):
            made, walked = getattr(view, name), getattr(points, name)
            assert made.dtype == walked.dtype
            np.testing.assert_array_equal(made, walked)
            assert np.array_equal(np.signbit(made), np.signbit(walked))
        some = np.array(data.draw(st.lists(st.integers(0, max(len(points) - 1, 0)), max_size=5)))
        if len(points):
            taken, expected = view.take(some.astype(np.int64)), points.take(some.astype(np.int64))
            for name in ("tps", "fps", "thresholds"):
                np.testing.assert_array_equal(getattr(taken, name), getattr(expected, name))
            i = int(some[0]) if len(some) else 0
            assert view.point(i) == points.point(i)


def test_weighted_or_too_large_buckets_keep_their_points_as_arrays(monkeypatch):
    """Weights (or more rows than int32 counts) leave a persisted bucket's points as they were."""
    y, s = _heavy_tie_rows()
    w = np.linspace(0.5, 2, len(y))
    for weights, limit, kept in ((w, None, False), (None, 10, False), (None, None, True)):
        if limit is not None:
            monkeypatch.setattr("dask_auc._kernels.binary.curve_points.KEPT_ROWS_LIMIT", limit)
        buckets, summaries = _sorted_buckets(y, s, weights, [0, len(y)], 2)
        for bucket, context in zip(buckets, curve_contexts(summaries), strict=True):
            points = bucket_points(bucket, context)
            assert (kept_points(bucket, points, context) is not None) is kept
        monkeypatch.undo()


@given(st.lists(st.integers(0, 6), max_size=40), st.lists(st.integers(-1, 8), max_size=6))
def test_bisections_find_what_searchsorted_and_a_scan_find(steps, wanted):
    """:func:`first_reaching` is ``searchsorted(keys, wanted)``; :func:`count_while` a scan."""
    keys = np.cumsum(np.array(steps, dtype=np.int64))
    wanted = np.array(wanted, dtype=np.int64)
    found = first_reaching(len(keys), lambda i: keys[i], wanted)
    np.testing.assert_array_equal(found, np.searchsorted(keys, wanted, "left"))
    for value in wanted:
        prefix = int(np.sum(keys <= value))
        assert count_while(len(keys), lambda i, v=value: keys[i] <= v) == prefix


def test_a_tie_spread_over_buckets_gives_one_point_from_its_last_bucket():
    y, s = _heavy_tie_rows()
    buckets, summaries = _sorted_buckets(y, s, None, [0, 150, 150, 400], 8)
    holding = [
        i
        for i, x in enumerate(summaries)
        if not x.is_empty and x.bottom.score <= 0.5 <= x.top.score
    ]
    assert len(holding) >= 3  # the tie really straddles bucket boundaries
    contexts = curve_contexts(summaries)
    parts = [
        bucket_curve(b, c, ROC, False, None)[0] for b, c in zip(buckets, contexts, strict=True)
    ]
    emitting = [i for i, p in enumerate(parts) if 0.5 in p.thresholds]
    assert emitting == [holding[-1]]
    tps, fps, _ = _reference_points(y, s, None)
    point = concatenated(parts)
    at = np.flatnonzero(point.thresholds == 0.5)[0]
    assert (point.tps[at], point.fps[at]) == (tps[at], fps[at])


def _sklearn_corner_mask(tps, fps, curve):
    """scikit-learn's drop_intermediate rule on a whole curve, written out here."""
    if curve == ROC:
        inner = np.logical_or(np.diff(fps, 2), np.diff(tps, 2))
    else:
        inner = np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:]))
    return np.concatenate(([True], inner, [True])) if len(tps) > 2 else np.ones(len(tps), bool)


@given(
    scored_rows(),
    st.data(),
    st.sampled_from([1, 2, 4, 9]),
    st.sampled_from([ROC, PRECISION_RECALL]),
)
def test_corners_from_neighbouring_summaries_equal_corners_of_the_whole_curve(
    rows, data, n_buckets, curve
):
    y, s, _ = rows
    buckets, summaries = _sorted_buckets(y, s, None, _cuts(data, len(y)), n_buckets)
    contexts = curve_contexts(summaries)
    kept = concatenated(
        [bucket_curve(b, c, curve, True, None)[0] for b, c in zip(buckets, contexts, strict=True)]
    )
    tps, fps, thresholds = _reference_points(y, s, None)
    mask = _sklearn_corner_mask(tps, fps, curve)
    np.testing.assert_array_equal(kept.thresholds, thresholds[mask])
    np.testing.assert_array_equal(kept.tps, tps[mask])


def test_corner_mask_keeps_the_ends_of_the_curve_and_reads_the_neighbours():
    points = CurvePoints(np.array([1, 2, 3]), np.array([0, 0, 0]), np.zeros(3))
    assert corner_mask(points, None, None).tolist() == [True, False, True]
    # collinear with both neighbours: all three are intermediate
    assert corner_mask(points, (0, 0), (4, 0)).tolist() == [False, False, False]
    # a bend right after the run keeps its last point
    assert corner_mask(points, (0, 0), (3, 5)).tolist() == [False, False, True]


@given(scored_rows(), st.booleans())
def test_average_precision_parts_sum_to_the_step_sum(rows, weighted):
    y, s, w = rows
    w = w if weighted else None
    buckets, summaries = _sorted_buckets(y, s, w, [0, len(y) // 2, len(y)], 5)
    contexts = curve_contexts(summaries)
    total = sum(bucket_precision_sum(b, c) for b, c in zip(buckets, contexts, strict=True))
    tps, fps, _ = _reference_points(y, s, w)
    reference = np.sum(np.diff(tps, prepend=0) * tps / (tps + fps))
    got = average_precision(total, tps[-1])
    assert got == pytest.approx(reference / tps[-1], rel=1e-12, abs=1e-12)
    if not weighted:  # the exact rational, rounded once
        assert got == float(exact_average_precision(y, s))


@given(st.integers(2, 400), st.integers(0, 2**32 - 1), st.sampled_from([1, 3, 20, 10_000]))
def test_grid_thinning_leaves_at_most_max_points(max_points, seed, distinct):
    rng = np.random.default_rng(seed)
    n = 3000
    steps_pos = rng.integers(0, distinct, n) == 0
    tps = np.concatenate(([0], np.cumsum(steps_pos)))
    fps = np.concatenate(([0], np.cumsum(~steps_pos)))
    points = CurvePoints(tps, fps, np.zeros(len(tps)))
    total = (int(tps[-1]), int(fps[-1]))
    keep = thin_on_grid(points, total, grid_step(max_points))
    assert len(keep) <= max_points
    assert keep[0] == 0 and keep[-1] == len(points) - 1


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 400),
    st.integers(0, 2**32 - 1),
    st.integers(1, 50_000),
    st.sampled_from(["rows", "weights", "one class"]),
)
def test_grid_thinning_by_bisection_keeps_the_points_a_full_scan_keeps(max_points, seed, n, counts):
    """The bisection finds each cell's first point; the reference compares every neighbour."""
    rng = np.random.default_rng(seed)
    positive = rng.random(n) < rng.random()
    weights = rng.random(n) * 3 if counts == "weights" else np.ones(n, np.int64)
    tps = np.cumsum(np.where(positive, weights, 0))
    fps = np.cumsum(np.where(positive, 0, weights))
    if counts == "one class":
        fps = np.zeros_like(fps)
    points = CurvePoints(tps, fps, np.arange(n, 0, -1.0))
    total = (tps[-1], fps[-1]) if counts == "weights" else (int(tps[-1]), int(fps[-1]))
    step = grid_step(max_points)
    with np.errstate(divide="ignore", invalid="ignore"):
        arc = np.zeros(n)
        if total[0]:
            arc += tps / total[0]
        if total[1]:
            arc += fps / total[1]
        cells = np.zeros(n, np.int64) if np.isinf(step) else np.floor(arc / step).astype(np.int64)
    change = cells[1:] != cells[:-1]
    expected = np.flatnonzero(np.concatenate(([True], change)) | np.concatenate((change, [True])))
    np.testing.assert_array_equal(thin_on_grid(points, total, step), expected)


@given(st.integers(3, 300), st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_thinning_per_bucket_then_once_more_equals_thinning_the_whole_curve(
    max_points, seed, n_pieces
):
    rng = np.random.default_rng(seed)
    n = 2000
    tps = np.cumsum(rng.integers(0, 3, n))
    fps = np.cumsum(rng.integers(0, 3, n))
    total = (int(tps[-1]) or 1, int(fps[-1]) or 1)
    step = grid_step(max_points)
    whole = CurvePoints(tps, fps, np.arange(n, 0, -1.0))
    cuts = np.unique(np.concatenate(([0, n], rng.integers(0, n, n_pieces))))
    pieces = [whole.take(slice(a, b)) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    shipped = concatenated([p.take(thin_on_grid(p, total, step)) for p in pieces])
    final = shipped.take(thin_on_grid(shipped, total, step))
    direct = whole.take(thin_on_grid(whole, total, step))
    np.testing.assert_array_equal(final.thresholds, direct.thresholds)


def test_grid_cells_ignore_a_missing_class():
    cells = grid_cells(np.array([0, 1, 2]), np.array([0, 0, 0]), (2, 0), 0.5)
    assert cells.tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    "labels, rule, message",
    [
        (("a", "b"), LabelRule("curve", None), "y_true takes value in {'a', 'b'} and pos_label"),
        ((0, 2), LabelRule("curve", None), "y_true takes value in {0, 2} and pos_label"),
        ((0, 1, 2), LabelRule("curve", None), "multiclass format is not supported"),
        ((0, 1), LabelRule("average_precision", 2), r"pos_label=2 is not a valid label"),
        ((0, 1, 2), LabelRule("average_precision", 2), "fixed to 1 for multiclass"),
    ],
)
def test_label_rules_raise_sklearns_errors(labels, rule, message):
    with pytest.raises(ValueError, match=message):
        rule.check(labels, 10)


@pytest.mark.parametrize(
    "labels, rule",
    [
        ((-1, 1), LabelRule("curve", None)),
        ((0,), LabelRule("curve", None)),
        ((False, True), LabelRule("curve", None)),
        ((0, 1, 2), LabelRule("curve", 2)),
        (("a", "b"), LabelRule("curve", "b")),
        (("b",), LabelRule("average_precision", 1)),
    ],
)
def test_label_rules_accept_what_sklearn_accepts(labels, rule):
    rule.check(labels, 10)
