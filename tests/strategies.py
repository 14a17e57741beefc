"""Hypothesis strategies and builders of partitioned dask inputs."""

from __future__ import annotations

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
from hypothesis import settings
from hypothesis import strategies as st


def examples(n: int) -> int:
    """``n`` Hypothesis examples, or the loaded profile's ``max_examples`` if that is fewer.

    A test's own ``@settings(max_examples=...)`` overrides the profile; this lets the
    ``baseline`` profile (``.ci/baseline_tests.sh``) still cap it: that pass reruns the
    float-order tests on another instruction set, and the main run has already covered
    the examples' variety.
    """
    return min(n, settings.default.max_examples)


@st.composite
def scored_rows(draw, min_size=2, max_size=120, weighted=False):
    """Labels with both classes, scores with heavy ties (few distinct values), weights."""
    n = draw(st.integers(min_size, max_size))
    distinct = draw(st.sampled_from([1, 2, 3, 5, 20, 1000]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    rng.shuffle(y)
    scores = rng.integers(0, distinct, n) / distinct + 0.3 * y * draw(st.sampled_from([0, 1]))
    weights = None
    if weighted:
        weights = rng.choice([0.0, 0.5, 1.0, 3.0, rng.random()], size=n)
        if weights[y == 1].sum() == 0 or weights[y == 0].sum() == 0:
            weights[np.flatnonzero(y == 1)[0]] = 1.0
            weights[np.flatnonzero(y == 0)[0]] = 1.0
    return y, scores, weights


@st.composite
def boundaries(draw, n, max_parts=12):
    """Sorted cut points in [0, n], allowing empty partitions."""
    parts = draw(st.integers(1, max_parts))
    cuts = sorted(draw(st.lists(st.integers(0, n), min_size=parts - 1, max_size=parts - 1)))
    return [0, *cuts, n]


def dask_array(values, cuts):
    sizes = tuple(int(b - a) for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    return da.from_array(np.asarray(values), chunks=(sizes,))


def dask_frame(columns: dict, cuts) -> dd.DataFrame:
    """A dask DataFrame whose partitions are cut exactly at ``cuts`` (some may be empty)."""
    frame = pd.DataFrame(columns)
    pieces = [frame.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    # one graph layer of partitions whose lengths dask does not know (as a read's): not
    # ``from_delayed``, whose layer a partition makes every graph pass quadratic
    return dd.from_map(pd.DataFrame.copy, pieces, meta=frame.iloc[:0], enforce_metadata=False)
