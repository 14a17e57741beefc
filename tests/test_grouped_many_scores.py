"""``grouped_roc_auc_score(score=[...])``: several models through one hash exchange.

Each model's table must be the bits of a call with its column alone, for any
partitioning and bucket count, heavy users cut over slots included (the
cuts differ per column: each has its own splitters); and the rows must be
exchanged once, not once per model.
"""

from __future__ import annotations

import dask
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from dask_auc._grouped import MISSING_KEYS_PATTERN
from strategies import boundaries, dask_frame, examples
from test_grouped import scored_frame
from test_heavy_groups import CUTS, HEAVY, SECOND, click_log_with_heavy_users

SCORES = ["s", "t", "u"]


def with_models(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Two more models: ``t`` float32 with other ties, ``u`` integer ranks (heavy ties)."""
    rng = np.random.default_rng(seed)
    n = len(frame)
    t = (np.round(rng.random(n) * 7) / 7 + 0.3 * frame["y"] * rng.random(n)) / 1.3
    u = rng.integers(0, 4, n) + frame["y"].to_numpy() * rng.integers(0, 2, n)
    return frame.assign(t=t.astype(np.float32), u=u / 5.0, w=rng.choice([0.0, 0.5, 2.0], n))


def run(frame, cuts, buckets, score, **options):
    ddf = dask_frame(frame.to_dict("series"), cuts)
    with dask.config.set({"dask-auc.buckets": buckets}):
        lazy = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score=score,
                                              compute=False, **options)  # fmt: skip
        parts = lazy.parts().compute()
    return lazy.finish(parts), parts


def check_each_score(frame, cuts, buckets, **options):
    """Every score's table, GAUC, calibration and interval: a one-column call's bits."""
    many, _ = run(frame, cuts, buckets, SCORES, **options)
    assert list(many.per_group.columns.get_level_values("score").unique()) == SCORES
    assert many.gauc.index.name == "score" and list(many.gauc.index) == SCORES
    for name in SCORES:
        one, _ = run(frame, cuts, buckets, name, **options)
        pd.testing.assert_frame_equal(many.per_group[name], one.per_group, check_exact=True)
        assert many.gauc[name] == one.gauc or (np.isnan(one.gauc) and np.isnan(many.gauc[name]))
        assert many.overall[name] == one.overall
        if one.interval is not None:
            assert tuple(many.interval[name])[:5] == tuple(one.interval)[:5]
    return many


@given(cuts=boundaries(1500, 9), buckets=st.sampled_from([1, 3]))
@settings(max_examples=examples(4), deadline=None)
def test_each_score_is_its_own_call_on_any_partitioning(cuts, buckets):
    frame = with_models(scored_frame(1500, 40, seed=1, distinct=6), seed=2)
    many = check_each_score(frame, cuts, buckets)
    sample = frame[frame["user"] == frame["user"].iloc[0]]
    if sample["y"].nunique() == 2:  # one group against scikit-learn
        key = frame["user"].iloc[0]
        assert many.per_group.loc[key, ("t", "auc")] == pytest.approx(
            sklearn_auc(sample["y"], sample["t"]), rel=1e-12
        )


def test_weights_calibration_and_the_interval_per_score():
    frame = with_models(scored_frame(2000, 30, seed=3, distinct=9), seed=4)
    frame["s"] = frame["s"] / 1.2  # probabilities, as the calibration metrics read them
    check_each_score(
        frame, [0, 700, 700, 2000], 3, sample_weight="w", gauc_weight="positives",
        metrics=("log_loss", "brier"), n_bootstraps=30, random_state=5,
    )  # fmt: skip


def test_heavy_users_are_cut_per_score_with_the_bits_of_whole_groups():
    frame = with_models(click_log_with_heavy_users(n=12_000, seed=6), seed=7)
    cuts = [c // 2 for c in CUTS]
    many, parts = run(frame, cuts, 4, SCORES)
    heavy_tables = parts[-len(SCORES) :]
    assert all(isinstance(t, pd.DataFrame) for t in heavy_tables), "the heavy users were cut"
    assert HEAVY in heavy_tables[0].index and SECOND not in heavy_tables[0].index
    check_each_score(frame, cuts, 4)
    whole, _ = run(frame, cuts, 1, SCORES)  # one bucket: nothing cut
    pd.testing.assert_frame_equal(many.per_group, whole.per_group, check_exact=True)
    heavy = frame[frame["user"] == HEAVY]
    for name in SCORES:
        assert many.per_group.loc[HEAVY, (name, "auc")] == pytest.approx(
            sklearn_auc(heavy["y"], heavy[name]), rel=1e-12
        )


def test_the_rows_are_split_and_exchanged_once_for_every_score():
    frame = with_models(scored_frame(3000, 50, seed=8), seed=9)
    ddf = dask_frame(frame.to_dict("series"), [0, 1000, 2000, 3000])

    def splits(score):
        with dask.config.set({"dask-auc.buckets": 3}):
            lazy = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score=score,
                                                  compute=False)  # fmt: skip
        keys = dict(lazy.__dask_graph__())
        return [
            k for k in keys if isinstance(k, tuple) and str(k[0]).startswith("auc-grouped-split")
        ]

    assert len(splits(SCORES)) == len(splits("s")) == 3  # one split per block, for 3 models


def test_a_list_of_one_score_is_laid_out_by_score_and_errors_name_the_argument():
    frame = with_models(scored_frame(300, 10, seed=10), seed=11)
    one = dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score=["t"])
    alone = dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="t")
    pd.testing.assert_frame_equal(one.per_group["t"], alone.per_group, check_exact=True)
    assert one.gauc["t"] == alone.gauc and one.interval is None
    with pytest.raises(ValueError, match="score must name distinct columns"):
        dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score=["s", "s"])
    with pytest.raises(ValueError, match="score='nope'"):
        dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score=["s", "nope"])


def test_rows_without_a_key_leave_every_score_and_its_probability_range():
    """A missing key drops the row from every column, its range included (read per column)."""
    frame = with_models(scored_frame(600, 12, seed=12), seed=13)
    frame["s"] = frame["s"] / 1.2  # probabilities, as the calibration metrics read them
    gone = np.arange(len(frame)) % 7 == 0
    frame["user"] = frame["user"].astype(np.float64).where(~gone)
    frame.loc[gone, "t"] = 5.0  # not a probability, but in rows of no group
    with pytest.warns(UserWarning, match=MISSING_KEYS_PATTERN):
        many = check_each_score(frame, [0, 200, 450, 600], 3, metrics=("brier",))
    assert many.rows_without_group == gone.sum()
