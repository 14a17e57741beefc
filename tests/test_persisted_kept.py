"""A persisted ROC keeps each bucket compact and opens it again bit for bit.

``ROC.persist`` keeps a bucket's placed points in narrow integer arrays (one
bit a point on continuous scores), its rows rebuilt from them where they can
be, its ``roc_curve`` corners as bits (:mod:`dask_auc._kernels.binary.persisted`).
These tests open every kept bucket and compare each array the queries read
with the bucket as it was before it was kept (the same bits, dtypes and
shapes), on ties across bucket edges, weights with zeros, one bucket, empty
partitions, signed zeros, and float32 and integer scores.
"""

from __future__ import annotations

import pickle
import sys

import dask
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dask_auc
from dask_auc._kernels.binary.persisted import (
    KeptPoints,
    kept_bucket,
    open_kept,
    with_answers,
)
from strategies import boundaries, dask_array, examples, scored_rows


def _buckets(y, s, w=None, cuts=None, buckets=3):
    """Each bucket as persist makes it before keeping it, with its kept form and context."""
    cuts = cuts or [0, len(y) // 2, len(y)]
    weights = None if w is None else dask_array(w, cuts)
    with dask.config.set({"dask-auc.buckets": buckets, "scheduler": "sync"}):
        sort = dask_auc.roc(dask_array(y, cuts), dask_array(s, cuts), sample_weight=weights)._sort
        contexts, *placed = dask.compute(*sort.graph.delayed([sort.contexts, *sort.placed]))
    out = []
    for bucket, context in zip(placed, contexts, strict=True):
        answered = with_answers(bucket, context)
        out.append((answered, kept_bucket(answered, context)))
    return out


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


def _assert_opens_the_same(answered, kept):
    opened = pickle.loads(pickle.dumps(open_kept(kept)))  # as a worker would receive it
    assert opened.weight_exponent == answered.weight_exponent
    assert opened.compiled == answered.compiled
    for was, now in zip(answered.groups, opened.groups, strict=True):
        for field in ("scores", "weights", "ids"):
            before, after = getattr(was, field), getattr(now, field)
            assert (before is None) == (after is None)
            if before is not None:
                assert _bits(before) == _bits(after), field
    for field in ("tps", "fps", "thresholds", "fns", "tns"):
        assert _bits(getattr(answered.placed, field)) == _bits(getattr(opened.placed, field)), field
    assert _bits(answered.answers.roc_corners) == _bits(opened.answers.roc_corners)
    assert answered.answers.precision_sum == opened.answers.precision_sum
    assert repr(answered.answers.ks) == repr(opened.answers.ks)


@settings(max_examples=examples(25), deadline=None)
@given(data=st.data(), weighted=st.booleans(), buckets=st.sampled_from([1, 2, 5]))
def test_every_kept_bucket_opens_to_the_same_bits(data, weighted, buckets):
    y, s, w = data.draw(scored_rows(max_size=80, weighted=weighted))
    cuts = data.draw(boundaries(len(y), max_parts=5))
    for answered, kept in _buckets(y, s, w, cuts, buckets):
        _assert_opens_the_same(answered, kept)


@pytest.mark.parametrize(
    "scores",
    [
        np.array([0.0, -0.0, 0.0, -0.0, 0.5, 0.5, -0.0, 1.0] * 5),  # signed zeros tied
        (np.arange(40) % 7).astype(np.int64),  # integer scores, ties over bucket edges
        np.random.default_rng(1).random(40).astype(np.float32),
        np.full(40, 0.25),  # one tie group spread over every bucket
    ],
    ids=["signed-zeros", "int", "float32", "one-score"],
)
def test_adversarial_scores_open_to_the_same_bits(scores):
    y = np.arange(40) % 3 == 0
    for answered, kept in _buckets(y, scores, None, [0, 0, 13, 40, 40], buckets=5):
        _assert_opens_the_same(answered, kept)


def test_continuous_buckets_keep_a_bit_a_point_and_no_rows():
    """What makes a persisted ROC small: thresholds, a bit a point, no rows, corners as bits."""
    rng = np.random.default_rng(0)
    n = 20_000
    y = (rng.random(n) < 0.3).astype(np.int8)
    s = rng.normal(size=n) + y
    kept_bytes = 0
    for answered, kept in _buckets(y, s, buckets=4):
        _assert_opens_the_same(answered, kept)
        points = kept.points
        assert isinstance(points, KeptPoints) and points.tps is None and points.fps is None
        assert points.positive is not None and points.positive.dtype == np.uint8
        assert kept.groups is None and kept.corners is not None
        assert len(kept.answers.roc_corners) == 0
        kept_bytes += sys.getsizeof(kept)
    assert kept_bytes / n < 8.5  # the thresholds (8 bytes) and a few bits a row


def test_tied_buckets_keep_counts_in_the_narrowest_dtype():
    y = np.arange(3000) % 2
    s = (np.arange(3000) % 200) / 200  # 15 rows a score: every point a tie
    for answered, kept in _buckets(y, s, buckets=2):
        _assert_opens_the_same(answered, kept)
        points = kept.points
        assert isinstance(points, KeptPoints) and points.positive is None
        assert points.tps is not None and points.tps.dtype == np.uint16
        assert points.fps is not None and points.fps.dtype == np.uint16


def test_weighted_buckets_are_kept_whole():
    """Float running sums are kept as made: only their corners are packed."""
    rng = np.random.default_rng(2)
    y, s = np.arange(60) % 2, rng.random(60)
    w = rng.choice([0.0, 0.3, 1.7], 60)
    for answered, kept in _buckets(y, s, w, buckets=2):
        _assert_opens_the_same(answered, kept)
        assert not isinstance(kept.points, KeptPoints) and kept.groups is not None


def test_a_persisted_roc_answers_as_the_lazy_one_on_ties_across_bucket_edges():
    y = np.arange(400) % 3 == 0
    s = np.round((1 + np.sin(np.arange(400))) / 2, 2)  # 101 scores over 4 buckets
    cuts = [0, 0, 150, 399, 400]
    with dask.config.set({"dask-auc.buckets": 4, "scheduler": "sync"}):
        lazy = dask_auc.roc(dask_array(y, cuts), dask_array(s, cuts))
        kept = dask_auc.roc(dask_array(y, cuts), dask_array(s, cuts)).persist()
        for ask in (
            lambda r: r.roc_curve(),
            lambda r: r.roc_curve(drop_intermediate=False, max_points=8),
            lambda r: r.precision_recall_curve(drop_intermediate=True),
            lambda r: r.confusion_matrix_at_thresholds(),
            lambda r: r.det_curve(),
            lambda r: r.partial_auc(fpr_range=(0.1, 0.45)),
            lambda r: tuple(r.operating_point(fpr=0.3)),
            lambda r: tuple(r.reliability()[:4]) + tuple(r.reliability()[4:6][0]),
            lambda r: r.gains_table(n_bins=4).to_numpy(),
        ):
            before, after = ask(lazy), ask(kept)
            before = before if isinstance(before, tuple) else (before,)
            after = after if isinstance(after, tuple) else (after,)
            assert [_bits(a) for a in before] == [_bits(a) for a in after]
