"""Certified AUC states (issue 31): bounds that always hold, merges in any order, files, windows.

References: the exact AUC by a rational pair count (``exact_auc``), scikit-learn's
``roc_curve`` and ``roc_auc_score`` for weighted data.
"""

from __future__ import annotations

import random
import warnings
from fractions import Fraction
from types import SimpleNamespace

import dask
import dask.array as da
import numpy as np
import pytest
from dask.core import get_dependencies
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import dask_auc
from dask_auc._kernels.states.bins import block_state, merge_states
from strategies import dask_array, dask_frame


def exact_auc(y, s, w=None) -> Fraction:
    """The AUC as a Fraction: every (positive, negative) pair, ties one half, integer weights."""
    w = np.ones(len(y), np.int64) if w is None else np.asarray(w, np.int64)
    pos, neg = y == 1, y != 1
    pairs = w[pos][:, None] * w[neg][None, :]
    twice = pairs * (2 * (s[pos][:, None] > s[neg][None, :]) + (s[pos][:, None] == s[neg][None, :]))
    return Fraction(int(twice.sum()), 2 * int(w[pos].sum()) * int(w[neg].sum()))


@st.composite
def rows(draw, max_rows: int = 60):
    """Labels of both classes and scores with heavy ties, on and around bin edges."""
    n = draw(st.integers(2, max_rows))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    kind = draw(st.sampled_from(["few", "continuous", "signed", "powers"]))
    if kind == "few":  # a handful of distinct scores: ties everywhere
        s = rng.integers(0, draw(st.integers(1, 6)), n) / 4
    elif kind == "continuous":
        s = y + rng.normal(size=n)
    elif kind == "signed":  # both signs and zeros of both signs: the key's sign handling
        s = rng.choice([-1.5, -0.0, 0.0, 0.25, 2.0, -1e-300, 1e300, -1e300], n)
    else:  # neighbouring powers of two: scores that share long key prefixes
        s = np.ldexp(1.0, rng.integers(-3, 3, n)) * rng.choice([1.0, 1.5, 1.75], n)
    return y, s


def cuts_of(draw, n: int) -> list[int]:
    inner = draw(st.lists(st.integers(0, n), max_size=5))
    return [0, *sorted(inner), n]


@settings(max_examples=40, deadline=None)
@given(data=st.data(), resolution=st.integers(1, 12))
def test_bounds_always_hold_the_exact_auc_whatever_the_merge_order(data, resolution):
    y, s = data.draw(rows())
    cuts = cuts_of(data.draw, len(y))
    states = [
        block_state(y[a:b], s[a:b], max_bins=resolution)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    random.Random(data.draw(st.integers(0, 1000))).shuffle(states)
    state = dask_auc.ROCState(merge_states(states))
    exact = exact_auc(y, s)
    bounds = state.auc()
    assert bounds.lower <= bounds.estimate <= bounds.upper
    assert state.n_bins <= resolution
    if bounds.exact:  # the exact AUC rounded once
        assert bounds.lower == bounds.upper == float(exact)
    else:  # rounded outward: the exact value inside, always
        assert Fraction(bounds.lower) <= exact <= Fraction(bounds.upper)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), resolution=st.integers(1, 8))
def test_merged_states_are_the_state_of_the_concatenated_rows_bit_for_bit(data, resolution):
    y, s = data.draw(rows())
    cuts = cuts_of(data.draw, len(y))
    whole = block_state(y, s, max_bins=resolution)
    parts = [
        block_state(y[a:b], s[a:b], max_bins=resolution)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    orders = [merge_states(parts), merge_states(parts[::-1])]
    if len(parts) > 2:  # a tree of merges, not one merge of all
        orders.append(merge_states([merge_states(parts[:2]), merge_states(parts[2:])]))
    for merged in orders:
        assert merged.bits == whole.bits
        for name in ("bins", "pos", "neg", "low", "high"):
            np.testing.assert_array_equal(getattr(merged, name), getattr(whole, name))


@settings(max_examples=15, deadline=None)
@given(data=st.data(), layout=st.sampled_from(["array", "frame"]))
def test_exact_bounds_to_zero_width_are_roc_auc_score_for_any_partitioning(data, layout):
    y, s = data.draw(rows())
    cuts = cuts_of(data.draw, len(y))
    if layout == "array":
        inputs = (dask_array(y, cuts), dask_array(s, cuts))
    else:
        frame = dask_frame({"y": y, "s": s}, cuts)
        inputs = (frame["y"], frame["s"])
    expected = dask_auc.roc_auc_score(*inputs)
    coarse = dask_auc.roc_auc_bounds(*inputs, resolution=2, max_width=1)
    exact = dask_auc.roc_auc_bounds(*inputs, resolution=2, max_width=0)
    assert exact == (expected, expected, expected, True)
    assert Fraction(coarse.lower) <= Fraction(expected) <= Fraction(coarse.upper)


def test_refinement_stops_at_the_width_asked():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 4000)
    s = y + rng.normal(size=4000)
    one_pass = dask_auc.roc_state(y, s, resolution=64).auc()
    assert one_pass.width > 1e-2
    refined = dask_auc.roc_auc_bounds(y, s, resolution=64, max_width=1e-2)
    exact = exact_auc(y, s)
    assert refined.width <= 1e-2
    assert Fraction(refined.lower) <= exact <= Fraction(refined.upper) or refined.exact
    assert one_pass.lower <= refined.lower and refined.upper <= one_pass.upper


@pytest.mark.parametrize(
    ("resolution", "budget", "fan_in"), [(2**18, None, 8), (2**21, None, 2), (2**12, "2MiB", 12)]
)
def test_the_merge_tree_takes_fewer_states_at_once_where_they_are_large(resolution, budget, fan_in):
    """A merge holds its states whole: no more of ``resolution`` bins than fit the bucket
    budget (8 states of 2**25 bins killed 6 GiB workers on 1e9 rows), at least 2, at most
    ``dask-auc.split-every``; the same state whatever the fan-in."""
    rng = np.random.default_rng(4)
    y, s = rng.integers(0, 2, 3200), rng.normal(size=3200)
    options = {"dask-auc.split-every": 12} if budget else {}
    if budget:
        options["dask-auc.bucket-bytes"] = budget
    with dask.config.set(options):
        lazy = dask_auc.roc_state(
            da.from_array(y, chunks=100), da.from_array(s, chunks=100),
            resolution=resolution, compute=False,
        )  # fmt: skip
        graph = dict(lazy.__dask_graph__())
    merges = [key for key in graph if str(key[0] if isinstance(key, tuple) else key)
              .startswith("merge_states")]  # fmt: skip
    assert max(len(get_dependencies(graph, key)) for key in merges) == fan_in
    expected, level = 0, 32  # the blocks
    while level > 1:
        level = -(-level // fan_in)
        expected += level
    assert len(merges) == expected
    assert lazy.compute(scheduler="sync").auc() == dask_auc.roc_state(y, s).auc()


def test_quantised_scores_are_exact_in_one_pass():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 20_000)
    s = np.round(np.clip(0.3 * y + rng.beta(2, 5, 20_000), 0, 1), 4)  # <= 10,001 scores
    state = dask_auc.roc_state(da.from_array(y, chunks=3000), da.from_array(s, chunks=3000))
    assert state.auc() == (dask_auc.roc_auc_score(y, s),) * 3 + (True,)


def test_weighted_and_scaled_states_equal_scikit_learn():
    rng = np.random.default_rng(1)
    y, s = rng.integers(0, 2, 500), np.round(rng.random(500), 2)
    w = rng.choice([0.0, 0.5, 1.0, 3.0], 500)
    day = dask_auc.roc_state(y, s, sample_weight=w)
    bounds = day.auc()
    assert bounds.exact
    assert bounds.estimate == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    # a decayed window: yesterday at half weight
    window = day.scale(0.5) + dask_auc.roc_state(y[::-1], s)
    expected = skm.roc_auc_score(
        np.r_[y, y[::-1]], np.r_[s, s], sample_weight=np.r_[0.5 * w, np.ones(500)]
    )
    assert window.auc().estimate == pytest.approx(expected, rel=1e-12)


def test_curve_points_are_points_of_the_exact_curve():
    rng = np.random.default_rng(2)
    y, s = rng.integers(0, 2, 300), rng.normal(size=300)
    fpr, tpr, thresholds = skm.roc_curve(y, s, drop_intermediate=False)
    exact = dict(
        zip(thresholds.tolist(), zip(fpr.tolist(), tpr.tolist(), strict=True), strict=True)
    )
    for resolution in (5, 10**6):
        points = dask_auc.roc_state(y, s, resolution=resolution).roc_curve()
        for f, t, threshold in zip(*points, strict=True):
            assert exact[threshold] == (f, t)
    np.testing.assert_array_equal(points[2], thresholds)  # every point, once exact


def test_a_saved_state_loads_equal_and_a_foreign_file_is_refused(tmp_path):
    y, s = np.array([0, 1, 1, 0, 1]), np.array([0.1, 0.9, 0.4, 0.4, 0.7])
    state = dask_auc.roc_state(y, s, pos_label=1, resolution=3)
    state.save(tmp_path / "day.state")
    loaded = dask_auc.ROCState.load(tmp_path / "day.state")
    assert loaded.auc() == state.auc() and repr(loaded) == repr(state)
    assert (loaded + state).auc() == dask_auc.roc_state(
        np.r_[y, y], np.r_[s, s], resolution=3
    ).auc()
    (tmp_path / "other.state").write_bytes(b"not a state")
    with pytest.raises(ValueError, match="not a state written by ROCState.save"):
        dask_auc.ROCState.load(tmp_path / "other.state")
    np.savez(tmp_path / "old.npz", meta=np.array('{"format": "dask-auc ROCState", "version": 0}'))
    with pytest.raises(ValueError, match="version 0; this dask-auc reads"):
        dask_auc.ROCState.load(tmp_path / "old.npz")


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="Input contains NaN"):
        dask_auc.roc_state(np.array([0, 1]), np.array([0.5, np.nan]))
    with pytest.raises(ValueError, match=r"pass pos_label explicitly"):
        dask_auc.roc_state(np.array([1, 2]), np.array([0.5, 0.6]))
    a = dask_auc.roc_state(np.array([0, 1]), np.array([0.5, 0.6]), resolution=4)
    b = dask_auc.roc_state(np.array([0, 1]), np.array([0.5, 0.6]), resolution=8)
    with pytest.raises(ValueError, match="different resolutions"):
        a + b
    zero = dask_auc.roc_state(np.array([0]), np.array([0.5]))
    with pytest.raises(ValueError, match="pass pos_label explicitly"):  # {0} with {-1}
        zero + dask_auc.roc_state(np.array([-1]), np.array([0.5]))
    with pytest.raises(ValueError, match="non-negative"):
        a.scale(-1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bounds = zero.auc()
    assert np.isnan(bounds.lower) and caught


def test_states_made_on_a_process_cluster_equal_the_threaded_ones(client):
    rng = np.random.default_rng(4)
    y, s = rng.integers(0, 2, 3000), np.round(rng.random(3000), 3)
    y_d, s_d = da.from_array(y, chunks=400), da.from_array(s, chunks=400)
    on_cluster = dask_auc.roc_state(y_d, s_d, resolution=200)
    with dask_auc_threads():
        threaded = dask_auc.roc_state(y_d, s_d, resolution=200)
    assert on_cluster.auc() == threaded.auc()
    assert repr(on_cluster) == repr(threaded)


def dask_auc_threads():
    import dask

    return dask.config.set(scheduler="threads")


# -- partial AUC and KS from a state (exact rational references) ---------------------------


def exact_groups(y, s, w) -> list[tuple[int, int]]:
    """(negative weight, positive weight) of each distinct score, from the top score down."""
    groups = []
    for score in sorted(set(s.tolist()), reverse=True):
        at = s == score
        groups.append((int(w[at & (y != 1)].sum()), int(w[at & (y == 1)].sum())))
    return groups


def exact_partial(groups, max_fpr: float) -> Fraction:
    """The raw area under the curve over fpr in [0, max_fpr]: straight segments in tie groups."""
    total_x, total_y = sum(g[0] for g in groups), sum(g[1] for g in groups)
    target, x, height, area = Fraction(max_fpr) * total_x, 0, 0, Fraction(0)
    for gx, gy in groups:
        if x + gx <= target:
            area += Fraction(gx * (2 * height + gy), 2)
        else:
            used = target - x
            area += used * (height + Fraction(gy, 2 * gx) * used)
            break
        x, height = x + gx, height + gy
    return area / (total_x * total_y)


def mcclish_exact(area: Fraction, max_fpr: float) -> Fraction:
    m = Fraction(max_fpr)
    return (1 + (area - m * m / 2) / (m - m * m / 2)) / 2


def exact_ks(groups) -> Fraction:
    total_x, total_y = sum(g[0] for g in groups), sum(g[1] for g in groups)
    x = height = best = 0
    for gx, gy in groups:
        x, height = x + gx, height + gy
        best = max(best, abs(height * total_x - x * total_y))
    return Fraction(best, total_x * total_y)


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    resolution=st.integers(1, 10),
    weighting=st.sampled_from(["none", "zeros", "extreme"]),
    max_fpr=st.one_of(
        st.sampled_from([1e-9, 0.1, 0.25, 0.5, 0.75, 1 - 1e-12]), st.floats(0.01, 0.99)
    ),
)
def test_partial_auc_and_ks_bounds_hold_the_exact_values(data, resolution, weighting, max_fpr):
    y, s = data.draw(rows())
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    w = np.ones(len(y), np.int64)
    if weighting == "zeros":  # may leave one class without weight
        w = rng.choice([0, 1, 3], len(y))
    elif weighting == "extreme":
        w = rng.choice([1, 10**9], len(y))
    weights = None if weighting == "none" else w.astype(np.float64)
    cuts = cuts_of(data.draw, len(y))
    states = [
        block_state(y[a:b], s[a:b], None if weights is None else weights[a:b], max_bins=resolution)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    random.Random(data.draw(st.integers(0, 1000))).shuffle(states)
    state = dask_auc.ROCState(merge_states(states))
    groups = exact_groups(y, s, w)
    if not all(sum(g[c] for g in groups) for c in (0, 1)):  # one class: undefined
        with pytest.warns(dask_auc.UndefinedMetricWarning):
            assert np.isnan(state.auc(max_fpr=max_fpr).lower)
        with pytest.warns(dask_auc.UndefinedMetricWarning):
            assert state.ks().threshold is None
        return
    partial = state.auc(max_fpr=max_fpr)
    area = exact_partial(groups, max_fpr)
    assert partial.lower <= partial.estimate <= partial.upper
    if partial.exact:  # roc_auc_score's formula on the exact area, to the last bit
        m = max_fpr
        value = 0.5 * (1 + (float(area) - 0.5 * m**2) / (m - 0.5 * m**2))
        assert partial.lower == partial.upper == value
    else:
        assert Fraction(partial.lower) <= mcclish_exact(area, max_fpr) <= Fraction(partial.upper)
    reference = skm.roc_auc_score(y, s, sample_weight=weights, max_fpr=max_fpr)
    assert partial.lower - 1e-12 <= reference <= partial.upper + 1e-12
    ks, exact = state.ks(), exact_ks(groups)
    if ks.exact:
        assert ks.lower == ks.upper == float(exact)
    else:
        assert Fraction(ks.lower) <= exact <= Fraction(ks.upper)
    if state.n_bins == len(groups):  # one bin per score: every bound is the exact value
        assert partial.exact and ks.exact


def test_exact_states_give_the_exact_functions_partial_auc_and_ks_bit_for_bit():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 3000)
    s = np.round(np.clip(0.2 * y + rng.beta(2, 5, 3000), 0, 1), 3)  # <= 1001 scores: exact
    y_d, s_d = da.from_array(y, chunks=700), da.from_array(s, chunks=700)
    state = dask_auc.roc_state(y_d, s_d)
    for max_fpr in (0.001, 0.05, 1 / 3, 0.5, 0.9):
        bounds = state.auc(max_fpr=max_fpr)
        expected = dask_auc.roc_auc_score(y_d, s_d, max_fpr=max_fpr)
        assert bounds == (expected, expected, expected, True)
        assert expected == pytest.approx(skm.roc_auc_score(y, s, max_fpr=max_fpr), abs=1e-14)
    assert state.auc(max_fpr=1.0) == state.auc()
    ks, statistic = state.ks(), dask_auc.ks_statistic(y_d, s_d)
    assert (ks.lower, ks.upper, ks.exact, ks.threshold) == (*statistic[:1] * 2, True, statistic[1])
    coarse = dask_auc.roc_state(y_d, s_d, resolution=16)  # several scores a bin: bounds only
    assert not coarse.ks().exact and coarse.ks().lower <= ks.lower <= coarse.ks().upper
    with pytest.raises(ValueError, match="max_fpr"):
        state.auc(max_fpr=0)


def test_compiled_bins_equal_the_numpy_bins():
    compiled = pytest.importorskip("dask_auc._kernels.states._numba")
    from dask_auc._kernels.states.bins import binned_rows

    rng = np.random.default_rng(6)
    for n, resolution in ((0, 3), (1, 1), (500, 1), (500, 7), (3000, 64), (3000, 10**6)):
        s = np.concatenate([rng.normal(size=n // 2), rng.integers(-3, 4, n - n // 2) / 2])
        s[::7] = -0.0
        positive = rng.random(n) < 0.4
        for weights in (None, rng.choice([0.5, 1e-300, 1e300, 3.25], n)):
            numpy = binned_rows(s, positive, weights, max_bins=resolution)
            hashed = binned_rows(s, positive, weights, max_bins=resolution, loops=compiled)
            assert numpy[0] == hashed[0]
            for a, b in zip(numpy[1:], hashed[1:], strict=True):
                assert a.dtype == b.dtype
                np.testing.assert_array_equal(a, b)


# -- the compiled bins (parts, tables, a bitmap of levels) against the NumPy path ------------


def adversarial_scores(kind: str, n: int, rng) -> np.ndarray:
    """Scores that corner the compiled path: one cell, last bits, signs, clusters, wide range."""
    if kind == "one value":  # every row in one bin, at any resolution
        return np.full(n, 0.3)
    if kind == "last bits":  # keys that differ only in their last bits: one cell, long prefix
        return 0.5 + rng.integers(0, 40, n) * 2.0**-52
    if kind == "signs":  # both zeros, infinities, subnormals and extremes: the key's sign handling
        return rng.choice([-0.0, 0.0, np.inf, -np.inf, 5e-324, -5e-324, 1e300, -1e-300, 1.0], n)
    if kind == "clusters":  # few prefixes at the bitmap's level, many keys: bits dropped later
        return rng.choice([1.0, 2.0, 3.0, 1e6], n) * (1 + rng.integers(0, 1 << 20, n) * 2.0**-50)
    if kind == "wide":  # exponents all over: few bits fit a small resolution (fewer than 16)
        return np.ldexp(rng.choice([1.0, -1.0], n), rng.integers(-1000, 1000, n))
    return rng.normal(size=n) ** 3  # continuous, heavy tails: the bits known from the bitmap


@pytest.mark.parametrize(
    "kind", ["one value", "last bits", "signs", "clusters", "wide", "continuous"]
)
def test_compiled_bins_equal_the_numpy_bins_on_adversarial_scores(kind):
    compiled = pytest.importorskip("dask_auc._kernels.states._numba")
    from dask_auc._kernels.states.bins import binned_rows

    rng = np.random.default_rng(len(kind))
    s = adversarial_scores(kind, 1500, rng)
    positive = rng.random(len(s)) < 0.3
    weightings = (None, rng.choice([0.0, 0.5, 1e-300, 1e300, 3.25], len(s)))
    for max_bins in (1, 2, 3, 5, 64, 1000, 10**6):
        for part_rows in (1, 37, None):  # one cell a part, a few, one part
            for weights in weightings:
                numpy = binned_rows(s, positive, weights, max_bins=max_bins)
                parts = binned_rows(
                    s, positive, weights, max_bins=max_bins, loops=compiled, part_rows=part_rows
                )
                assert numpy[0] == parts[0], (max_bins, part_rows)
                for a, b in zip(numpy[1:], parts[1:], strict=True):
                    assert a.dtype == b.dtype
                    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", ["continuous", "wide", "signs", "last bits"])
def test_the_dense_table_and_the_parts_give_the_numpy_bins(kind, monkeypatch):
    """Bits known from the bitmap: one dense table counts the rows (a spy sees it used); with
    the dense table turned off, the parts count them: the NumPy path's bins either way."""
    compiled = pytest.importorskip("dask_auc._kernels.states._numba")
    from dask_auc._kernels.states import _dense
    from dask_auc._kernels.states.bins import binned_rows

    rng = np.random.default_rng(len(kind) + 31)
    s = adversarial_scores(kind, 1200, rng)
    positive = rng.random(len(s)) < 0.3
    weights = rng.choice([0.5, 1e-300, 1e300, 3.25], len(s))
    dense_calls = []
    table = compiled.dense_bins

    def spy(*args):
        dense_calls.append(args[3])  # the shift counted at
        return table(*args)

    monkeypatch.setattr(compiled, "dense_bins", spy)
    for dense_most in (_dense.DENSE_MOST, 0):
        monkeypatch.setattr(_dense, "DENSE_MOST", dense_most)
        dense_calls.clear()
        for max_bins in (1, 3, 64, 500):
            for w in (None, weights):
                numpy = binned_rows(s, positive, w, max_bins=max_bins)
                calls = len(dense_calls)
                ours = binned_rows(s, positive, w, max_bins=max_bins, loops=compiled, part_rows=40)
                assert numpy[0] == ours[0], (dense_most, max_bins)
                assert all(64 - shift == numpy[0] for shift in dense_calls[calls:])
                for a, b in zip(numpy[1:], ours[1:], strict=True):
                    assert a.dtype == b.dtype
                    np.testing.assert_array_equal(a, b)
        assert bool(dense_calls) == bool(dense_most), (kind, dense_most)


@pytest.mark.parametrize("kind", ["signs", "last bits", "clusters", "wide", "one value"])
def test_a_block_of_few_rows_is_sorted_to_the_numpy_bins(kind, monkeypatch):
    """At most ``max_bins`` rows: every key a bin, counted by a sort of the keys (a spy sees it)
    unless a small table holds them; the NumPy definition's bins, weighted sums (added in row
    order: 0.1 + 0.2 + 0.3 is not 0.3 + 0.2 + 0.1) bit for bit."""
    compiled = pytest.importorskip("dask_auc._kernels.states._numba")
    from dask_auc._kernels.states.bins import binned_rows

    rng = np.random.default_rng(len(kind) + 7)
    s = np.concatenate([adversarial_scores(kind, 700, rng), rng.normal(size=300)])
    s = s[rng.permutation(len(s))]  # ties of the kind among distinct keys: too many for a table
    positive = rng.random(len(s)) < 0.3
    weights = rng.choice([0.1, 0.2, 0.3, 1e300, 1e-300, 2.5], len(s))
    sorted_calls = []
    sort = compiled.sorted_bins
    monkeypatch.setattr(compiled, "sorted_bins", lambda *a: sorted_calls.append(1) or sort(*a))
    for max_bins in (len(s), 10**6):
        for w in (None, weights):
            numpy = binned_rows(s, positive, w, max_bins=max_bins)
            ours = binned_rows(s, positive, w, max_bins=max_bins, loops=compiled)
            assert numpy[0] == ours[0] == 64
            for a, b in zip(numpy[1:], ours[1:], strict=True):
                assert a.dtype == b.dtype
                np.testing.assert_array_equal(a, b)
    assert len(sorted_calls) == 4
    few = np.sign(s) * rng.integers(0, 20, len(s))  # few keys (-0.0 too): a small table, no sort
    for w in (None, weights):
        numpy = binned_rows(few, positive, w, max_bins=len(s))
        ours = binned_rows(few, positive, w, max_bins=len(s), loops=compiled)
        for a, b in zip(numpy, ours, strict=True):
            np.testing.assert_array_equal(a, b)
    assert len(sorted_calls) == 4


@settings(max_examples=30, deadline=None)
@given(data=st.data(), max_bins=st.integers(1, 40), part_rows=st.sampled_from([1, 3, 50]))
def test_compiled_bins_equal_the_numpy_bins_on_any_rows(data, max_bins, part_rows):
    compiled = pytest.importorskip("dask_auc._kernels.states._numba")
    from dask_auc._kernels.states.bins import binned_rows

    y, s = data.draw(rows())
    weights = None if data.draw(st.booleans()) else np.abs(s) % 3
    numpy = binned_rows(s, y == 1, weights, max_bins=max_bins)
    parts = binned_rows(s, y == 1, weights, max_bins=max_bins, loops=compiled, part_rows=part_rows)
    assert numpy[0] == parts[0]
    for a, b in zip(numpy[1:], parts[1:], strict=True):
        np.testing.assert_array_equal(a, b)


def compiled_merges():
    """The compiled loops twice: as they are (a dense table wherever the bins span few
    prefix values), and with the dense merge declined, so that the merge of runs' heads
    and the sorted union's are checked too."""
    compiled = pytest.importorskip("dask_auc._kernels.states._numba")
    return [
        compiled,
        SimpleNamespace(dense_merged=lambda *a: None, merged_bins=compiled.merged_bins),
    ]


@settings(max_examples=25, deadline=None)
@given(data=st.data(), max_bins=st.integers(1, 12), dense=st.booleans())
def test_the_compiled_merge_equals_the_numpy_merge(data, max_bins, dense):
    compiled = compiled_merges()[0 if dense else 1]
    y, s = data.draw(rows())
    cuts = cuts_of(data.draw, len(y))
    parts = [
        block_state(y[a:b], s[a:b], max_bins=max_bins, compiled=False)
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    random.Random(data.draw(st.integers(0, 1000))).shuffle(parts)
    numpy, merged = merge_states(parts, loops=None), merge_states(parts, loops=compiled)
    assert merged.bits == numpy.bits and merged.classes == numpy.classes
    for name in ("bins", "pos", "neg", "low", "high"):
        assert getattr(merged, name).dtype == getattr(numpy, name).dtype
        np.testing.assert_array_equal(getattr(merged, name), getattr(numpy, name))


@pytest.mark.parametrize("kind", ["signs", "last bits", "clusters", "wide", "continuous"])
def test_many_states_of_every_key_merge_to_the_numpy_merge(kind):
    """States of small blocks keep every key, so their bins together are many times
    ``max_bins``: the compiled merge finds the union's bits from a sort of the bins and adds
    each state's counts to its prefixes there -- the NumPy merge's state (ties across states,
    -0.0 and 0.0, one state alone)."""
    merges = compiled_merges()
    rng = np.random.default_rng(len(kind) + 11)
    s = adversarial_scores(kind, 1600, rng)
    s = np.where(np.isinf(s), np.copysign(1e308, s), s)  # (scores are finite)
    y = (rng.random(len(s)) < 0.3).astype(int)
    for max_bins, blocks in ((200, 8), (70, 16), (400, 3)):
        cuts = np.linspace(0, len(s), blocks + 1).astype(int)
        parts = [
            block_state(y[a:b], s[a:b], max_bins=max_bins, compiled=False)
            for a, b in zip(cuts[:-1], cuts[1:], strict=True)
        ]
        numpy = merge_states(parts, loops=None)
        for compiled in merges:
            merged = merge_states(parts, loops=compiled)
            assert merged.bits == numpy.bits, (max_bins, blocks)
            for name in ("bins", "pos", "neg", "low", "high"):
                assert getattr(merged, name).dtype == getattr(numpy, name).dtype
                np.testing.assert_array_equal(getattr(merged, name), getattr(numpy, name))


@pytest.mark.parametrize("days", [2, 28])
def test_daily_states_merge_densely_to_the_numpy_merge(days):
    """States of a day each (more than ``MERGED_RUNS`` of them, at different bits: days of
    different sizes) merge through one dense table, shortened on the way in: the NumPy
    merge's state, bit for bit; checked to have taken that path."""
    compiled = pytest.importorskip("dask_auc._kernels.states._numba")
    rng = np.random.default_rng(days)
    sizes = rng.integers(300, 3000, days)
    sizes[0] = 100  # (a day of fewer rows than bins keeps every score: 64 bits)
    states = []
    for size in sizes:
        s = 1 / (1 + np.exp(-rng.normal(0, rng.uniform(0.5, 4), size)))
        y = (rng.random(size) < s).astype(int)
        states.append(block_state(y, s, max_bins=256, compiled=False))
    assert len({s.bits for s in states}) > 1
    dense = []

    def recorded(*args):
        dense.append(compiled.dense_merged(*args))
        return dense[-1]

    spy = SimpleNamespace(dense_merged=recorded, merged_bins=compiled.merged_bins)
    numpy = merge_states(states, loops=None)
    for merged in (merge_states(states, loops=spy), merge_states(states)):
        assert merged.bits == numpy.bits
        for name in ("bins", "pos", "neg", "low", "high"):
            assert getattr(merged, name).dtype == getattr(numpy, name).dtype
            np.testing.assert_array_equal(getattr(merged, name), getattr(numpy, name))
    assert dense and dense[0] is not None
