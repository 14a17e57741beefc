"""Certified AUC states (issue 31): bounds that always hold, merges in any order, files, windows.

References: the exact AUC by a rational pair count (``exact_auc``), scikit-learn's
``roc_curve`` and ``roc_auc_score`` for weighted data.
"""

from __future__ import annotations

import random
import warnings
from fractions import Fraction

import dask.array as da
import numpy as np
import pytest
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
