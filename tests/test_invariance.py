"""Invariance tests run on every metric of ``metric_registry.REGISTRY``.

Each test is parametrized over the registry, so a metric added there gets all of
them.  The comparison rule is the entry's :meth:`Metric.compare`: on unweighted
data its exact fields (AUCs, partial AUC, the curves' rates and thresholds, the
KS statistic, per-group AUCs and counts) must be bit-identical, everything else
(weighted data, average precision, DeLong's standard error) equal within
``RTOL`` (1e-12).  Data come from Hypothesis with heavy ties (few distinct scores).

Library bugs these tests found are pinned below as strict xfails, each with its
minimal reproduction.
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dask_auc
from metric_registry import PERSISTED_SUFFIX, REGISTRY, Metric, cases, dask_inputs, permuted
from strategies import boundaries, examples

every_metric = pytest.mark.parametrize("metric", REGISTRY.values(), ids=REGISTRY.keys())

# A persisted ROC's query reads the buckets of the very sort its function entry computes
# (the same ``CurveSort``, kept in memory): the properties of that sort -- bucket counts,
# row order, coalesced blocks and exchanges, compiled kernels -- are its function entry's.
# The persisted entries are held to the reference, any partitioning and ``compute=False``.
FUNCTIONS = {n: m for n, m in REGISTRY.items() if not n.endswith(PERSISTED_SUFFIX)}
every_function = pytest.mark.parametrize("metric", FUNCTIONS.values(), ids=FUNCTIONS.keys())

TAKES_SPLIT_EVERY = {name: metric for name, metric in REGISTRY.items() if metric.split_every}

# the metrics that sort rows across blocks: the bucket count and the sort's kernels apply
SORTING = {name: metric for name, metric in FUNCTIONS.items() if metric.sorts}
every_sorting_metric = pytest.mark.parametrize("metric", SORTING.values(), ids=SORTING.keys())

BUCKET_COUNTS = (1, 2, 7)


def _unweighted(columns) -> bool:
    return "sample_weight" not in columns


@st.composite
def cuts(draw, n: int) -> list[int]:
    """Partition boundaries of ``n`` rows: one partition to a dozen, often empty ones.

    ``boundaries`` cuts at random rows; repeating some of its cuts (0 and ``n``
    among them) adds empty partitions anywhere, first and last included.
    """
    points = draw(boundaries(n))
    return sorted(points + draw(st.lists(st.sampled_from(points), max_size=3)))


def _cuts_for(metric: Metric, columns) -> st.SearchStrategy[list[int]]:
    return cuts(len(columns["y_true"]))


@st.composite
def partitioned(draw, metric: Metric):
    """A case for ``metric``, partition boundaries and an input layout."""
    columns = draw(cases(metric))
    return columns, draw(_cuts_for(metric, columns)), draw(st.sampled_from(metric.layouts))


def _graph_size(metric: Metric, inputs, **options) -> int:
    """Tasks in the lazy result's graph (the public dask collection protocol)."""
    return len(dict(metric.run(inputs, compute=False, **options).__dask_graph__()))


@every_metric
@settings(max_examples=examples(4), deadline=None)
@given(data=st.data())
@pytest.mark.float_order
def test_equals_its_reference_on_tied_data(metric: Metric, data) -> None:
    """The metric equals scikit-learn or a brute-force pair count on heavily tied scores.

    Weighted when the metric accepts weights (half of the examples), on dask
    DataFrame columns or dask arrays of any partitioning.  Where the reference is
    exact (rational pair count, scikit-learn's curve arrays) unweighted results
    must match it bit for bit.
    """
    columns, cut_rows, layout = data.draw(partitioned(metric))
    result = metric(dask_inputs(columns, cut_rows, layout))
    exact = metric.reference_exact and _unweighted(columns)
    metric.compare(result, metric.reference(columns), exact=exact)


@pytest.mark.float_order
def test_weighted_ks_statistic_with_an_empty_first_block() -> None:
    """An empty first block changes nothing: the statistic of the same rows in one block.

    Found by this registry: the empty block's pieces carried no weights, the
    statistic then took the integer path and cut the weighted totals to ints.
    """
    y, s, w = np.array([0, 0, 0, 0, 1]), np.array([0.5, 0, 0.5, 0, 0]), np.array([3, 0.5, 0, 3, 1])
    # weights of few binary digits: every sum exact in any order, so == holds on any CPU
    expected = dask_auc.ks_statistic(y, s, sample_weight=w)  # (6/13, 0.5), as the reference
    assert expected == (6 / 13, 0.5)
    y_d, s_d, w_d = (da.from_array(v, chunks=((0, 5),)) for v in (y, s, w))
    assert dask_auc.ks_statistic(y_d, s_d, sample_weight=w_d) == expected  # gave (0.5, 0.5)
    pairs = ([1, 0], [0.2, 0.7], [0.5, 3.0])
    y_d, s_d, w_d = (da.from_array(np.array(v), chunks=((0, 2),)) for v in pairs)
    assert dask_auc.ks_statistic(y_d, s_d, sample_weight=w_d) == (1.0, 0.7)  # gave an error


@pytest.mark.float_order
def test_weighted_ks_statistic_of_one_tie_group_is_zero() -> None:
    """One threshold holding every row: tpr = fpr = 1 there, so the largest gap is exactly 0.

    (It was 2.2e-16 until the running sums ended at the summaries' totals: issue 20.)
    """
    y, s, w = np.array([0, 0, 0, 1]), np.zeros(4), np.array([0.1, 0.1, 1.0, 0.1])
    fpr, tpr, _ = dask_auc.roc_curve(y, s, sample_weight=w)
    assert np.max(np.abs(tpr - fpr)) == 0.0
    assert dask_auc.ks_statistic(y, s, sample_weight=w).statistic == 0.0


@every_metric
@settings(max_examples=examples(3), deadline=None)
@given(data=st.data())
@pytest.mark.float_order
def test_any_partitioning_gives_the_same_result(metric: Metric, data) -> None:
    """Any partition boundaries, empty partitions included, give one partition's result.

    Also across layouts: the one-partition baseline and the partitioned run draw
    their layout (DataFrame columns or arrays) independently.
    """
    columns = data.draw(cases(metric))
    n = len(columns["y_true"])
    whole = metric(dask_inputs(columns, [0, n], data.draw(st.sampled_from(metric.layouts))))
    cut_rows = data.draw(_cuts_for(metric, columns))
    result = metric(dask_inputs(columns, cut_rows, data.draw(st.sampled_from(metric.layouts))))
    metric.compare(result, whole, exact=_unweighted(columns))


@every_sorting_metric
@settings(max_examples=examples(2), deadline=None)
@given(data=st.data())
@pytest.mark.float_order
def test_bucket_count_does_not_change_the_result(metric: Metric, data) -> None:
    """``dask-auc.buckets`` set to 1, 2 or 7 gives the result of the default bucket count.

    The setting is seen to take effect: the graphs it builds differ in size.
    """
    columns, cut_rows, layout = data.draw(partitioned(metric))
    inputs = dask_inputs(columns, cut_rows, layout)
    default = metric(inputs)
    sizes = set()
    for buckets in BUCKET_COUNTS:
        with dask.config.set({"dask-auc.buckets": buckets}):
            metric.compare(metric(inputs), default, exact=_unweighted(columns))
            sizes.add(_graph_size(metric, inputs))
    assert len(sizes) > 1, f"dask-auc.buckets in {BUCKET_COUNTS} built the same graph"


@pytest.mark.parametrize("metric", TAKES_SPLIT_EVERY.values(), ids=TAKES_SPLIT_EVERY.keys())
@settings(max_examples=examples(2), deadline=None)
@given(data=st.data(), split_every=st.sampled_from([2, 3, 100]))
@pytest.mark.float_order
def test_split_every_does_not_change_the_result(metric: Metric, data, split_every: int) -> None:
    """Any fan-in of the merge tree gives the default fan-in's result (7 buckets: a real tree)."""
    columns, cut_rows, layout = data.draw(partitioned(metric))
    inputs = dask_inputs(columns, cut_rows, layout)
    with dask.config.set({"dask-auc.buckets": 7}):
        default = metric(inputs)
        result = metric(inputs, split_every=split_every)
    metric.compare(result, default, exact=_unweighted(columns))


# roc_auc_score(max_fpr=...) reads the bucket summaries in one task (its docstring says
# so): split_every has no tree to shape there.  roc_auc_ci used to ignore it too, found
# by this test; it now sums the variance terms with a tree.
_NO_TREE = {"roc_auc_score-max_fpr", "roc_auc_score-max_fpr-persisted-roc"}


@pytest.mark.parametrize(
    "metric",
    [metric for name, metric in TAKES_SPLIT_EVERY.items() if name not in _NO_TREE],
    ids=[name for name in TAKES_SPLIT_EVERY if name not in _NO_TREE],
)
def test_split_every_shapes_the_merge_tree(metric: Metric) -> None:
    """``split_every`` takes effect: fan-in 2 builds a deeper tree (more tasks) than 100.

    Without this the invariance test above would also pass for a ``split_every``
    that is accepted and never used.
    """
    columns = {
        "y_true": (np.arange(60) % 3 == 0).astype(int),
        "y_score": np.arange(60) % 7 / 7,
    }
    if metric.scores == "proba":
        y = np.arange(60) % 3
        counts = 1.0 + (np.arange(180).reshape(60, 3) % 4)
        counts[np.arange(60), y] += 2
        columns = {"y_true": y, "y_score": counts / counts.sum(axis=1, keepdims=True)}
    inputs = dask_inputs(columns, [0, 10, 10, 35, 60], "frame")
    with dask.config.set({"dask-auc.buckets": 7}):
        deep = _graph_size(metric, inputs, split_every=2)
        shallow = _graph_size(metric, inputs, split_every=100)
    assert deep > shallow


@every_function
@settings(max_examples=examples(2), deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
@pytest.mark.float_order
def test_row_order_does_not_change_the_result(metric: Metric, data, seed: int) -> None:
    """Shuffling the rows (every input by the same permutation) leaves the result unchanged."""
    if metric.positional:
        pytest.skip("the bootstrap's replicate counts follow each row's position")
    columns, cut_rows, layout = data.draw(partitioned(metric))
    permutation = np.random.default_rng(seed).permutation(len(columns["y_true"]))
    result = metric(dask_inputs(permuted(columns, permutation), cut_rows, layout))
    metric.compare(
        result, metric(dask_inputs(columns, cut_rows, layout)), exact=_unweighted(columns)
    )


class ComputedWhileBuilding(AssertionError):
    """Raised by the scheduler installed while a lazy result is being built."""


def _refuse_to_compute(dsk, keys, **kwargs):
    raise ComputedWhileBuilding(f"asked to compute {keys!r} while building a graph")


@every_metric
@settings(max_examples=2, deadline=None)
@given(data=st.data())
def test_compute_false_builds_a_graph_without_computing(metric: Metric, data) -> None:
    """``compute=False`` computes nothing, and its ``compute()`` is ``compute=True``'s result.

    The call runs under a scheduler that raises on any computation (flox's
    ``raise_if_dask_computes``); computing the lazy result under it must raise,
    which shows that the guard sees the computations it is there to forbid.
    """
    columns, cut_rows, layout = data.draw(partitioned(metric))
    inputs = dask_inputs(columns, cut_rows, layout)
    with dask.config.set(scheduler=_refuse_to_compute):
        lazy = metric.run(inputs, compute=False)
        assert isinstance(lazy, dask_auc.LazyScore)
        assert dask.is_dask_collection(lazy)
        with pytest.raises(ComputedWhileBuilding):
            lazy.compute()
    metric.compare(metric.plain(lazy.compute()), metric(inputs), exact=_unweighted(columns))


# Thousands of partitions: every input block has its own tasks (validate, sort, cut into
# bucket pieces), so one pass takes seconds, too slow for every entry.  Two entries cover
# the two ways results are assembled: roc_auc_score (the sample sort's splitters from
# thousands of mostly empty blocks, then the neighbour-only merge tree) and roc_curve (the
# ordered scan that places each bucket's points, and drop_intermediate).  Both are computed
# in one pass, as a user asking both would (``dask_auc.compute``).  Dask arrays: their chunk
# lengths are known, so the time goes to the blocks' tasks, not to measuring 2,000 frame
# partitions twice (test_thresholds' thousands-of-partitions test takes DataFrame columns).
THOUSANDS = ["roc_auc_score", "roc_curve"]


def test_thousands_of_tiny_partitions_equal_the_reference() -> None:
    """2,000 partitions of 500 heavily tied rows, most partitions empty, give the reference."""
    rng = np.random.default_rng(2000)
    n = 500
    y = rng.integers(0, 2, n)
    columns = {"y_true": y, "y_score": rng.integers(0, 8, n) / 8 + 0.25 * y}
    cut_rows = [0, *np.sort(rng.integers(0, n + 1, 1999)).tolist(), n]
    assert len(cut_rows) - 1 == 2000
    assert sum(a == b for a, b in zip(cut_rows[:-1], cut_rows[1:], strict=True)) > 1000
    inputs = dask_inputs(columns, cut_rows, "array")
    metrics = [REGISTRY[name] for name in THOUSANDS]
    results = dask_auc.compute(*(metric.run(inputs, compute=False) for metric in metrics))
    for metric, result in zip(metrics, results, strict=True):
        reference = metric.reference(columns)
        metric.compare(metric.plain(result), reference, exact=metric.reference_exact)


@every_function
@settings(max_examples=examples(2), deadline=None)
@given(
    data=st.data(),
    exchange=st.sampled_from(["direct", "tasks"]),
    budget=st.sampled_from([400, 4000]),
)
@pytest.mark.float_order
def test_coalesced_partitions_and_every_exchange_give_the_same_result(
    metric: Metric, data, exchange: str, budget: int
) -> None:
    """Partitions coalesced into blocks, buckets sized by a tiny budget, any exchange.

    A ``dask-auc.bucket-bytes`` of 4000 bytes joins partitions into blocks of
    up to ~125 rows; 400 bytes cuts buckets of ~25 rows.  Unknown partition
    lengths are measured (``measure-above`` 0).  The result is that of one
    block per partition with the default buckets.
    """
    columns, cut_rows, layout = data.draw(partitioned(metric))
    inputs = dask_inputs(columns, cut_rows, layout)
    expected = metric(inputs)
    settings = {
        "dask-auc.coalesce": True,
        "dask-auc.bucket-bytes": budget,
        "dask-auc.exchange": exchange,
        "dask-auc.measure-above": 0,
    }
    with dask.config.set(settings):
        metric.compare(metric(inputs), expected, exact=_unweighted(columns))


@every_sorting_metric
@pytest.mark.parametrize("threshold", ["UNSPLIT_MIN_ROWS", "AGGREGATE_MIN_ROWS"])
@settings(max_examples=examples(2), deadline=None)
@given(data=st.data())
@pytest.mark.float_order
def test_compiled_kernels_give_the_numpy_result(metric: Metric, threshold: str, data) -> None:
    """The numba kernels (``dask-auc.numba``) change no result of any metric.

    Blocks of every size take a compiled path here (its row threshold is
    lowered): the unsorted split of rows (``UNSPLIT_MIN_ROWS``), or the
    compiled hash of tied scores (``AGGREGATE_MIN_ROWS``: a block of a few
    dozen rows then looks tied to the probe), for any cut, empty partitions
    and one-class blocks included.
    """
    pytest.importorskip("numba")
    from dask_auc._kernels.sort import prepare, rows

    columns, cut_rows, layout = data.draw(partitioned(metric))
    inputs = dask_inputs(columns, cut_rows, layout)
    with dask.config.set({"dask-auc.numba": False}):
        expected = metric(inputs)
    results = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(prepare if threshold == "UNSPLIT_MIN_ROWS" else rows, threshold, 1)
        for compiled in (True, False):
            with dask.config.set({"dask-auc.numba": compiled}):
                results[compiled] = metric(inputs)
    metric.compare(results[True], results[False], exact=_unweighted(columns))
    metric.compare(results[True], expected, exact=_unweighted(columns))
