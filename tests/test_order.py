"""Tied rows are summed in their own order, whatever sort the running CPU's NumPy uses.

``np.argsort``'s default sort leaves equal keys in an order that depends on the
SIMD code NumPy dispatches to (AVX-512, AVX2, baseline) and on the other rows
of the array; a weighted kernel that sums tied weights in that order gives
other last bits on another machine (issue 20: ``152.9074670172693 !=
152.90746701726934`` without AVX-512).  CI runs this file again with NumPy
held to its baseline SIMD (``.ci/baseline_simd.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dask_auc._kernels.core.order import stable_argsort, stable_sort
from dask_auc._kernels.groups.pair_sums import group_pair_sums
from dask_auc._kernels.sort.prepare import prepare_block, sorted_rows

# few distinct values, both zeros and NaN: many ties, some equal only under ==
_TIED_FLOATS = st.sampled_from([0.0, -0.0, 0.25, -1.5, 3.0, np.nan, np.inf, -np.inf])


@given(
    hnp.arrays(np.float64, st.integers(0, 300), elements=_TIED_FLOATS)
    | hnp.arrays(np.float64, st.integers(0, 300))
    | hnp.arrays(np.int64, st.integers(0, 300), elements=st.integers(-3, 3))
    | hnp.arrays(np.int64, st.integers(0, 300))
)
@pytest.mark.float_order
def test_stable_argsort_is_numpys_stable_sort(values):
    expected = np.argsort(values, kind="stable")
    assert np.array_equal(stable_argsort(values), expected)
    order, ranked = stable_sort(values)
    assert np.array_equal(order, expected)
    assert ranked.tobytes() == values[expected].tobytes()  # bits: -0.0 and 0.0 where they were


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint16])
@pytest.mark.float_order
def test_stable_argsort_of_a_large_tied_array(dtype):
    """Large enough for NumPy's SIMD sorts, whose tie order differs from the rows' own."""
    rng = np.random.default_rng(1)
    values = rng.integers(0, 50, 200_000).astype(dtype)
    assert np.array_equal(stable_argsort(values), np.argsort(values, kind="stable"))


@pytest.mark.float_order
def test_tied_weights_travel_in_row_order():
    """The weighted sort keeps tied rows in row order (the order their weights are summed in)."""
    rng = np.random.default_rng(2)
    scores = rng.integers(0, 100, 5000) / 100  # below the aggregation threshold: rows, sorted
    weights = rng.random(5000) + 0.5
    part = sorted_rows(scores, weights)
    expected = np.argsort(scores, kind="stable")
    assert np.array_equal(part.scores, scores[expected])
    assert np.array_equal(part.weights, weights[expected])
    block = prepare_block(np.ones(5000, int), scores, weights)
    assert np.array_equal(block.by_label[1].weights, weights[expected])


@pytest.mark.float_order
def test_a_groups_weighted_totals_do_not_depend_on_the_other_groups():
    """Bit for bit: the same group's tied weights are added in the same order, alone or not.

    Here the other group's rows interleave with this one's (they came first
    before); each of this group's tie groups is one run of many rows.
    """
    rng = np.random.default_rng(3)
    n = 4000
    scores = rng.integers(0, 20, n) / 20
    positive = rng.random(n) < 0.4
    weights = rng.random(n) * 1e3 + rng.random(n) * 1e-3
    codes = rng.integers(0, 2, n)
    mine = codes == 1
    alone = group_pair_sums(
        np.zeros(mine.sum(), np.int64), 1, scores[mine], positive[mine], weights[mine]
    )
    both = group_pair_sums(codes, 2, scores, positive, weights)
    assert both.pos[1] == alone.pos[0]
    assert both.neg[1] == alone.neg[0]
    # the running sums below a run differ (they cross from group 0, compensated): the
    # area is equal to the tolerance the README promises for weighted results
    assert both.auc()[1] == pytest.approx(alone.auc()[0], rel=1e-15, abs=1e-15)
