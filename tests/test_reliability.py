"""The CORP reliability diagram and score decomposition (issue 33).

Against two independent references: model-diagnostics' ``decompose`` (the
decompositions) and scikit-learn's ``IsotonicRegression`` on the pooled ties
(the fit at every row; unweighted, its blocks' exact rational means).  The
kernels are tested with no scheduler: the PAV rounds against a Fraction
stack PAV, the merge of neighbouring stacks for associativity.
"""

from __future__ import annotations

import math
from fractions import Fraction

import dask
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

import dask_auc
from dask_auc._kernels.binary.reliability import (
    WEIGHTED_TOLERANCE,
    BlockStack,
    Group,
    bucket_blocks,
    completed,
    merged_blocks,
    pooled,
)
from dask_auc._kernels.sort.buckets import Bucket
from dask_auc._kernels.sort.rows import SortedScores
from metric_registry import DECOMPOSITION, decomposition_reference
from strategies import boundaries, dask_array, examples

RTOL = 1e-12


# -- references -------------------------------------------------------------------------------


def pav_reference(pos: list[int], neg: list[int]) -> list[tuple[int, int, int, int]]:
    """The textbook stack PAV in exact rationals: ``(first, last, pos, neg)`` per block.

    Adjacent blocks of equal means are pooled too (the fit's maximal level sets).
    """
    blocks: list[list[int]] = []
    for i, (p, n) in enumerate(zip(pos, neg, strict=True)):
        blocks.append([i, i, p, n])
        while len(blocks) > 1:
            (f1, _, p1, n1), (_, l2, p2, n2) = blocks[-2], blocks[-1]
            if Fraction(p1, p1 + n1) < Fraction(p2, p2 + n2):
                break
            blocks[-2:] = [[f1, l2, p1 + p2, n1 + n2]]
    return [tuple(b) for b in blocks]  # type: ignore[misc]


def isotonic_fit(y, proba, weights):
    """Each distinct probability (of rows of nonzero weight) and its fit: scikit-learn's PAV of
    the pooled ties, with each class's total there."""
    w = np.ones(len(y)) if weights is None else weights
    kept = w > 0
    scores, inverse = np.unique(proba[kept], return_inverse=True)
    pos = np.bincount(inverse, weights=(y * w)[kept], minlength=len(scores))
    total = np.bincount(inverse, weights=w[kept], minlength=len(scores))
    fit = IsotonicRegression().fit(scores, pos / total, sample_weight=total).predict(scores)
    return scores, fit, pos, total


def fit_at(diagram, scores):
    """The diagram's fitted value at each of ``scores`` (every step kept)."""
    step = np.searchsorted(diagram.high, scores, side="left")
    assert np.all(diagram.low[step] <= scores)
    return diagram.recalibrated[step]


# -- cases ------------------------------------------------------------------------------------


@st.composite
def probability_cases(draw):
    """Labels, heavily tied probabilities in [0, 1] (0 and 1 among them), weights, cuts."""
    n = draw(st.integers(2, 80))  # scikit-learn's isotonic fit needs two rows
    distinct = draw(st.sampled_from([1, 2, 3, 5, 20, 1000]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    proba = rng.integers(0, distinct + 1, n) / distinct
    signal = draw(st.sampled_from([0.0, 0.5, 1.0]))
    y = (rng.random(n) < (1 - signal) * 0.5 + signal * proba).astype(int)
    weights = None
    if draw(st.booleans()):
        weights = rng.choice([0.0, 0.5, 1.0, 3.0, rng.random()], size=n)
        if np.count_nonzero(weights) < 2:  # model-diagnostics needs two rows
            weights[:2] = 1.0
    points = draw(boundaries(n))
    cuts = sorted(points + draw(st.lists(st.sampled_from(points), max_size=3)))
    return y, proba, weights, cuts


def run(y, proba, weights, cuts, **options):
    return dask_auc.reliability_diagram(
        dask_array(y, cuts),
        dask_array(proba, cuts),
        sample_weight=None if weights is None else dask_array(weights, cuts),
        **options,
    )


def assert_decomposition(got, want: dict[str, float]) -> None:
    """Within 1e-12 of the reference's score: MCB and DSC are differences of two scores."""
    scale = max((abs(v) for v in want.values() if math.isfinite(v)), default=0.0)
    for part in DECOMPOSITION:
        np.testing.assert_allclose(
            getattr(got, part), want[part], rtol=RTOL, atol=RTOL * scale, err_msg=part
        )


def assert_same(a, b, exact: bool) -> None:
    for field, x, y in zip(a._fields, a, b, strict=True):
        if exact:
            np.testing.assert_array_equal(x, y, err_msg=field)
        else:
            np.testing.assert_allclose(x, y, rtol=RTOL, atol=1e-15, err_msg=field)


# -- the diagram and the decomposition ---------------------------------------------------------


@settings(max_examples=examples(40), deadline=None)
@given(case=probability_cases(), buckets=st.sampled_from([1, 2, 7]))
def test_equals_model_diagnostics_and_the_isotonic_fit(case, buckets):
    """Any partitioning and bucket count: model-diagnostics' decomposition, scikit-learn's fit
    at every distinct score (its blocks' exact rational means, unweighted), and the same
    result as one bucket (bit for bit, unweighted)."""
    y, proba, weights, cuts = case
    with dask.config.set({"dask-auc.buckets": buckets}):
        got = run(y, proba, weights, cuts)
    with dask.config.set({"dask-auc.buckets": 1}):
        one_bucket = run(y, proba, weights, [0, len(y)])
    assert_same(got, one_bucket, exact=weights is None)
    for name, score in (("brier", got.brier), ("log_score", got.log_score)):
        assert_decomposition(score, decomposition_reference(y, proba, weights, name))
    np.testing.assert_allclose(got.mean_score, np.average(proba, weights=weights), rtol=RTOL)
    np.testing.assert_allclose(got.mean_outcome, np.average(y, weights=weights), rtol=RTOL)

    scores, fit, pos, total = isotonic_fit(y, proba, weights)
    np.testing.assert_allclose(fit_at(got, scores), fit, rtol=RTOL)
    np.testing.assert_allclose(got.weight.sum(), total.sum(), rtol=RTOL)
    assert got.low[0] == scores[0] and got.high[-1] == scores[-1]
    if weights is None:  # the blocks of scikit-learn's fit, their means exact
        starts = np.flatnonzero(np.concatenate(([True], fit[1:] != fit[:-1])))
        exact = [
            float(Fraction(int(p), int(t)))
            for p, t in zip(
                np.add.reduceat(pos, starts), np.add.reduceat(total, starts), strict=True
            )
        ]
        np.testing.assert_array_equal(got.recalibrated, exact)
        np.testing.assert_array_equal(got.low, scores[starts])


@settings(max_examples=examples(40), deadline=None)
@given(case=probability_cases())
def test_the_parts_add_up_and_are_not_negative(case):
    y, proba, weights, cuts = case
    got = run(y, proba, weights, cuts)
    for score in (got.brier, got.log_score):
        if not math.isfinite(score.score):
            assert score.miscalibration == math.inf
            continue
        scale = max(score.score, score.uncertainty, 1e-300)
        total = score.miscalibration - score.discrimination + score.uncertainty
        assert abs(total - score.score) <= RTOL * scale
        assert min(score.miscalibration, score.discrimination, score.uncertainty) >= -RTOL * scale
    assert np.all(np.diff(got.recalibrated) > 0) and np.all(got.low[1:] > got.high[:-1])


@pytest.mark.parametrize(
    "y, proba",
    [
        ([0, 1, 1, 0, 1, 0], [0.0, 1.0, 1.0, 1.0, 0.0, 0.0]),
        ([1, 0, 0, 0, 0], [1.0, 1.0, 1.0, 0.0, 0.0]),
    ],
)
def test_a_tie_spread_over_buckets_is_pooled_first(y, proba):
    """A tie cut over several buckets enters the fit once, whole, made by the last bucket
    holding it: each bucket pooling its own piece gives it several values (Hypothesis's
    shrunk examples of that bug)."""
    y, proba = np.asarray(y, dtype=int), np.asarray(proba)
    with dask.config.set({"dask-auc.buckets": 7}):
        got = run(y, proba, None, [0, len(y)])
    with dask.config.set({"dask-auc.buckets": 1}):
        assert_same(got, run(y, proba, None, [0, len(y)]), exact=True)
    assert np.all(got.low[1:] > got.high[:-1])
    scores, fit, _, _ = isotonic_fit(y, proba, None)
    np.testing.assert_array_equal(fit_at(got, scores), fit)
    assert_decomposition(got.brier, decomposition_reference(y, proba, None, "brier"))


def test_a_persisted_roc_and_a_lazy_result_answer_the_same():
    rng = np.random.default_rng(1)
    proba = np.round(rng.random(500), 2)
    y = (rng.random(500) < proba).astype(int)
    cuts = [0, 120, 120, 333, 500]
    expected = run(y, proba, None, cuts)
    curve = dask_auc.roc(dask_array(y, cuts), dask_array(proba, cuts)).persist()
    assert_same(curve.reliability(), expected, exact=True)
    lazy = run(y, proba, None, cuts, compute=False)
    assert isinstance(lazy, dask_auc.LazyScore)
    assert_same(lazy.compute(), expected, exact=True)
    assert_same(curve.reliability(compute=False).compute(), expected, exact=True)


@pytest.mark.parametrize("max_points", [2, 3, 5, 10])
def test_max_points_thins_the_steps_only(max_points):
    rng = np.random.default_rng(2)
    proba = np.round(rng.random(2000), 3)
    y = (rng.random(2000) < proba).astype(int)
    full = dask_auc.reliability_diagram(y, proba)
    thin = dask_auc.reliability_diagram(y, proba, max_points=max_points)
    assert len(full.low) > 10 >= max_points
    assert 2 <= len(thin.low) <= max_points
    kept = np.searchsorted(full.low, thin.low)
    np.testing.assert_array_equal(full.low[kept], thin.low)
    np.testing.assert_array_equal(full.recalibrated[kept], thin.recalibrated)
    assert kept[0] == 0 and kept[-1] == len(full.low) - 1
    assert (thin.brier, thin.log_score) == (full.brier, full.log_score)


def test_one_class_has_no_uncertainty():
    """Every row negative: the fit is 0, UNC = DSC = 0 and MCB is the score (model-diagnostics)."""
    y, proba = np.zeros(6, int), np.array([0.1, 0.2, 0.2, 0.4, 0.7, 0.0])
    got = dask_auc.reliability_diagram(y, proba)
    np.testing.assert_array_equal(got.recalibrated, [0.0])
    for name, score in (("brier", got.brier), ("log_score", got.log_score)):
        assert score.uncertainty == score.discrimination == 0
        assert score.miscalibration == score.score
        assert_decomposition(score, decomposition_reference(y, proba, None, name))


def test_a_probability_zero_of_the_outcome_has_an_infinite_log_score():
    got = dask_auc.reliability_diagram(np.array([1, 0, 1]), np.array([0.0, 0.5, 1.0]))
    assert got.log_score.score == got.log_score.miscalibration == math.inf
    assert math.isfinite(got.log_score.discrimination) and math.isfinite(got.brier.score)


@pytest.mark.parametrize(
    "proba, message",
    [
        ([0.2, 1.5, 0.3], "y_prob contains values greater than 1: 1.5"),
        ([0.2, -0.1, 0.3], "y_prob contains values less than 0: -0.1"),
        ([0.2, np.nan, 0.3], "Input contains NaN"),
        ([0.2, np.inf, 0.3], "Input contains infinity"),
    ],
)
def test_scores_that_are_not_probabilities_raise(proba, message):
    y = dask_array(np.array([0, 1, 1]), [0, 1, 3])
    with pytest.raises(ValueError, match=message):
        dask_auc.reliability_diagram(y, dask_array(np.array(proba), [0, 1, 3]))
    with pytest.raises(ValueError, match=message):
        dask_auc.roc(y, dask_array(np.array(proba), [0, 1, 3])).persist().reliability()


def test_more_than_two_labels_raise():
    with pytest.raises(ValueError, match="reliability_diagram only supports binary"):
        dask_auc.reliability_diagram(np.array([0, 1, 2]), np.array([0.1, 0.5, 0.9]))


def test_max_points_is_checked():
    with pytest.raises(dask_auc.InvalidParameterError, match="max_points"):
        dask_auc.reliability_diagram(np.array([0, 1]), np.array([0.1, 0.5]), max_points=1)


# -- the kernels, no scheduler -----------------------------------------------------------------


@st.composite
def score_counts(draw, weighted: bool = False):
    """Per distinct score (ascending) each class's rows: at least one row a score."""
    n = draw(st.integers(1, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pos = rng.integers(0, draw(st.sampled_from([1, 3, 50])) + 1, n)
    neg = rng.integers(0, 4, n)
    neg[pos + neg == 0] = 1
    if weighted:
        return np.arange(n) / n, pos * rng.random(n), neg * rng.random(n) + (neg > 0) * 0.1
    return np.arange(n) / n, pos, neg


@settings(max_examples=examples(100), deadline=None)
@given(counts=score_counts())
def test_the_pav_rounds_equal_the_stack_pav(counts):
    scores, pos, neg = counts
    got = pooled(BlockStack(scores, scores, pos, neg))
    want = pav_reference(pos.tolist(), neg.tolist())
    assert got.pos.tolist() == [b[2] for b in want] and got.neg.tolist() == [b[3] for b in want]
    np.testing.assert_array_equal(got.low, scores[[b[0] for b in want]])
    np.testing.assert_array_equal(got.high, scores[[b[1] for b in want]])


@settings(max_examples=examples(100), deadline=None)
@given(data=st.data(), weighted=st.booleans())
def test_the_merge_is_associative_and_the_pav_of_the_concatenation(data, weighted):
    """Stacks of consecutive runs, merged in any tree (highest scores first), are the PAV of all."""
    scores, pos, neg = data.draw(score_counts(weighted))
    n = len(scores)
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=5)))
    edges = [0, *cuts, n]
    stacks = [
        pooled(BlockStack(scores[a:b], scores[a:b], pos[a:b], neg[a:b]))
        for a, b in zip(edges[:-1], edges[1:], strict=True)
    ][::-1]  # bucket order: the highest scores first
    whole = pooled(BlockStack(scores, scores, pos, neg))
    split = data.draw(st.integers(1, len(stacks)))
    trees = [
        merged_blocks(stacks),
        merged_blocks([merged_blocks(stacks[:split]), *stacks[split:]]),
        merged_blocks([*stacks[: split - 1], merged_blocks(stacks[split - 1 :])]),
    ]
    for tree in trees:
        for name in ("low", "high", "pos", "neg"):
            if weighted:
                np.testing.assert_allclose(getattr(tree, name), getattr(whole, name), rtol=RTOL)
            else:
                np.testing.assert_array_equal(getattr(tree, name), getattr(whole, name))


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data(), weighted=st.booleans())
def test_buckets_cut_through_ties_merge_to_the_whole_bucket(data, weighted):
    """Buckets cut anywhere (through tie groups too) merge, in any tree, to the uncut bucket.

    Each bucket keeps its end groups aside; the merge joins the groups cut at an
    edge before they enter the PAV and the exact sums (:func:`completed`).
    """
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = data.draw(st.integers(1, 60))
    scores = np.sort(rng.integers(0, data.draw(st.sampled_from([2, 5, 50])) + 1, n) / 50)
    positive = rng.random(n) < scores
    weights = rng.random(n) + 0.1 if weighted else None

    def bucket(rows: slice) -> Bucket:
        parts = []
        for chosen in (positive[rows], ~positive[rows]):
            kept = None if weights is None else weights[rows][chosen]
            parts.append(SortedScores(scores[rows][chosen], kept))
        return Bucket.binary(*parts)

    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=5)))
    edges = [0, *cuts, n]
    stacks = [
        bucket_blocks(bucket(slice(a, b))) for a, b in zip(edges[:-1], edges[1:], strict=True)
    ][::-1]
    whole = completed(bucket_blocks(bucket(slice(0, n))))
    split = data.draw(st.integers(1, len(stacks)))
    trees = [
        merged_blocks(stacks),
        merged_blocks([merged_blocks(stacks[:split]), *stacks[split:]]),
        merged_blocks([*stacks[: split - 1], merged_blocks(stacks[split - 1 :])]),
    ]
    for tree in map(completed, trees):
        for name in ("low", "high", "pos", "neg"):
            if weighted:
                np.testing.assert_allclose(getattr(tree, name), getattr(whole, name), rtol=RTOL)
            else:
                np.testing.assert_array_equal(getattr(tree, name), getattr(whole, name))
        if not weighted:  # whole tie groups, exact sums: the same integers
            assert (tree.brier, tree.log, tree.proba) == (whole.brier, whole.log, whole.proba)
        assert tree.infinite == whole.infinite


def lone_scores(rng: np.random.Generator, n: int) -> np.ndarray:
    """Strictly increasing probabilities whose terms leave the compiled sums' hot exponents:
    0, denormals, tiny scores, 1 and scores a few ulps below it; the rest spread over (0, 1)."""
    extremes = [0.0, 5e-324, 1e-310, 1e-200, 2.0**-60, 1e-9, 0.5, 1 - 2.0**-53, 1 - 1e-12, 1.0]
    return np.unique(np.concatenate([extremes, rng.random(n), rng.random(n // 8) * 1e-6]))


@pytest.mark.float_order
@pytest.mark.parametrize(("seed", "n"), [(0, 3000), (1, 3000), (2, 3000), (3, 40_000)])
def test_the_compiled_lone_rows_path_gives_the_numpy_bits(seed, n):
    """Every score one row, or one of each class (the compiled loop's fast path): the NumPy
    path's blocks and exact sums, whole and cut into buckets at cross-class ties.

    Thousands of rows (the hot sums' flushes; 40,000: the loop's buffer of cuts filled and
    pooled several times), ties across the classes (their group terms replace their
    rows'), 0 and 1 in either class (infinite log terms), and terms far outside the hot
    exponents.
    """
    rng = np.random.default_rng(seed)
    scores = lone_scores(rng, n)
    positive = rng.random(len(scores)) < 0.3 + 0.4 * scores
    positive[0], positive[-1] = True, False  # a positive at 0, a negative at 1: log terms inf
    tied = rng.choice(len(scores), n // 75, replace=False)  # these scores in both classes
    pos = np.sort(np.concatenate([scores[positive], scores[tied[~positive[tied]]]]))
    neg = np.sort(np.concatenate([scores[~positive], scores[tied[positive[tied]]]]))
    if seed == 2:  # a probability 0 of its outcome: no 1 for a negative, no 0 for a positive
        pos, neg = pos[pos > 0], neg[neg < 1]
    edges = [-1.0, *np.sort(scores[tied[:4]]), 2.0]  # cut through cross ties

    def stack(k: int, compiled: bool) -> BlockStack:
        """Bucket k: each edge's positive in the bucket below it, its negative above."""
        low, high = edges[k], edges[k + 1]
        parts = [SortedScores(pos[(pos > low) & (pos <= high)])]
        parts.append(SortedScores(neg[(neg >= low) & (neg < high)]))
        return bucket_blocks(Bucket.binary(*parts, compiled=compiled))

    for compiled in (True, False):
        got = completed(merged_blocks([stack(k, compiled) for k in range(len(edges) - 1)][::-1]))
        whole = completed(
            bucket_blocks(Bucket.binary(SortedScores(pos), SortedScores(neg), compiled=compiled))
        )
        if compiled:
            made, made_whole = got, whole
    numpy_path, numpy_whole = got, whole
    for a, b in ((made, numpy_path), (made_whole, numpy_whole), (made, made_whole)):
        for name in ("low", "high", "pos", "neg"):
            x, y = getattr(a, name), getattr(b, name)
            assert x.dtype == y.dtype, name
            np.testing.assert_array_equal(x, y, err_msg=name)
        assert (a.brier, a.log, a.proba, a.infinite) == (b.brier, b.log, b.proba, b.infinite)
    assert made.infinite == (seed != 2)


def test_the_compiled_row_sums_are_exact_when_a_log_is_not_monotone():
    """The fast path sums each term by runs of one exponent, found by bisection of terms that
    ascend with the scores; logs (NumPy's, correct to an ulp or so) need not: a run that
    holds another exponent is summed row by row, exactly all the same."""
    numba_loops = pytest.importorskip("dask_auc._kernels.binary._sums_numba")
    from dask_auc._kernels.binary.reliability_compiled import _binned_total

    scores = np.linspace(0.3, 0.4, 3000)
    logs = -np.where(np.arange(3000) % 2, np.nextafter(1.0, 0.0), 1.0)  # 1 and just below, mixed
    logs[:5] = -np.inf  # and an infinite log term within a run
    high, low = np.zeros((3, 2047), np.int64), np.zeros((3, 2047), np.int64)
    infinite, outside = numba_loops.row_sums(scores, logs, True, 0, 3000, high, low)
    assert infinite and not outside
    totals = [_binned_total(high[t], low[t]) for t in range(3)]  # units of 2**-1126
    wanted = [(1 - scores) ** 2, -logs[5:], scores]
    for got, terms in zip(totals, wanted, strict=True):
        assert got == sum(map(Fraction, terms.tolist())) * 2**1126


def _stack_of_the_loops(bucket: Bucket) -> BlockStack:
    """The compiled loops' stack, whichever path :func:`bucket_blocks` would take."""
    from dask_auc._kernels.binary.reliability_compiled import bucket_stack

    found = bucket_stack(bucket, 1 - WEIGHTED_TOLERANCE)
    assert found is not None  # the loops run: nothing to fall back to
    *blocks, ends = found
    return BlockStack(*blocks, *(Group(*end) for end in ends))


@pytest.mark.parametrize("weighting", ["weights", "counted"])
@pytest.mark.float_order
def test_the_loops_sum_long_weighted_ties_as_numpy_and_numpy_takes_them(weighting):
    """Ties of 1 to 700 rows (NumPy's pairwise sums cut in halves past 128), ``-0.0``
    beside 0.0, weights or multiplicities: the loops' stack is the
    NumPy path's bits; and mostly tied weighted rows take the NumPy path, the faster there."""
    pytest.importorskip("numba")
    from dask_auc._kernels.binary.reliability_compiled import numpy_faster
    from dask_auc._kernels.sort.compiled import compile_now

    compile_now()
    rng = np.random.default_rng(7)
    runs = np.array([6, 2, 129, 130, 257, 700, 3, 1, 1, 200])
    scores = np.repeat(np.linspace(0.0, 0.9, len(runs)), runs)
    scores[: runs[0]] = -0.0  # the positives' -0.0 beside the negatives' 0.0
    positive = rng.random(len(scores)) < 0.4

    def part(rows: np.ndarray, counted: bool) -> SortedScores:
        if counted:
            return SortedScores(scores[rows], rng.integers(1, 4, rows.sum()))
        return SortedScores(scores[rows], rng.random(rows.sum()) * 10.0 ** rng.integers(-3, 3))

    counted = {"weights": (False, False), "counted": (True, True)}
    pos, neg = (
        part(rows, c) for rows, c in zip((positive, ~positive), counted[weighting], strict=True)
    )
    neg = SortedScores(np.where(neg.scores == 0, 0.0, neg.scores), neg.weights)
    bucket = Bucket.binary(pos, neg, compiled=True)
    loops = _stack_of_the_loops(bucket)
    numpy_path = bucket_blocks(Bucket.binary(pos, neg, compiled=False))
    for name in ("low", "high", "pos", "neg"):
        a, b = getattr(loops, name), getattr(numpy_path, name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), name
    sums = ("brier", "log", "proba", "infinite", "bottom", "top")
    assert [getattr(loops, s) for s in sums] == [getattr(numpy_path, s) for s in sums]
    assert numpy_faster(bucket)  # ~99% of the rows tie with the next
    assert not numpy_faster(Bucket.binary(SortedScores(pos.scores), SortedScores(neg.scores)))
    lone = np.sort(rng.random(500))
    assert not numpy_faster(Bucket.binary(SortedScores(lone, np.ones(500)), SortedScores(lone)))
