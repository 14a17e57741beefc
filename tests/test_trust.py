"""No silent wrong number: every public entry point on the layouts users really have.

Each case here ends in scikit-learn's answer or in a specific error raised
before any number is produced.  The registry ``ENTRY_POINTS`` lists every
public function that pairs rows by position, with the reference that judges
it, so that a layout bug in any of them is caught by one property test.
"""

from __future__ import annotations

import warnings

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import dask_auc
from references import pairwise_auc, record_all_warnings
from strategies import dask_frame, examples


def _series(values, cuts):
    """A dask Series cut at ``cuts``, partition lengths unknown to dask (as from Parquet)."""
    return dask_frame({"x": values}, cuts)["x"]


def _delong_reference(y, a, b):
    return (pairwise_auc(y, a), pairwise_auc(y, b))


#: name -> (call on the dask inputs, reference on the NumPy inputs, comparison)
#: inputs are (y, s, w, s2, y3, p3): binary labels, scores, weights, a second
#: model's scores, three-class labels and their probability matrix
ENTRY_POINTS = {
    "roc_auc_score": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_auc_score(y, s),
        lambda y, s, w, s2, y3, p3: skm.roc_auc_score(y, s),
    ),
    "roc_auc_score weighted": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_auc_score(y, s, sample_weight=w),
        lambda y, s, w, s2, y3, p3: skm.roc_auc_score(y, s, sample_weight=w),
    ),
    "roc_auc_score max_fpr": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_auc_score(y, s, sample_weight=w, max_fpr=0.3),
        lambda y, s, w, s2, y3, p3: skm.roc_auc_score(y, s, sample_weight=w, max_fpr=0.3),
    ),
    "average_precision_score": (
        lambda y, s, w, s2, y3, p3: dask_auc.average_precision_score(y, s, sample_weight=w),
        lambda y, s, w, s2, y3, p3: skm.average_precision_score(y, s, sample_weight=w),
    ),
    "roc_curve": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_curve(y, s, sample_weight=w),
        lambda y, s, w, s2, y3, p3: skm.roc_curve(y, s, sample_weight=w),
    ),
    "precision_recall_curve": (
        lambda y, s, w, s2, y3, p3: dask_auc.precision_recall_curve(y, s),
        lambda y, s, w, s2, y3, p3: skm.precision_recall_curve(y, s),
    ),
    "roc_auc_ci": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_auc_ci(y, s).auc,
        lambda y, s, w, s2, y3, p3: pairwise_auc(y, s),
    ),
    "delong_test": (
        lambda y, s, w, s2, y3, p3: dask_auc.delong_test(y, s, s2)[:2],
        lambda y, s, w, s2, y3, p3: _delong_reference(y, s, s2),
    ),
    "roc_auc_score ovr": (
        lambda y, s, w, s2, y3, p3: dask_auc.roc_auc_score(y3, p3, multi_class="ovr"),
        lambda y, s, w, s2, y3, p3: skm.roc_auc_score(y3, p3, multi_class="ovr"),
    ),
}


def _rows(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.random(n) + 0.3 * y, 1)  # ties, which straddle partition edges
    w = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    w[:2] = 1.0
    s2 = np.round(rng.random(n), 1)
    y3 = rng.integers(0, 3, n)
    y3[:3] = [0, 1, 2]
    p3 = rng.dirichlet([1, 1, 1], n)
    return y, s, w, s2, y3, p3


def _equal(result, expected):
    if isinstance(expected, tuple):
        assert len(result) == len(expected)
        for r, e in zip(result, expected, strict=True):
            np.testing.assert_allclose(r, e, rtol=1e-12)
    else:
        assert result == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
@settings(max_examples=6)
@given(data=st.data())
def test_inputs_cut_at_different_places_raise_before_any_number(name, data):
    """Same total length, different partition boundaries: never a number from part of the rows."""
    call, reference = ENTRY_POINTS[name]
    n = data.draw(st.integers(8, 60))
    columns = _rows(n, data.draw(st.integers(0, 2**32 - 1)))
    # as many partitions in every input (else the call itself raises), some empty
    parts = data.draw(st.integers(2, 6))
    inner = st.lists(st.integers(0, n), min_size=parts - 1, max_size=parts - 1)
    cuts = [[0, *sorted(data.draw(inner)), n] for _ in range(6)]
    if name == "roc_auc_score ovr":
        dask_inputs = [None] * 4 + [
            _series(columns[4], cuts[4]),
            dask_frame({k: columns[5][:, k] for k in range(3)}, cuts[5]),
        ]
        used = (4, 5)
    else:
        dask_inputs = [_series(c, cut) for c, cut in zip(columns[:4], cuts[:4], strict=True)]
        dask_inputs += [None, None]
        used = (0, 1, 2, 3)
    aligned = all(cuts[i] == cuts[used[0]] for i in used)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's own warnings on tiny inputs
        if aligned or _layouts_agree(name, cuts):
            _equal(call(*dask_inputs), reference(*columns))
        else:
            with pytest.raises(ValueError, match="partitioned differently"):
                call(*dask_inputs)


def _layouts_agree(name, cuts):
    """Whether the inputs this entry point reads are cut alike."""
    read = {
        "roc_auc_score": (0, 1),
        "precision_recall_curve": (0, 1),
        "roc_auc_ci": (0, 1),
        "delong_test": (0, 1, 3),
        "roc_auc_score ovr": (4, 5),
    }.get(name, (0, 1, 2))
    return all(cuts[i] == cuts[read[0]] for i in read)


def test_the_issue_example_raises_instead_of_0_698():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 1000)
    s = rng.random(1000) + 0.3 * y
    labels = _series(y, [0, 300, 600, 1000])
    scores = _series(s, [0, 400, 600, 1000])
    with pytest.raises(ValueError, match="block 0 holds 300 rows of y_true, 400 rows of y_score"):
        dask_auc.roc_auc_score(labels, scores)
    # the fix the message suggests gives scikit-learn's answer
    fixed = dask_auc.roc_auc_score(
        labels.to_dask_array(lengths=True), scores.to_dask_array(lengths=True)
    )
    assert fixed == pytest.approx(skm.roc_auc_score(y, s), rel=1e-15)


def test_delong_errors_name_its_own_arguments():
    y = np.array([0, 1] * 10)
    a = np.linspace(0, 1, 20)
    with pytest.raises(ValueError, match="y_true, score_a and score_b.*4 rows of score_b"):
        dask_auc.delong_test(
            _series(y, [0, 10, 20]), _series(a, [0, 10, 20]), _series(a[::-1], [0, 4, 20])
        )


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
@pytest.mark.float_order
def test_dask_arrays_of_known_chunks_cut_differently_are_realigned_exactly(name):
    call, reference = ENTRY_POINTS[name]
    columns = _rows(200, 7)
    chunkings = [(50, 0, 150), (120, 80), (10, 90, 100), (200,), (33, 167), (100, 0, 100)]
    arrays = [
        da.from_array(c, chunks=((ch,) + c.shape[1:]) if c.ndim == 1 else (ch, 3))
        for c, ch in zip(columns, chunkings, strict=True)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _equal(call(*arrays), reference(*columns))


def test_unknown_chunk_arrays_cut_differently_raise():
    y = np.array([0, 1] * 50)
    s = np.linspace(0, 1, 100)
    yd = da.from_array(y, chunks=30)
    sd = da.from_array(s, chunks=40)
    yd, sd = yd[yd >= 0], sd[sd >= 0]  # unknown chunk sizes, 4 and 3 blocks
    with pytest.raises(ValueError, match="different numbers of blocks"):
        dask_auc.roc_auc_score(yd, sd)
    sd = da.from_array(s, chunks=((40, 30, 20, 10),))
    sd = sd[sd >= 0]
    with pytest.raises(ValueError, match="partitioned differently"):
        dask_auc.roc_auc_score(yd, sd)


def test_frame_columns_and_series_from_one_frame_still_compute():
    frame = dd.from_pandas(
        pd.DataFrame({"y": [0, 1, 1, 0, 1, 0], "s": [0.1, 0.9, 0.4, 0.4, 0.7, 0.2]}),
        npartitions=3,
    )
    with dask.config.set({"dask-auc.buckets": 2}):
        assert dask_auc.roc_auc_score(frame["y"], frame["s"]) == pytest.approx(
            skm.roc_auc_score([0, 1, 1, 0, 1, 0], [0.1, 0.9, 0.4, 0.4, 0.7, 0.2])
        )


# --- parity with scikit-learn on the inputs its own test suite probes ---------------------


def _outcome(call):
    """What a call gives: its value with its warnings, or its error's type and first line."""
    with warnings.catch_warnings(record=True) as caught:
        record_all_warnings()
        try:
            value = call()
        except (ValueError, TypeError) as error:
            return ("raises", type(error).__name__, str(error).splitlines()[0])
    found = sorted({(type(w.message).__name__, str(w.message)) for w in caught})
    found = [w for w in found if w[0] != "RuntimeWarning"]
    return ("value", _plain(value), found)


def _plain(value):
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.astype(float)]
    if value != value:
        return "nan"  # NaN == NaN here: both sides give one
    return value if abs(value) == np.inf else round(float(value), 12)


def _partitioned(values):
    """``values`` as a dask Series of four partitions, two of them empty.

    Bytes go in a dask array: dask DataFrames turn them into strings.
    """
    n, values = len(values), np.asarray(values)
    if values.dtype.kind == "S":
        return da.from_array(values, chunks=((0, n // 2, 0, n - n // 2),))
    return _series(values, [0, 0, n // 2, n // 2, n])


BIG = 2**60
PARITY_CASES = {
    # item 3: integers beyond 2**53 (and uint64 near 2**64), an empty partition
    "int64 scores above 2**53": (
        [0, 1, 0, 1, 1, 0],
        np.array([BIG + 5, BIG + 4, BIG + 3, BIG + 9, BIG + 1, BIG + 1], np.int64),
        None,
    ),
    "uint64 scores near 2**64": (
        [0, 1, 0, 1, 1, 0],
        np.array([2**64 - 9, 2**64 - 2, 2**64 - 5, 2**64 - 1, 2**64 - 5, 2**64 - 8], np.uint64),
        None,
    ),
    # item 4: weights at the edges of float range, all-zero weights
    "weights near 1e160": ([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], [1e160, 3e160, 2e160, 1e160]),
    "weights near 1e-170": ([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], [1e-170, 3e-170, 2e-170, 1e-170]),
    "weights 1e300 and 1e-300": ([0, 1, 0, 1], [0.1, 0.4, 0.3, 0.2], [1e300, 1e-300, 1, 5e299]),
    "all-zero weights": ([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 0.0, 0.0]),
    # item 6: both labels, but every negative weighs nothing
    "negatives of weight 0": ([0, 1], [0.1, 0.2], [0.0, 1.0]),
    "positives of weight 0": ([0, 1, 1], [0.1, 0.2, 0.3], [1.0, 0.0, 0.0]),
    # item 8: bytes labels
    "bytes labels": (np.array([b"a", b"b", b"a", b"b"]), [0.1, 0.2, 0.3, 0.4], None),
    "one class": ([1, 1, 1], [0.1, 0.2, 0.3], None),
}

PARITY_CALLS = {
    "roc_auc_score": lambda m, y, s, w: m.roc_auc_score(y, s, sample_weight=w),
    "roc_auc_score max_fpr": lambda m, y, s, w: m.roc_auc_score(y, s, sample_weight=w, max_fpr=0.5),
    "average_precision_score": lambda m, y, s, w: m.average_precision_score(y, s, sample_weight=w),
    "roc_curve": lambda m, y, s, w: m.roc_curve(y, s, sample_weight=w),
    "precision_recall_curve": lambda m, y, s, w: m.precision_recall_curve(y, s, sample_weight=w),
}


@pytest.mark.parametrize("call", list(PARITY_CALLS))
@pytest.mark.parametrize("case", list(PARITY_CASES))
@pytest.mark.float_order
def test_same_number_warning_or_error_as_sklearn(case, call):
    y, s, w = PARITY_CASES[case]
    run = PARITY_CALLS[call]
    dask_inputs = [None if v is None else _partitioned(v) for v in (y, s, w)]
    with dask.config.set({"dask-auc.buckets": 3}):
        ours = _outcome(lambda: run(dask_auc, *dask_inputs))
    assert ours == _outcome(lambda: run(skm, y, s, w))


MULTICLASS_SHAPES = {
    "ap: binary y_true, two score columns": (
        lambda m, y, p: m.average_precision_score(y, p),
        [0, 1, 1, 0],
        np.full((4, 2), 0.5),
    ),
    "ap: three classes, two columns": (
        lambda m, y, p: m.average_precision_score(y, p),
        [0, 1, 2, 0],
        np.full((4, 2), 0.5),
    ),
    "ap: three classes, pos_label=2": (
        lambda m, y, p: m.average_precision_score(y, p, pos_label=2),
        [0, 1, 2, 0],
        np.full((4, 2), 0.5),
    ),
    "ap: three classes, one column": (
        lambda m, y, p: m.average_precision_score(y, p),
        [0, 1, 2, 0],
        np.full(4, 0.5),
    ),
    "auc: three classes, two columns": (
        lambda m, y, p: m.roc_auc_score(y, p),
        [0, 1, 2, 0],
        np.full((4, 2), 0.5),
    ),
    "auc: three classes, four columns, ovr": (
        lambda m, y, p: m.roc_auc_score(y, p, multi_class="ovr"),
        [0, 1, 2, 0],
        np.full((4, 4), 0.25),
    ),
    "auc: three classes, one column": (
        lambda m, y, p: m.roc_auc_score(y, p),
        [0, 1, 2, 0],
        np.full(4, 0.5),
    ),
}


@pytest.mark.parametrize("case", list(MULTICLASS_SHAPES))
def test_score_shape_errors_in_sklearns_order(case):
    run, y, p = MULTICLASS_SHAPES[case]
    frame = (
        dask_frame({"y": y, **{f"p{k}": p[:, k] for k in range(p.shape[1])}}, [0, 0, 2, 4])
        if p.ndim == 2
        else dask_frame({"y": y, "p": p}, [0, 0, 2, 4])
    )
    scores = frame[[c for c in frame.columns if c != "y"]] if p.ndim == 2 else frame["p"]
    assert _outcome(lambda: run(dask_auc, frame["y"], scores)) == _outcome(lambda: run(skm, y, p))


def test_warnings_are_sklearns_undefined_metric_warning():
    from sklearn.exceptions import UndefinedMetricWarning

    y, s = _partitioned([1, 1, 1]), _partitioned([0.1, 0.2, 0.3])
    with pytest.warns(UndefinedMetricWarning) as caught:
        assert np.isnan(dask_auc.roc_auc_score(y, s))
    assert isinstance(caught[0].message, dask_auc.UndefinedMetricWarning)
    assert caught[0].filename == __file__  # attributed to the caller's line
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=UndefinedMetricWarning)
        with pytest.raises(UndefinedMetricWarning):
            dask_auc.roc_curve(y, s)
        with pytest.raises(UndefinedMetricWarning):
            dask_auc.roc_auc_score(y, s, compute=False).compute()


@settings(max_examples=examples(16))
@given(
    exponent=st.sampled_from([-300, -170, -100, 0, 100, 160, 300]),
    seed=st.integers(0, 2**32 - 1),
    buckets=st.sampled_from([1, 2, 5]),
)
@pytest.mark.float_order
def test_weight_scale_never_changes_the_answer(exponent, seed, buckets):
    """Weights times 2**k: the same AUC, AP and partial AUC as at k = 0, bit for bit."""
    rng = np.random.default_rng(seed)
    n = 40
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.random(n), 1)
    w = rng.choice([0.0, 0.25, 1.0, 3.0], n)
    w[:2] = 1.0
    scaled = np.ldexp(w, exponent * 3)  # beyond float64's range of safe products
    cuts = [0, 0, 13, 13, 30, n]
    with dask.config.set({"dask-auc.buckets": buckets}):
        for metric in (
            lambda weights: dask_auc.roc_auc_score(
                _series(y, cuts), _series(s, cuts), sample_weight=_series(weights, cuts)
            ),
            lambda weights: dask_auc.roc_auc_score(
                _series(y, cuts),
                _series(s, cuts),
                sample_weight=_series(weights, cuts),
                max_fpr=0.4,
            ),
            lambda weights: dask_auc.average_precision_score(
                _series(y, cuts), _series(s, cuts), sample_weight=_series(weights, cuts)
            ),
        ):
            # bit for bit on any CPU: the same partitions and buckets give the same operations
            # in the same order, and a power of two scales every rounding exactly
            assert metric(scaled) == metric(w)
    assert dask_auc.roc_auc_score(y, s, sample_weight=w) == pytest.approx(
        skm.roc_auc_score(y, s, sample_weight=w), rel=1e-12
    )


def _drawn_rows(data, most):
    """A row count, a seeded generator, labels holding both classes, and partition cuts."""
    n = data.draw(st.integers(4, most))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    cuts = [0, *sorted(data.draw(st.lists(st.integers(0, n), max_size=5))), n]
    return n, rng, y, cuts


@settings(max_examples=16)
@given(data=st.data())
def test_large_integer_scores_are_ordered_exactly_for_any_partitioning(data):
    """Integers beyond 2**53 (int64, uint64, mixed per partition): exact, or a clear error."""
    n, rng, y, cuts = _drawn_rows(data, 40)
    base = data.draw(st.sampled_from([2**53, 2**62, 2**64 - 100]))
    s = [base + int(d) for d in rng.integers(0, 30, n)]
    dtype = np.uint64 if base > 2**63 else np.int64
    pieces = [
        pd.DataFrame({"y": y[a:b], "s": np.array(s[a:b], dtype)})
        for a, b in zip(cuts[:-1], cuts[1:], strict=True)
    ]
    if base < 2**63 and data.draw(st.booleans()):  # some partitions read as uint64
        pieces = [p.astype({"s": np.uint64}) if i % 2 else p for i, p in enumerate(pieces)]
    frame = dd.from_delayed(
        [dask.delayed(p) for p in pieces], meta=pieces[0].iloc[:0], verify_meta=False
    )
    buckets = data.draw(st.sampled_from([1, 2, 3, 7]))
    exact = np.array(s, dtype=dtype)
    with dask.config.set({"dask-auc.buckets": buckets}):
        assert dask_auc.roc_auc_score(frame["y"], frame["s"]) == pairwise_auc(y, exact)
        assert dask_auc.average_precision_score(frame["y"], frame["s"]) == pytest.approx(
            skm.average_precision_score(y, exact), rel=1e-12
        )
        ours = dask_auc.precision_recall_curve(frame["y"], frame["s"])
    theirs = skm.precision_recall_curve(y, exact)
    assert ours[2].tolist() == theirs[2].tolist()
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)


def test_integer_scores_no_64_bit_type_holds_are_rejected():
    pieces = [
        pd.DataFrame({"y": [0, 1], "s": np.array([-5, 3], np.int64)}),
        pd.DataFrame({"y": [1, 0], "s": np.array([2**64 - 1, 2**63], np.uint64)}),
    ]
    frame = dd.from_delayed(
        [dask.delayed(p) for p in pieces], meta=pieces[0].iloc[:0], verify_meta=False
    )
    with pytest.raises(ValueError, match="no 64-bit type orders them all exactly"):
        dask_auc.roc_auc_score(frame["y"], frame["s"])
    pieces[1] = pd.DataFrame({"y": [1, 0], "s": [0.5, 0.25]})
    pieces[0]["s"] = np.array([2**60, 1], np.int64)
    frame = dd.from_delayed(
        [dask.delayed(p) for p in pieces], meta=pieces[0].iloc[:0], verify_meta=False
    )
    with pytest.raises(ValueError, match="beyond 2\\*\\*53"):
        dask_auc.roc_auc_score(frame["y"], frame["s"])


@settings(max_examples=examples(24))
@given(data=st.data())
@pytest.mark.float_order
def test_weighted_precision_recall_drop_intermediate_equals_sklearn_for_any_partitioning(data):
    """Which points stay is decided from the rows between them, not from float running sums."""
    n, rng, y, cuts = _drawn_rows(data, 120)
    s = np.round(rng.random(n), data.draw(st.sampled_from([0, 1, 2])))
    w = rng.choice([0.0, 0.1, 0.3, 0.7, 1.0, rng.random()], n)
    w[:2] = 1.0
    frame = dask_frame({"y": y, "s": s, "w": w}, cuts)
    with dask.config.set({"dask-auc.buckets": data.draw(st.sampled_from([1, 2, 3, 7]))}):
        precision, recall, thresholds = dask_auc.precision_recall_curve(
            frame["y"], frame["s"], sample_weight=frame["w"], drop_intermediate=True
        )
    expected = skm.precision_recall_curve(y, s, sample_weight=w, drop_intermediate=True)
    np.testing.assert_array_equal(thresholds, expected[2])
    np.testing.assert_allclose(precision, expected[0], rtol=1e-12)
    np.testing.assert_allclose(recall, expected[1], rtol=1e-12)


BAD_PARAMETERS = [
    ("roc_auc_score", {"average": "mean"}),
    ("roc_auc_score", {"max_fpr": 0}),
    ("roc_auc_score", {"max_fpr": 1.5}),
    ("roc_auc_score", {"max_fpr": -1}),
    ("roc_auc_score", {"multi_class": "one"}),
    ("roc_auc_score", {"average": "mean", "max_fpr": 2}),  # the first in declaration order
    ("roc_curve", {"pos_label": [1]}),
    ("roc_curve", {"drop_intermediate": "yes"}),
    ("precision_recall_curve", {"drop_intermediate": 1}),
    ("average_precision_score", {"average": "all"}),
    ("average_precision_score", {"pos_label": None}),
]


@pytest.mark.parametrize("func, bad", BAD_PARAMETERS)
def test_invalid_parameters_raise_sklearns_error_before_any_graph(func, bad):
    """Every public function checks its parameters declaratively, in sklearn's words and order."""
    y, s = np.array([0, 1, 0, 1]), np.array([0.1, 0.4, 0.35, 0.8])
    with pytest.raises(ValueError) as theirs:
        getattr(skm, func)(y, s, **bad)
    with (
        dask.config.set(scheduler=_no_compute),
        pytest.raises(dask_auc.InvalidParameterError) as ours,
    ):
        getattr(dask_auc, func)(_partitioned(y), _partitioned(s), **bad)
    assert _options_sorted(str(ours.value)) == _options_sorted(str(theirs.value))
    assert isinstance(ours.value, (ValueError, TypeError))


def _options_sorted(message):
    """scikit-learn lists a parameter's options in the order of a set: hash order."""
    import re

    return re.sub(
        r"\{([^}]*)\}", lambda m: "{" + ", ".join(sorted(m[1].split(", "))) + "}", message
    )


def _no_compute(*args, **kwargs):
    raise AssertionError("a parameter check computed something")
