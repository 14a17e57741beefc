"""Deterministic benchmark data, generated chunk by chunk.

Every ``GEN_CHUNK`` rows come from their own seeded generator, so any row range
can be produced on its own (a worker of the cluster benchmark generates just
its blocks) and always holds the same values as the same range of the whole
array generated in one process.  Generating chunk by chunk also keeps the
temporaries small, so the RSS after generation is close to the data itself.
"""

from __future__ import annotations

import numpy as np

GEN_CHUNK = 1 << 20
POSITIVE_RATE = 0.3
#: the kinds a script runs unless told (``float32`` is asked for by name)
DEFAULT_KINDS = ("continuous", "tied")
KINDS = (*DEFAULT_KINDS, "float32")


def _chunk(index: int, rows: int, kind: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels (int8, ~30% positive) and float64 scores of one generation chunk.

    The scores are a logistic model's output: the positives' logits are
    shifted up, giving an AUC of about 0.84.  ``tied`` rounds them to 3
    decimals (about a thousand distinct values); ``float32`` rounds them to the
    nearest float32 and keeps them float64 (a float32 model's output read as
    doubles: continuous, with the ties of ~16 million values in [0, 1)).
    """
    rng = np.random.default_rng([seed, index])
    label = (rng.random(rows) < POSITIVE_RATE).astype(np.int8)
    score = rng.standard_normal(rows)
    score += 1.4 * label - 0.6
    np.negative(score, out=score)
    np.exp(score, out=score)
    score += 1.0
    np.reciprocal(score, out=score)
    if kind == "tied":
        np.round(score, 3, out=score)
    elif kind == "float32":
        score[...] = score.astype(np.float32)
    elif kind != "continuous":
        raise ValueError(f"unknown score kind {kind!r}; expected one of {KINDS}")
    return label, score


def generate_range(
    rows: int, start: int, stop: int, kind: str, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``start:stop`` of the ``rows``-row benchmark data set of the given kind."""
    label = np.empty(stop - start, dtype=np.int8)
    score = np.empty(stop - start, dtype=np.float64)
    first, last = start // GEN_CHUNK, (stop - 1) // GEN_CHUNK if stop > start else -1
    for index in range(first, last + 1):
        chunk_start = index * GEN_CHUNK
        lo, hi = max(start, chunk_start), min(stop, chunk_start + GEN_CHUNK)
        size = min(GEN_CHUNK, rows - chunk_start)  # chunks never depend on the range
        chunk_label, chunk_score = _chunk(index, size, kind, seed)
        label[lo - start : hi - start] = chunk_label[lo - chunk_start : hi - chunk_start]
        score[lo - start : hi - start] = chunk_score[lo - chunk_start : hi - chunk_start]
    return label, score


def generate(rows: int, kind: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The whole benchmark data set: ``rows`` labels and scores."""
    return generate_range(rows, 0, rows, kind, seed)


def block_bounds(rows: int, blocks: int) -> list[tuple[int, int]]:
    """``blocks`` contiguous, near-equal row ranges covering ``rows``."""
    edges = [rows * i // blocks for i in range(blocks + 1)]
    return [(lo, hi) for lo, hi in zip(edges[:-1], edges[1:], strict=True) if hi > lo]
