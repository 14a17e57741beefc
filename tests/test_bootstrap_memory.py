"""The bootstrap's sort and summaries in few bytes a row (issue 34's peak), with the same numbers.

A block's traced rows carry narrow ids (uint32 positions, the block's index
kept once per part) that the bucket's merge widens; a bucket's replicate
summary makes its rows' keys in place and takes the estimate's column from
the bucket's own summary.  Here: each of these against the wide ids and the
tie-group layout they replace, on ties across blocks, and their bytes.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from dask_auc._kernels.replicates import summary as replicate_summaries
from dask_auc._kernels.replicates.counts import position_keys
from dask_auc._kernels.replicates.tie_groups import ReplicateSpec
from dask_auc._kernels.replicates.traced import prepare_rows, row_keys, traced_plan, traced_rows
from dask_auc._kernels.sort.buckets import Bucket, assemble_bucket, split_block
from dask_auc._kernels.sort.labels import plan_labels
from dask_auc._kernels.sort.prepare import block_meta
from dask_auc._kernels.sort.rows import ID_BITS, SortedScores, merged_parts

NAMES = ("y_true", "y_score")


def _traced_buckets(labels, scores, cuts, n_buckets, weights=None):
    """The bootstrap's sort by its kernels: blocks cut at ``cuts``, then ``n_buckets`` buckets."""
    names = NAMES if weights is None else (*NAMES, "sample_weight")
    blocks = []
    for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
        rest = () if weights is None else (weights[a:b],)
        rows = prepare_rows(
            labels[a:b], scores[a:b], *rest, names=names, weighted=weights is not None
        )
        blocks.append(traced_rows(rows, i))
    metas = [block_meta(block, 16 * n_buckets) for block in blocks]
    plan = traced_plan(plan_labels(metas, n_buckets), metas, by_group=False)
    splits = [split_block(block, plan) for block in blocks]
    buckets = [assemble_bucket(*(s[d] for s in splits)) for d in range(n_buckets)]
    return blocks, plan, buckets


@pytest.mark.parametrize("weighted", [False, True])
def test_narrow_ids_are_the_input_positions(weighted) -> None:
    """A block's rows carry uint32 positions and their block once; every bucket's rows, merged
    from several blocks (ties across them; zero weights dropped), have the keys of their
    positions in the whole input, which the rows' scores and labels identify."""
    rng = np.random.default_rng(5)
    n = 3_000
    labels = rng.integers(0, 2, n)
    scores = rng.integers(0, 40, n) / 8.0  # heavy ties, spread over blocks and buckets
    scores[rng.random(n) < 0.05] *= -0.0  # -0.0 beside 0.0
    weights = rng.integers(0, 3, n).astype(float) if weighted else None
    cuts = [0, 1, 700, 700, 2_100, n]  # a one-row block and an empty one
    blocks, plan, buckets = _traced_buckets(labels, scores, cuts, 6, weights)
    for i, block in enumerate(blocks):
        for part in block.by_label.values():
            assert part.ids.dtype == np.uint32 and part.block == i
    kept = np.ones(n, bool) if weights is None else weights != 0
    seen = []
    for bucket in buckets:
        for label, part in zip(plan.group_keys, bucket.groups, strict=True):
            if len(part) == 0:
                continue
            positions = plan.offsets[part.ids >> ID_BITS] + (part.ids & ((1 << ID_BITS) - 1))
            if part.block is not None:  # a bucket of one block's rows keeps them narrow
                positions = plan.offsets[part.block] + part.ids.astype(np.int64)
            assert (labels[positions] == label).all() and (scores[positions] == part.scores).all()
            np.testing.assert_array_equal(row_keys(part, plan), position_keys(positions))
            seen.append(positions)
    np.testing.assert_array_equal(np.sort(np.concatenate(seen)), np.flatnonzero(kept))


def test_merge_widens_narrow_ids_beside_wide_ones() -> None:
    """Narrow parts of two blocks and a wide part merge as their wide ids would, ties in part
    order (the stable order of the plain merge)."""
    scores = [np.array([0.1, 0.5, 0.5]), np.array([0.5, 0.7]), np.array([0.1, 0.5])]
    narrow = [
        SortedScores(scores[0], None, np.array([4, 0, 9], np.uint32), 3),
        SortedScores(scores[1], None, np.array([2, 1], np.uint32), 0),
        SortedScores(scores[2], None, np.array([(7 << 32) | 5, (1 << 32) | 8], np.int64)),
    ]
    wide = [
        SortedScores(p.scores, None, p.ids.astype(np.int64) | (p.block << 32))
        if p.block is not None
        else p
        for p in narrow
    ]
    got, want = merged_parts(narrow), merged_parts(wide)
    assert got.block is None and got.ids.dtype == np.int64
    np.testing.assert_array_equal(got.scores, want.scores)
    np.testing.assert_array_equal(got.ids, want.ids)
    assert got.ids.tolist() == [
        (3 << 32) | 4, (7 << 32) | 5, (3 << 32) | 0, (3 << 32) | 9, (0 << 32) | 2,
        (1 << 32) | 8, (0 << 32) | 1,
    ]  # fmt: skip


def test_own_summary_is_the_tie_groups_estimate() -> None:
    """The estimate's column from the bucket's own summary equals the tie-group layout's, on
    adversarial buckets: heavy ties between the classes, -0.0 beside 0.0, an empty class."""
    rng = np.random.default_rng(11)
    _, plan, _ = _traced_buckets(np.array([0, 1]), np.array([0.0, 1.0]), [0, 2], 1)
    spec = ReplicateSpec(seed=0, n_bootstraps=0, weighted=False)
    values = np.array([-0.0, 0.0, 0.25, 0.5, 1.0, -3.0])
    for trial in range(300):
        parts = []
        for _ in range(2):
            size = int(rng.integers(0, 25)) if trial % 7 else 0
            chosen = rng.choice(values, size) if trial % 2 else rng.normal(size=size)
            parts.append(SortedScores(np.sort(chosen), None, np.arange(size, dtype=np.int64)))
        for compiled in (False, True):
            bucket = Bucket.binary(*parts, compiled=compiled)
            own = replicate_summaries._own_summary(bucket)
            laid = replicate_summaries._summary(bucket, plan, spec)
            assert (own.top, own.bottom) == (laid.top, laid.bottom)
            for name in replicate_summaries.SUMMARY_ARRAYS:
                got, want = getattr(own, name), getattr(laid, name)
                assert got.dtype == want.dtype and got.tolist() == want.tolist(), name


def test_bytes_a_row_of_the_sort_and_the_keys() -> None:
    """A traced block holds 12 bytes a row (score, uint32 id); a bucket's row keys peak at 8
    bytes a row (made in place), beside its wide ids; a bucket's estimate, a few."""
    rng = np.random.default_rng(2)
    n = 400_000
    labels, scores = rng.integers(0, 2, n), rng.normal(size=n)
    blocks, plan, buckets = _traced_buckets(labels, scores, [0, n // 2, n], 1)
    parts = [part for block in blocks for part in block.by_label.values()]
    assert sum(p.scores.nbytes + p.ids.nbytes for p in parts) == 12 * n
    (bucket,) = buckets
    part = bucket.groups[0]
    assert part.ids.dtype == np.int64 and part.block is None  # two blocks: widened
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        keys = row_keys(part, plan)
        keys_peak = tracemalloc.get_traced_memory()[1] - base
        del keys
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        binary = Bucket.binary(bucket.groups[1], bucket.groups[0], compiled=False)
        replicate_summaries._own_summary(binary)
        estimate_peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert keys_peak <= 8 * len(part) + 3 * 8 * (1 << 16)  # the keys, and one run's temporaries
    assert estimate_peak <= 16 * n  # the pair counts' searches (the layout's took ~64)


@pytest.mark.parametrize(
    "labels",
    [
        np.array([1, 0, 1, 1, 0, 0, 1] * 40),  # two numeric classes: one sort of both
        np.array(["b", "a", "c", "a", "b", "c", "c"] * 40),  # several, by class
        np.array([7] * 280),  # one class
    ],
)
def test_positions_made_from_the_order_are_the_narrow_ids(labels) -> None:
    """``traced_by_label`` with ``ids=None`` (the rows' positions, made from the sort's order:
    no array of every position to gather from) gives the parts that the explicit positions
    (``block_row_ids``) give, dtype and all, ties across classes included."""
    from dask_auc._kernels.sort.rows import block_row_ids, traced_by_label

    rng = np.random.default_rng(len(set(labels.tolist())))
    scores = rng.integers(0, 9, len(labels)) / 4.0
    classes = tuple(np.unique(labels).tolist())
    given = traced_by_label(classes, labels, scores, block_row_ids(len(labels)), None, 3)
    made = traced_by_label(classes, labels, scores, None, None, 3)
    assert given.keys() == made.keys()
    for key, part in given.items():
        assert made[key].block == part.block == 3
        assert made[key].ids.dtype == part.ids.dtype == np.uint32
        np.testing.assert_array_equal(made[key].ids, part.ids)
        np.testing.assert_array_equal(made[key].scores, part.scores)


@pytest.mark.parametrize(
    "labels",
    [np.array([1, 0] * 10), np.array(["b", "a"] * 10), np.array([7] * 20)],
    ids=["two numeric classes", "by class", "one class"],
)
def test_positions_beyond_narrow_ids_raise_before_any_sort(labels, monkeypatch) -> None:
    """A block longer than narrow ids hold is refused, by name, on every path of
    ``traced_by_label`` (``ID_BITS`` lowered to 3 bits: blocks of 8 rows at most)."""
    from dask_auc._kernels.sort import rows

    monkeypatch.setattr(rows, "ID_BITS", 3)
    monkeypatch.setattr(rows, "stable_order", lambda *a, **k: pytest.fail("sorted first"))
    classes = tuple(np.unique(labels).tolist())
    with pytest.raises(
        ValueError, match=r"^a block of 20 rows: row ids hold positions below 2\*\*3"
    ):
        rows.traced_by_label(classes, labels, np.linspace(0, 1, 20), None)
