"""Heavy groups of the grouped AUC: cut by score over slots, the same answer as whole.

A group holding a bucket's share of the rows or more is found from a sample
of every block and cut over slots of its own
(:mod:`dask_auc._kernels.groups.heavy_groups`); these tests check that the cut
changes no number (bit for bit unweighted, against scikit-learn and the uncut
path with one bucket), that the slots hold about a bucket's share each, heavy
ties dealt over several, and that it all runs on a memory-limited process
cluster.
"""

from __future__ import annotations

import os

import dask
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score as sklearn_auc

import dask_auc
from clusters import two_worker_processes
from dask_auc._kernels.core.group_keys import canonical_keys, key_hash
from dask_auc._kernels.core.summary import PartialROC, TieGroup
from dask_auc._kernels.groups.heavy_groups import (
    HeavyPlan,
    HeavySlot,
    heavy_group_of,
    merge_group_slots,
    plan_heavy_groups,
    sample_group_keys,
    summarize_slot,
)
from dask_auc._kernels.groups.plan import GroupSpec
from dask_auc._kernels.groups.split import split_group_block
from references import pairwise_auc
from strategies import dask_frame
from test_grouped import check_against_references, even_cuts, reference_per_group, scored_frame

HEAVY = -7  # the key of the heaviest user
SECOND = 10**6  # and of the second


def click_log_with_heavy_users(n=24_000, seed=0, distinct=20, key_kind="int"):
    """``scored_frame`` with one user holding 30% of the rows and another 15%."""
    rng = np.random.default_rng(seed)
    frame = scored_frame(n, 300, seed=seed, distinct=distinct)
    draw = rng.random(n)
    frame.loc[draw < 0.30, "user"] = HEAVY
    frame.loc[(draw >= 0.30) & (draw < 0.45), "user"] = SECOND
    if key_kind == "str":
        frame["user"] = frame["user"].map(lambda u: f"user-{u}").astype(object)
    return frame


def grouped(frame, cuts, buckets, **options):
    ddf = dask_frame(frame.to_dict("series"), cuts)
    with dask.config.set({"dask-auc.buckets": buckets}):
        lazy = dask_auc.grouped_roc_auc_score(
            ddf, label="y", score="s", compute=False, **{"by": "user", **options}
        )
        parts = lazy.parts().compute()
    return lazy.finish(parts), parts[-1]


CUTS = [0, 1000, 1000, 9000, 9001, 17_000, 24_000]


@pytest.mark.parametrize(
    "case",
    [
        "continuous",
        "ties over slot edges",
        "one-class heavy user",
        "string keys",
        "two key columns",
    ],
)
def test_heavy_users_are_cut_and_give_the_bits_of_whole_groups(case):
    distinct = {"continuous": 10**6, "ties over slot edges": 3}.get(case, 20)
    frame = click_log_with_heavy_users(distinct=distinct, key_kind="str" * (case == "string keys"))
    by: str | list[str] = "user"
    if case == "one-class heavy user":
        frame.loc[frame["user"] == HEAVY, "y"] = 0
    if case == "two key columns":
        frame["day"] = (frame.index % 2).astype(np.int64)
        by = ["user", "day"]
    cut, heavy_table = grouped(frame, CUTS, 8, by=by)
    whole, no_table = grouped(frame, CUTS, 1, by=by)
    assert no_table is not None and heavy_table is not None  # one bucket: no slots
    heavy_key = HEAVY if case != "string keys" else f"user-{HEAVY}"
    cut_keys = heavy_table.index.get_level_values(0)
    assert heavy_key in cut_keys  # the heavy user was cut, not sent whole to its bucket
    pd.testing.assert_frame_equal(cut.per_group, whole.per_group)  # bit for bit
    assert cut.gauc == whole.gauc or (np.isnan(cut.gauc) and np.isnan(whole.gauc))
    check_against_references(cut, frame, by)
    rows = frame[frame["user"] == heavy_key]
    if by == "user" and rows["y"].nunique() == 2:
        expected = sklearn_auc(rows["y"], rows["s"])
        assert cut.per_group.loc[heavy_key, "auc"] == pytest.approx(expected, abs=1e-12)


def test_weighted_calibrated_heavy_users_equal_the_uncut_path():
    frame = click_log_with_heavy_users(seed=3)
    rng = np.random.default_rng(3)
    frame["w"] = rng.choice([0.0, 0.5, 1.0, 4.0], size=len(frame))
    frame.loc[(frame["user"] == HEAVY) & (frame["y"] == 1), "w"] = 0.0  # heavy: no positive weight
    frame.loc[frame["user"] == SECOND, "w"] *= 1e200  # extreme, scaled by a power of two
    frame["impressions"] = rng.random(len(frame))
    frame["s"] = frame["s"] / frame["s"].max()  # probabilities, for the calibration metrics
    options = {
        "sample_weight": "w",
        "metrics": ("log_loss", "brier", "normalized_entropy", "calibration"),
        "gauc_weight": "impressions",
    }
    cut, heavy_table = grouped(frame, CUTS, 8, **options)
    whole, _ = grouped(frame, CUTS, 1, **options)
    assert {HEAVY, SECOND} <= set(heavy_table.index)
    pd.testing.assert_frame_equal(cut.per_group, whole.per_group, rtol=1e-12)
    assert cut.gauc == pytest.approx(whole.gauc, rel=1e-12)
    for name, value in whole.overall.items():
        assert cut.overall[name] == pytest.approx(value, rel=1e-12)
    assert np.isnan(cut.per_group.loc[HEAVY, "auc"]) and cut.per_group.loc[HEAVY, "n_pos"] == 0
    second = frame[frame["user"] == SECOND]
    expected = pairwise_auc(second["y"], second["s"], second["w"] / 1e200)
    assert cut.per_group.loc[SECOND, "auc"] == pytest.approx(expected, abs=1e-12)
    check_against_references(cut, frame, "user", weight="w")


def _blocks(frame, parts):
    cuts = even_cuts(len(frame), parts)
    return [frame.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]


def _rows(part):
    """Rows of a sorted part (an aggregated entry stands for its count of rows)."""
    return int(part.weights.sum()) if part.counted else len(part.scores)


@pytest.mark.parametrize("weighted", [False, True])
def test_slots_hold_a_bucket_share_and_a_heavy_tie_is_dealt_over_them(weighted):
    rng = np.random.default_rng(5)
    n, n_buckets = 40_000, 10
    user = rng.integers(0, 5000, n)
    heavy = rng.random(n) < 0.35
    user[heavy] = 10**9  # 35% of the rows: three and a half buckets' share, four slots
    s = rng.random(n)
    s[heavy & (rng.random(n) < 0.5)] = 0.5  # half of them one tie: two buckets' share
    y = (rng.random(n) < 0.3 + 0.2 * s).astype(np.int8)
    frame = pd.DataFrame({"user": user, "y": y, "s": s, "w": rng.random(n) + 0.5})
    spec = GroupSpec(("user",), "y", "s", "w" if weighted else None)
    blocks = _blocks(frame, 6)
    samples = [sample_group_keys([b], 400, by=spec.by, score="s") for b in blocks]
    plan = plan_heavy_groups(samples, spec.by, n_buckets, n_slots=5)
    assert plan.keys["user"].tolist() == [10**9] and plan.slots.tolist() == [4]
    assert (plan.splitters[0] == 0.5).sum() >= 1  # the tie shows up among the splitters
    splits = [split_group_block(b, spec, n_buckets, plan) for b in blocks]
    for _, pieces, _ in splits:  # the heavy user's rows left the hash exchange
        assert not any((p.row_keys["user"] == 10**9).any() for p in pieces)
    positive = int(np.max(y))
    slots = [summarize_slot([s[k] for _, _, s in splits], positive, None) for k in range(5)]
    held = [[part for _, _, s in splits for part in s[k].parts] for k in range(4)]
    rows = [sum(_rows(part) for part in parts) for parts in held]
    assert sum(rows) == heavy.sum()
    # what a slot holds in memory: its entries (sorted rows; tied rows aggregated into one)
    entries = [sum(len(part.scores) for part in parts) for parts in held]
    share = n / n_buckets
    # the tie of 0.175 n rows is dealt over the slots its splitter repeats into, as the
    # sort deals one over buckets: no slot holds it whole beside its neighbours' rows
    assert sum(any((part.scores == 0.5).any() for part in parts) for parts in held) >= 3
    assert max(entries) <= 1.75 * share, entries
    assert slots[4].group == -1  # a slot left over
    (merged,) = merge_group_slots(slots, plan)
    mine = frame[heavy]
    weights = mine["w"] if weighted else None
    assert merged.auc() == pytest.approx(sklearn_auc(mine["y"], mine["s"], sample_weight=weights))
    if not weighted:  # exact integers: the bits of the whole group's pair count
        pos, neg = mine["s"][mine["y"] == 1].to_numpy(), mine["s"][mine["y"] == 0].to_numpy()
        neg = np.sort(neg)
        strict = np.searchsorted(neg, pos, "left").sum()
        tied = (np.searchsorted(neg, pos, "right") - np.searchsorted(neg, pos, "left")).sum()
        assert (merged.strict, merged.tied) == (int(strict), int(tied))


def test_a_key_sharing_a_heavy_keys_hash_is_not_taken_for_it():
    # int64 -1 and uint64 2**64 - 1 have the same 64 bits, so the same hash
    heavy_key = canonical_keys(pd.DataFrame({"user": np.array([2**64 - 1], dtype=np.uint64)}))
    plan = HeavyPlan(
        heavy_key, key_hash(heavy_key), np.array([0]), np.array([2]), (np.array([0.5]),), 2
    )
    rows = canonical_keys(pd.DataFrame({"user": np.array([-1, 5, -1])}))
    assert key_hash(rows)[0] == plan.hashes[0]
    assert heavy_group_of(rows, key_hash(rows), plan).tolist() == [-1, -1, -1]
    same = canonical_keys(pd.DataFrame({"user": np.array([2**64 - 1, 7], dtype=np.uint64)}))
    assert heavy_group_of(same, key_hash(same), plan).tolist() == [0, -1]
    strings = pd.DataFrame({"user": ["ann", "bob"]})
    wrong = HeavyPlan(
        pd.DataFrame({"user": ["bob"]}),
        key_hash(strings)[:1],
        np.array([0]),
        np.array([1]),
        (np.array([]),),
        1,
    )  # ann's hash, bob's key: ann is not the heavy group, and bob's hash differs
    assert heavy_group_of(strings, key_hash(strings), wrong).tolist() == [-1, -1]


def test_slots_merge_in_score_order_only_within_their_group():
    keys = pd.DataFrame({"user": [1]})
    plan = HeavyPlan(keys, key_hash(keys), np.array([0]), np.array([2]), (np.array([0.5]),), 3)
    foreign = HeavySlot(3, PartialROC.empty())
    with pytest.raises(RuntimeError, match="a slot of another group"):
        merge_group_slots([HeavySlot(0, PartialROC.empty()), foreign, foreign], plan)
    high = HeavySlot(0, PartialROC(1, 0, 0, 0, TieGroup(0.9, 1, 0), TieGroup(0.9, 1, 0)))
    low = HeavySlot(0, PartialROC(0, 1, 0, 0, TieGroup(0.2, 0, 1), TieGroup(0.2, 0, 1)))
    (merged,) = merge_group_slots([high, low, foreign], plan)
    assert merged.auc() == 1.0
    with pytest.raises(ValueError, match="must hold the higher scores"):
        merge_group_slots([low, high, foreign], plan)  # a plan's slots out of score order


@pytest.mark.cluster
def test_a_heavy_user_on_a_memory_limited_process_cluster():
    from distributed import Client

    frame = click_log_with_heavy_users(n=400_000, seed=9, distinct=1000)
    with (
        two_worker_processes("700MiB") as cluster,
        Client(cluster) as client,
        dask.config.set({"dask-auc.bucket-bytes": "1 MiB"}),
    ):
        pids = set(client.run(os.getpid).values())
        ddf = dask_frame(frame.to_dict("series"), even_cuts(len(frame), 16)).persist()
        lazy = dask_auc.grouped_roc_auc_score(ddf, by="user", label="y", score="s", compute=False)
        parts = lazy.parts().compute()
        result = lazy.finish(parts)
        assert set(client.run(os.getpid).values()) == pids  # no worker was lost or restarted
    assert {HEAVY, SECOND} <= set(parts[-1].index)
    with dask.config.set({"dask-auc.buckets": 1, "scheduler": "threads"}):
        whole = dask_auc.grouped_roc_auc_score(frame, by="user", label="y", score="s")
    pd.testing.assert_frame_equal(result.per_group, whole.per_group)
    expected = reference_per_group(frame, "user")
    assert result.per_group[["n_pos", "n_neg"]].equals(expected[["n_pos", "n_neg"]])
    np.testing.assert_allclose(result.per_group["auc"], expected["auc"], rtol=0, atol=1e-12)
