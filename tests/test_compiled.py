"""The optional numba kernels against independent NumPy references (``dask-auc[numba]``).

Each compiled loop must return exactly what a plain NumPy formulation
returns, on random and adversarial inputs: ties on splitters (heavy ties
dealt over buckets), every supported dtype, empty inputs, ``-0.0``, integers
at the ends of their range, hash tables that grow.  The pipeline-level
check (every registered metric, compiled vs NumPy) is
``test_invariance.py::test_compiled_kernels_give_the_numpy_result``.
"""

from __future__ import annotations

import threading
from dataclasses import replace

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sklearn_auc

pytest.importorskip("numba")

import dask_auc  # noqa: E402
from dask_auc._kernels.replicates import compiled as walks  # noqa: E402
from dask_auc._kernels.sort import compiled, loading, preferences  # noqa: E402
from dask_auc._kernels.sort.buckets import (  # noqa: E402
    Bucket,
    assemble_bucket,
    split_block,
    summarize_bucket,
)
from dask_auc._kernels.sort.plan import plan_sort  # noqa: E402
from dask_auc._kernels.sort.prepare import block_meta, few_distinct, prepare_block  # noqa: E402
from dask_auc._kernels.sort.rows import SortedScores  # noqa: E402
from strategies import examples  # noqa: E402

DTYPES = [np.float64, np.float32, np.int64, np.int32, np.uint64, np.uint8, np.int16]


@st.composite
def scored_rows(draw, max_rows: int = 400):
    """Scores of one dtype drawn from a few values or many, with 0/1 codes."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    n = draw(st.integers(0, max_rows))
    distinct = draw(st.sampled_from([1, 3, 20, 10_000]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype.kind == "f":
        pool = rng.standard_normal(distinct).astype(dtype)
        pool[: min(2, distinct)] = [-0.0, 0.0][: min(2, distinct)]
    else:
        info = np.iinfo(dtype)
        pool = rng.integers(info.min, info.max, distinct, dtype=dtype, endpoint=True)
        pool[0] = info.max
    scores = pool[rng.integers(0, distinct, n)]
    codes = (rng.random(n) < draw(st.sampled_from([0.0, 0.3, 1.0]))).astype(np.uint8)
    return scores, codes, rng


def _reference_groups(scores, codes, n_codes, splitters) -> np.ndarray:
    """Each row's group as the compiled split defines it, row by row in Python."""
    values, first, repeats = np.unique(splitters, return_index=True, return_counts=True)
    spread = dict(zip(first.tolist(), repeats.tolist(), strict=True))
    dealt: dict[int, int] = {}
    groups = []
    for score, code in zip(scores.tolist(), codes.tolist(), strict=True):
        bucket = int(np.searchsorted(splitters, score, "left"))
        m = spread.get(bucket, 1)
        if m > 1 and splitters[bucket] == score:
            turn = dealt.get(bucket, 0)
            dealt[bucket] = turn + 1
            bucket += turn % (m + 1)
        groups.append(bucket * n_codes + code)
    return np.array(groups, dtype=np.int64)


@settings(max_examples=examples(150), deadline=None)
@given(
    rows=scored_rows(),
    n_splitters=st.sampled_from([0, 1, 3, 7, 16, 17, 40, 200, 1000]),
    two=st.booleans(),
    counting=st.booleans(),
)
@pytest.mark.float_order
def test_grouped_rows_equal_a_row_by_row_reference(rows, n_splitters, two, counting) -> None:
    """Counting (<= 32 splitters, where it is preferred), per-row and searched splits alike."""
    scores, codes, rng = rows
    n_codes = 2 if two else 1
    codes = codes if two else np.zeros_like(codes)
    source = scores if len(scores) else np.zeros(1, scores.dtype)
    splitters = np.sort(source[rng.integers(0, len(source), n_splitters)])
    preferred = preferences.prefer_counting()
    try:
        preferences.prefer_counting(counting)
        rows_by_group, starts, _ = compiled.grouped_rows(scores, codes, n_codes, splitters)
    finally:
        preferences.prefer_counting(preferred)
    groups = _reference_groups(scores, codes, n_codes, splitters)
    order = np.argsort(groups, kind="stable")
    np.testing.assert_array_equal(rows_by_group, scores[order])
    counts = np.bincount(groups, minlength=(n_splitters + 1) * n_codes)
    np.testing.assert_array_equal(np.diff(starts), counts)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint64])
def test_splitters_crowded_in_a_few_cells_are_bisected_to_the_same_buckets(dtype) -> None:
    """Many splitters between a few close values and one far away share a cell of the
    split's table (more than it scans one by one): bisected, the same groups as the
    reference, for scores in, between, below and above them."""
    rng = np.random.default_rng(7)
    if np.dtype(dtype).kind == "f":
        close = 0.5 + rng.integers(0, 40, 300) * np.finfo(dtype).eps
        far = np.finfo(dtype).max
    else:
        close = 1000 + rng.integers(0, 40, 300)
        far = np.iinfo(dtype).max
    close, ends = close.astype(dtype), np.array([0, far, 3], dtype)
    splitters = np.sort(np.concatenate([close, ends[1:2]]))
    above = close + close.dtype.type(1 if np.dtype(dtype).kind in "iu" else 0)
    scores = rng.permutation(np.concatenate([close, ends, above]))
    codes = (rng.random(len(scores)) < 0.4).astype(np.uint8)
    rows_by_group, starts, _ = compiled.grouped_rows(scores, codes, 2, splitters)
    groups = _reference_groups(scores, codes, 2, splitters)
    np.testing.assert_array_equal(rows_by_group, scores[np.argsort(groups, kind="stable")])
    np.testing.assert_array_equal(np.diff(starts), np.bincount(groups, minlength=2 * 302))


def test_a_heavy_tie_is_dealt_evenly_over_its_buckets() -> None:
    scores = np.array([0.5] * 90 + [0.1, 0.9])
    splitters = np.array([0.5, 0.5])  # the tie repeats: it may fill three buckets
    _, starts, _ = compiled.grouped_rows(scores, np.zeros(92, np.uint8), 1, splitters)
    assert np.diff(starts).tolist() == [31, 30, 31]


def _ascending_pair(rows, other) -> tuple[np.ndarray, np.ndarray]:
    """Two ascending score arrays of one dtype (``rows``'), from two drawn row sets."""
    pos, _, _ = rows
    neg = other[0].astype(pos.dtype) if len(other[0]) else pos[:0]
    if pos.dtype.kind == "u" and other[0].dtype.kind in "if":
        neg = np.abs(other[0]).astype(pos.dtype)
    return np.sort(pos), np.sort(neg)


@settings(max_examples=examples(150), deadline=None)
@given(rows=scored_rows(), other=scored_rows())
@pytest.mark.float_order
def test_merged_pair_counts_equal_binary_searches(rows, other) -> None:
    pos, neg = _ascending_pair(rows, other)
    below = np.searchsorted(neg, pos, "left")
    through = np.searchsorted(neg, pos, "right")
    expected = (int(below.sum()), int((through - below).sum()))
    assert compiled.pair_counts(pos, neg) == expected


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint64])
def test_merged_pair_counts_walk_eight_entries_at_a_time_exactly(dtype) -> None:
    """The merge compares eight negatives at once: runs of 0-40 negatives between positives,
    ties of up to 20 rows of each class across the eight-entry steps, a tail shorter than a
    step, and the dtype's extremes, all equal to two binary searches."""
    rng = np.random.default_rng(np.dtype(dtype).num)
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    for layout in range(40):
        values = np.unique(rng.integers(0, 400, 120)).astype(dtype)
        ends = np.array([info.min, info.max], dtype)
        values = np.concatenate([ends[:1], values, ends[1:]])
        neg = np.repeat(values, rng.integers(0, 41 if layout % 2 else 9, len(values)))
        pos = np.repeat(values, rng.integers(0, 3 if layout % 3 else 21, len(values)))
        pos, neg = np.sort(pos[: len(pos) - layout % 5]), np.sort(neg[: len(neg) - layout % 11])
        below = np.searchsorted(neg, pos, "left")
        through = np.searchsorted(neg, pos, "right")
        expected = (int(below.sum()), int((through - below).sum()))
        assert compiled.pair_counts(pos, neg) == expected, layout


@settings(max_examples=examples(150), deadline=None)
@given(rows=scored_rows(max_rows=3000), labelled=st.booleans())
@pytest.mark.float_order
def test_hash_aggregation_equals_unique_counts(rows, labelled) -> None:
    """Distinct scores and their counts per class; -0.0 joins 0.0; tables that grow."""
    scores, codes, _ = rows
    positive = codes.astype(bool) if labelled else None
    values, counts = compiled.aggregate(scores, positive, len(scores) + 1)
    order = np.argsort(values, kind="stable")
    values, counts = values[order], counts[order]
    expected_values = np.unique(scores)  # np.unique joins -0.0 and 0.0 too
    np.testing.assert_array_equal(values, expected_values)
    for code in (0, 1):
        rows_of_code = scores[(codes == code) if labelled else np.full(len(scores), code == 0)]
        expected = np.array([np.count_nonzero(rows_of_code == v) for v in expected_values])
        np.testing.assert_array_equal(counts[:, code], expected.reshape(-1))


def test_hash_aggregation_gives_up_past_its_limit() -> None:
    scores = np.arange(10_000, dtype=np.float64)
    assert compiled.aggregate(scores, None, 2_000) is None
    assert compiled.aggregate(scores, None, 10_000) is not None


def _unique_counts(scores: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reference: each distinct score (sorted) and its rows of code 0 and 1."""
    values, inverse = np.unique(scores, return_inverse=True)
    counts = np.stack([np.bincount(inverse[codes == c], minlength=len(values)) for c in (0, 1)])
    return values, counts.T


def test_hash_keys_that_all_share_one_home_slot_wrap_and_grow_mid_block() -> None:
    """600 keys hashed to the table's last slot at every size, and the key 0 (slot 0).

    Their probes wrap past the end onto slot 0's key (whose slot's pattern, 0, is
    also an empty slot's); the table doubles at a row in the middle of the block
    (past its room), in shuffled and sorted order.
    """
    from dask_auc._kernels.sort import _numba

    golden_inverse = pow(_numba.GOLDEN_64, -1, 2**64)
    # a pattern whose Fibonacci product has its top 20 bits set: the last slot up to 2**20
    patterns = [((0xFFFFF << 44) + j) * golden_inverse % 2**64 for j in range(600)] + [0]
    keys = np.array(patterns, np.uint64).view(np.int64)
    rng = np.random.default_rng(5)
    scores = keys[rng.integers(0, len(keys), 6000)]
    scores[: len(keys)] = keys  # every key present
    codes = (rng.random(len(scores)) < 0.4).astype(np.uint8)
    for order in (rng.permutation(len(scores)), np.argsort(scores, kind="stable")):
        values, counts = compiled.aggregate(scores[order], codes[order].view(bool), len(keys))
        got = np.argsort(values)
        expected_values, expected_counts = _unique_counts(scores[order], codes[order])
        np.testing.assert_array_equal(values[got], expected_values)
        np.testing.assert_array_equal(counts[got], expected_counts)


def test_hash_declines_a_block_past_its_count_width(monkeypatch) -> None:
    """Row counts share a 64-bit slot in 32-bit halves: a longer block goes to Arrow, exactly."""
    from dask_auc._kernels.sort import _numba
    from dask_auc._kernels.sort.aggregate import aggregated_rows

    rng = np.random.default_rng(6)
    scores = np.round(rng.standard_normal(3000), 1)
    positive = rng.random(3000) < 0.3
    hashed = aggregated_rows(scores, None, positive, compiled=True)
    assert compiled.aggregate(scores, positive, 3000) is not None
    monkeypatch.setattr(_numba, "_MAX_HASHED_ROWS", 2999)
    assert compiled.aggregate(scores, positive, 3000) is None
    arrow = aggregated_rows(scores, None, positive, compiled=True)
    for arrow_part, part in zip(arrow, hashed, strict=True):
        np.testing.assert_array_equal(arrow_part.scores, part.scores)
        np.testing.assert_array_equal(arrow_part.weights, part.weights)


def test_the_setting_off_keeps_every_kernel_in_numpy() -> None:
    scores = np.linspace(0, 1, 1 << 17)
    label = (np.arange(1 << 17) % 3 == 0).astype(np.int8)
    on = prepare_block(label, scores, compiled=True)
    off = prepare_block(label, scores, compiled=False)
    assert on.unsplit is not None and not on.by_label
    assert off.unsplit is None and set(off.by_label) == {0, 1}
    assert compiled.pair_counts(scores, scores, compiled=False) is None


def test_a_worker_without_numba_sorts_an_unsplit_block(monkeypatch) -> None:
    """Prepared where numba runs, split where it does not: the NumPy split, same buckets."""
    rng = np.random.default_rng(5)
    scores = rng.random(1 << 17)
    label = (rng.random(1 << 17) < 0.3).astype(np.int8)
    block = prepare_block(label, scores, compiled=True)
    plan = plan_sort([block_meta(block, 64)], 4)
    plan = type(plan)(plan.classes, plan.splitters, plan.weight_exponent, plan.group_keys, True)
    with_numba = [assemble_bucket(piece) for piece in split_block(block, plan)]
    monkeypatch.setattr(compiled, "loops", lambda *stage_and_work: None)
    without = [assemble_bucket(piece) for piece in split_block(block, plan)]
    for a, b in zip(with_numba, without, strict=True):
        for part_a, part_b in zip(a.groups, b.groups, strict=True):
            np.testing.assert_array_equal(part_a.scores, part_b.scores)
        assert summarize_bucket(a) == summarize_bucket(b)


@pytest.mark.parametrize("kind", ["continuous", "tied", "heavy tie"])
@pytest.mark.float_order
def test_large_blocks_take_the_compiled_path_and_equal_sklearn(kind: str) -> None:
    """Blocks of 2**17 rows (above the row threshold): the compiled path, sklearn's AUC."""
    rng = np.random.default_rng(17)
    n = 1 << 19
    label = (rng.random(n) < 0.3).astype(np.int8)
    score = rng.standard_normal(n) + label
    if kind == "tied":
        score = np.round(score, 2)
    elif kind == "heavy tie":
        score[rng.random(n) < 0.6] = 0.0  # one value, splitters repeat it
    y, s = da.from_array(label, chunks=n // 4), da.from_array(score, chunks=n // 4)
    results = {}
    for flag in (True, False):
        with dask.config.set({"dask-auc.numba": flag, "dask-auc.buckets": 6}):
            results[flag] = dask_auc.roc_auc_score(y, s)
    assert results[True] == results[False]
    assert results[True] == pytest.approx(sklearn_auc(label, score), abs=1e-15)


def test_compiled_path_on_a_process_cluster(client) -> None:
    """Workers compile and run the loops; P2P moves the unsorted pieces; the answer is exact."""
    rng = np.random.default_rng(3)
    n = 1 << 19
    label = (rng.random(n) < 0.4).astype(np.int8)
    score = rng.random(n)
    y, s = da.from_array(label, chunks=n // 4), da.from_array(score, chunks=n // 4)
    expected = sklearn_auc(label, score)
    for exchange in ("p2p", "tasks"):
        settings = {"dask-auc.exchange": exchange, "dask-auc.buckets": 5}
        with dask.config.set(settings):
            assert dask_auc.roc_auc_score(y, s) == pytest.approx(expected, abs=1e-15)
            fpr, tpr, _ = dask_auc.roc_curve(y, s)
        assert len(fpr) == len(tpr) > 2


@pytest.mark.parametrize("compiled_flag", [True, False])
@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.nan, r"^Input contains NaN\.$"),
        (np.inf, r"^Input contains infinity or a value too large for dtype\('float64'\)\.$"),
    ],
)
def test_a_non_finite_score_in_an_aggregated_block_raises_sklearns_error(
    compiled_flag: bool, bad: float, message: str
) -> None:
    """Tied blocks check finiteness on their distinct scores: the same error as on rows."""
    rng = np.random.default_rng(11)
    n = 1 << 17
    scores = np.round(rng.random(n), 2)
    scores[n // 3] = bad
    label = (rng.random(n) < 0.5).astype(np.int8)
    assert few_distinct(scores)
    with pytest.raises(ValueError, match=message):
        prepare_block(label, scores, compiled=compiled_flag)
    y, s = da.from_array(label, chunks=n // 2), da.from_array(scores, chunks=n // 2)
    with (
        dask.config.set({"dask-auc.numba": compiled_flag}),
        pytest.raises(ValueError, match=message),
    ):
        dask_auc.roc_auc_score(y, s)


def test_a_first_call_takes_the_numpy_path_while_the_loops_compile():
    """In a fresh process the first call does not wait for numba.

    Its loops compile in a background thread (~20 s from an empty numba cache);
    the first AUC is computed meanwhile on the NumPy path -- the same number --
    and once the thread is done the compiled paths are taken.  The child holds
    its compile until the first call is back, as a cold compile would take that
    long and longer: a first call that waited for the loops would find them
    ready (or hang until the hold's timeout), so the check needs no cold
    compile, and the loops then load from the cache this session filled.
    """
    pytest.importorskip("numba")
    import subprocess
    import sys

    child = r"""
import threading, numpy as np, dask.array as da, dask_auc
from dask_auc._kernels.sort import compiled, loading
first_call_back = threading.Event()
compile_loops = loading._MAIN.compile_all

def held(family):
    first_call_back.wait(120)
    compile_loops(family)

loading._MAIN.compile_all = held
rng = np.random.default_rng(0)
n = 1 << 18
y = da.from_array((rng.random(n) < 0.3).astype(np.int8), chunks=n // 2)
s = da.from_array(rng.random(n), chunks=n // 2)
first = dask_auc.roc_auc_score(y, s)
during = loading._MAIN.ready.is_set()
started = loading._MAIN.thread is not None
first_call_back.set()
loading._MAIN.thread.join(300)
after = dask_auc.roc_auc_score(y, s)
print(first == after, started, during, compiled.loops() is not None)
"""
    done = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "False", "True"]


@pytest.mark.float_order
def test_the_tie_hash_runs_only_where_the_calibration_found_it_faster():
    """``aggregate`` declines when this CPU's calibration chose Arrow: the same entries result."""
    pytest.importorskip("numba")
    from dask_auc._kernels.sort import compiled
    from dask_auc._kernels.sort.aggregate import aggregated_rows

    rng = np.random.default_rng(5)
    scores = np.round(rng.random(5000), 2)
    positive = rng.random(5000) < 0.4
    hashed = aggregated_rows(scores, None, positive, compiled=True)
    assert compiled.aggregate(scores, positive, 5000) is not None
    try:
        preferences.prefer_hash(False)
        assert compiled.aggregate(scores, positive, 5000) is None
        arrow = aggregated_rows(scores, None, positive, compiled=True)
    finally:
        preferences.prefer_hash(True)
    for a, b in zip(hashed, arrow, strict=True):
        np.testing.assert_array_equal(a.scores, b.scores)
        np.testing.assert_array_equal(a.weights, b.weights)
    preferences.prefer_hash(False)
    try:
        compiled._calibrate(rows=1 << 14, repeats=1)  # a decision either way, never an error
    finally:
        preferences.prefer_hash(True)


@settings(max_examples=examples(150), deadline=None)
@given(rows=scored_rows(), other=scored_rows())
@pytest.mark.float_order
def test_merged_points_equal_the_numpy_merge_and_binary_searches(rows, other) -> None:
    """The compiled own points: distinct scores (the same ``-0.0`` or ``0.0`` kept), rows below."""
    from dask_auc._kernels.binary.curve_points import merged_points, own_points

    pos, neg = _ascending_pair(rows, other)
    joined = np.sort(np.concatenate([pos, neg]), kind="stable")
    distinct = (
        joined[np.concatenate(([True], joined[1:] != joined[:-1]))][::-1] if len(joined) else joined
    )
    below = (np.searchsorted(neg, distinct, "left"), np.searchsorted(pos, distinct, "left"))
    bucket = Bucket.binary(SortedScores(pos), SortedScores(neg), compiled=True)
    made = own_points(bucket)
    for found in (merged_points(pos, neg), (made.thresholds, made.below)):
        values, (below_neg, below_pos) = found
        np.testing.assert_array_equal(values, distinct)
        np.testing.assert_array_equal(np.signbit(values), np.signbit(distinct))
        np.testing.assert_array_equal(below_neg, below[0])
        np.testing.assert_array_equal(below_pos, below[1])
    numpy_path = own_points(replace(bucket, compiled=False))
    np.testing.assert_array_equal(np.signbit(numpy_path.thresholds), np.signbit(distinct))
    np.testing.assert_array_equal(numpy_path.below[0], below[0])
    np.testing.assert_array_equal(numpy_path.below[1], below[1])


@settings(max_examples=examples(150), deadline=None)
@given(
    rows=scored_rows(),
    other=scored_rows(),
    above=st.tuples(st.integers(0, 10**12), st.integers(0, 10**12)),
    continues=st.booleans(),
)
@pytest.mark.float_order
def test_walked_points_and_their_ks_are_the_numpy_paths(rows, other, above, continues) -> None:
    """An unweighted bucket's placed points by the compiled walk down its classes, and the KS
    scan of them: the NumPy path's counts, scores (the same -0.0 or 0.0) and (gap, threshold)."""
    from dask_auc._kernels.binary.curve_context import CurveContext
    from dask_auc._kernels.binary.curve_points import bucket_points
    from dask_auc._kernels.binary.ks import bucket_ks

    compiled.compile_now()
    pos, neg = _ascending_pair(rows, other)
    total = (above[0] + len(pos) + 7, above[1] + len(neg) + 3)
    context = CurveContext(total, above, continues and len(pos) + len(neg) > 0, None, None)
    found = []
    for flag in (True, False):
        bucket = Bucket.binary(SortedScores(pos), SortedScores(neg), compiled=flag)
        found.append((bucket_points(bucket, context), bucket_ks(bucket, context)))
    (walked, walked_ks), (numpy_points, numpy_ks) = found
    for a, b in ((walked.tps, numpy_points.tps), (walked.fps, numpy_points.fps)):
        assert a.dtype == b.dtype == np.int64
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(walked.thresholds, numpy_points.thresholds)
    np.testing.assert_array_equal(
        np.signbit(walked.thresholds), np.signbit(numpy_points.thresholds)
    )
    assert walked_ks == numpy_ks and type(walked_ks[0]) is type(numpy_ks[0])
    if len(walked):
        assert np.signbit(walked_ks[1]) == np.signbit(numpy_ks[1])


@settings(max_examples=examples(150), deadline=None)
@given(
    steps=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=60),
    before=st.none() | st.tuples(st.integers(0, 2), st.integers(0, 2)),
    after=st.none() | st.tuples(st.integers(0, 3), st.integers(0, 3)),
    offset=st.integers(0, 2**40),
)
def test_the_compiled_roc_corners_are_the_numpy_masks_points(steps, before, after, offset) -> None:
    """roc_curve's drop_intermediate of a run of integer points, with or without neighbours
    (straight runs, repeated points, one point): the indices of NumPy's mask."""
    from dask_auc._kernels.binary.corners import as_indices, corner_mask
    from dask_auc._kernels.binary.curve_points import CurvePoints

    compiled.compile_now()
    tps = offset + 3 + np.cumsum([a for a, _ in steps], dtype=np.int64)
    fps = offset + 3 + np.cumsum([b for _, b in steps], dtype=np.int64)
    points = CurvePoints(tps, fps, np.arange(len(steps), dtype=float)[::-1])
    previous = None if before is None else (offset + before[0], offset + before[1])
    following = None
    if after is not None:
        last = (tps[-1], fps[-1]) if len(steps) else (offset + 3, offset + 3)
        following = (int(last[0]) + after[0], int(last[1]) + after[1])
    found = corner_mask(points, previous, following, compiled=True)
    assert found.dtype == np.int64  # the compiled pass's indices
    numpy_path = corner_mask(points, previous, following)
    assert numpy_path.dtype == bool
    np.testing.assert_array_equal(found, as_indices(numpy_path))
    if previous is not None:  # a weighted neighbour: NumPy's float differences, a mask
        weighted = (float(previous[0]), float(previous[1]))
        assert corner_mask(points, weighted, following, compiled=True).dtype == bool


def test_the_compiled_ks_keeps_the_highest_threshold_of_equal_gaps() -> None:
    """Gaps of 2 at thresholds 3 and 1 (of 2 positives, 2 negatives): 3, as the NumPy argmax."""
    from dask_auc._kernels.binary.curve_context import CurveContext
    from dask_auc._kernels.binary.ks import bucket_ks

    compiled.compile_now()
    context = CurveContext((2, 2), (0, 0), False, None, None)
    for flag in (True, False):
        pos, neg = SortedScores(np.array([1.0, 3.0])), SortedScores(np.array([0.0, 2.0]))
        assert bucket_ks(Bucket.binary(pos, neg, compiled=flag), context) == (2, 3.0)


def _replicate_inputs(rows: int = 8, replicates: int = 3):
    """A tiny bucket for the compiled replicate walk (its one argument, a ``Walk``)."""
    from dask_auc._kernels.replicates.counts import POISSON_THRESHOLDS

    scores = np.arange(rows, dtype=np.float64)
    keys = np.arange(rows, dtype=np.uint64)
    replicate_keys = np.arange(1, replicates + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    return (walks.Walk(scores, keys, scores, keys, replicate_keys, POISSON_THRESHOLDS),)


@pytest.mark.parametrize(
    ("elapsed", "due", "remaining"),
    [(0.0, 10.0, 10.0), (4.0, 10.0, 6.0), (10.0, 10.0, 10.0), (15.0, 10.0, 15.0), (0.5, 0.0, 0.5)],
)
def test_the_compile_left_is_the_estimate_then_as_long_again_once_overdue(
    elapsed: float, due: float, remaining: float
) -> None:
    assert loading.remaining_compile(elapsed, due) == remaining


@pytest.mark.parametrize(
    ("cells", "remaining", "waits"),
    [
        (10**9, 10.0, True),  # ~150 s of NumPy: worth a 10 s wait
        (10**6, 10.0, False),  # ~0.15 s of NumPy: not worth 10 s
        (10**6, 0.01, True),  # ... but worth 10 ms
        (0, 0.0, False),  # no work: never waits
    ],
)
def test_a_task_waits_for_the_compile_when_it_saves_more_than_the_compile_has_left(
    cells: int, remaining: float, waits: bool
) -> None:
    """The decision alone: estimated work against the compile's time left (no clock read)."""
    assert loading.waits_for_compile(cells, remaining, saved_per_unit=1.5e-7) is waits


def _family_compiled_once_waited_on(cold: float) -> loading._Family:
    """A replicate family whose compile ends as soon as a task waits for it (or after 60 s)."""

    def compile_all(family: loading._Family) -> None:
        for _ in range(60_000):  # the loops are compiled already (conftest): only the wait is faked
            if family.waited:
                return
            threading.Event().wait(1e-3)

    return loading._Family(
        "test-replicates", ("replicates",), compile_all, cold=cold, warm=cold, saved=1.5e-7
    )


def test_a_long_task_started_while_the_loops_compile_runs_compiled(monkeypatch) -> None:
    """Its NumPy work outweighs the compile left: it waits, then takes the compiled walk."""
    family = _family_compiled_once_waited_on(cold=0.0)
    monkeypatch.setattr(loading, "_REPLICATES", family)
    monkeypatch.setattr(loading, "_clock", lambda: 0.0)  # the compile is due now, forever
    assert walks.replicate_summary(*_replicate_inputs()) is not None  # None: the NumPy path
    assert family.waited == 1 and family.ready.is_set()


def test_a_short_task_takes_the_numpy_path_while_the_loops_compile(monkeypatch) -> None:
    """Less work than the compile has left: no wait; the setting off: no compile at all."""
    family = _family_compiled_once_waited_on(cold=1e6)
    monkeypatch.setattr(loading, "_REPLICATES", family)
    monkeypatch.setattr(loading, "_clock", lambda: 0.0)
    inputs = _replicate_inputs()
    assert walks.replicate_summary(*inputs, compiled=False) is None
    assert family.thread is None  # dask-auc.numba False: nothing starts
    assert walks.replicate_summary(*inputs) is None
    assert family.thread is not None and family.waited == 0
    family.waited = 1  # let the fake compile end
    family.thread.join(60)
    assert walks.replicate_summary(*inputs) is not None


@st.composite
def reliability_buckets(draw):
    """A sorted bucket of probabilities (ties, 0, 1 and -0.0 among them).

    Rows, integer multiplicities or float weights; scores of any dtype the loops take
    (float32, 0/1 integers); now and then scores past [0, 1] (no term is summed) or
    long runs of falling means, which NumPy's rounds pool with sums of more than 128
    values (its pairwise order).
    Scores of sizes that take NumPy's SIMD loops (``log``) and their tails.
    """
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.sampled_from([0, 1, 5, 60, 300]))
    distinct = draw(st.sampled_from([1, 2, 5, 50, 10**6]))
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64]))
    scores = rng.integers(0, distinct + 1, n) / distinct
    if dtype == np.int64:
        scores = np.round(scores)
    scores[rng.random(n) < draw(st.sampled_from([0.0, 0.2]))] = -0.0
    if draw(st.booleans()):
        scores[rng.random(n) < 0.05] = draw(st.sampled_from([-0.5, 1.5]))
    share = draw(st.sampled_from(["random", "falling", "rising", "step down"]))
    chance = {"random": 0.3, "falling": 1 - scores, "rising": scores, "step down": scores < 0.5}
    chance = chance[share]
    positive = rng.random(n) < np.clip(chance, 0, 1)
    weighting = draw(st.sampled_from(["rows", "counted", "weights"]))

    def part(rows: np.ndarray) -> SortedScores:
        values = np.sort(scores[rows]).astype(dtype)
        if weighting == "rows":
            return SortedScores(values)
        if weighting == "counted":
            return SortedScores(values, rng.integers(1, 4, len(values)).astype(np.int64))
        return SortedScores(values, rng.random(len(values)) * 10.0 ** rng.integers(-3, 3))

    return Bucket.binary(part(positive), part(~positive), compiled=True)


@settings(max_examples=examples(50), deadline=None)
@given(case=reliability_buckets())
@pytest.mark.float_order
def test_the_compiled_pav_gives_the_numpy_blocks_bit_for_bit(case) -> None:
    """The reliability diagram's fused loop: the NumPy path's blocks, sums and dtypes, exactly."""
    from dask_auc._kernels.binary.reliability import bucket_blocks
    from dask_auc._kernels.binary.reliability_compiled import bucket_stack

    bucket = case
    assert bucket_stack(bucket, 1.0) is not None  # the loop runs: nothing to fall back
    made, numpy_path = (
        bucket_blocks(bucket),
        bucket_blocks(replace(bucket, compiled=False)),
    )
    for name in ("low", "high", "pos", "neg"):
        a, b = getattr(made, name), getattr(numpy_path, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
    sums = ("brier", "log", "proba", "infinite", "bottom", "top")
    assert [getattr(made, s) for s in sums] == [getattr(numpy_path, s) for s in sums]


@pytest.mark.float_order
def test_the_compiled_pav_of_lone_rows_with_cross_ties_is_the_numpy_paths() -> None:
    """Rows of distinct scores within each class, many shared across the classes (the lone
    merge's path, whose cross ties' terms are added after its loop), and -0.0.

    float64 only: the loop's float32 build is the Hypothesis test's above, and compiling it
    again here in another worker cost the CI run ~30 s of CPU."""
    from dask_auc._kernels.binary.reliability import bucket_blocks
    from dask_auc._kernels.binary.reliability_compiled import bucket_stack

    rng = np.random.default_rng(5)
    crossed = 0
    for trial in range(60):
        n = int(rng.choice([3, 10, 100, 2000]))
        values = rng.integers(0, 2 * n + 1, n) / (2 * n)
        labels = rng.random(n) < rng.choice([0.1, 0.5, 0.9])
        pos, neg = np.unique(values[labels]), np.unique(values[~labels])
        if trial % 3 == 0:
            pos = np.where(pos == 0, -0.0, pos)
        if not len(pos) or not len(neg):
            continue
        bucket = Bucket.binary(SortedScores(pos), SortedScores(neg), compiled=True)
        assert bucket_stack(bucket, 1.0) is not None
        made, numpy_path = bucket_blocks(bucket), bucket_blocks(replace(bucket, compiled=False))
        for name in ("low", "high", "pos", "neg"):
            a, b = getattr(made, name), getattr(numpy_path, name)
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (trial, name)
        sums = ("brier", "log", "proba", "infinite", "bottom", "top")
        assert [getattr(made, s) for s in sums] == [getattr(numpy_path, s) for s in sums]
        crossed += len(np.intersect1d(pos, neg)) > 2
    assert crossed >= 20  # the cross ties' walk really ran


def test_a_stage_loaded_before_its_family_is_used_at_once(monkeypatch) -> None:
    """A family's stages come in one after the other: a loaded one serves tasks, the rest wait."""
    release = threading.Event()

    def compile_all(family) -> None:
        family.stages_ready.add("sort")  # as _compile does after each stage's warm-up
        release.wait(60)  # "binary" still loading

    family = loading._Family("test-main", ("sort", "binary"), compile_all, 0.0, 0.0, 0.0)
    monkeypatch.setattr(loading, "_MAIN", family)
    assert compiled.loops("binary") is None  # starts the family; nothing loaded yet, no wait
    for _ in range(6000):
        if "sort" in family.stages_ready:
            break
        threading.Event().wait(1e-2)
    assert compiled.loaded("sort") and not compiled.loaded("binary")
    assert loading.loops("sort") is loading._module("sort")
    assert compiled.loops("binary") is None
    release.set()
    family.thread.join(60)
    assert family.ready.is_set() and loading.loops("binary") is loading._module("binary")


def test_the_states_loops_are_a_family_of_their_own() -> None:
    """A process's first metric does not share its cores with the states' loops."""
    assert loading._family_of("states") is loading._STATES
    assert "states" not in loading._MAIN.stages
    assert loading._family_of("binary") is loading._MAIN
