"""The bootstrap's replicate counts: a counter-based Poisson(1) draw per row and replicate.

Row ``i`` enters replicate ``b`` ``c(i, b)`` times, a Poisson(1) draw made
from a counter-based hash (the "Poisson bootstrap"): nothing is drawn in
sequence, so a row's counts depend only on the seed, on ``b`` and on the
row's *key* -- its position in the whole input, or the hash of its group's
key value for the cluster bootstrap -- never on which block or bucket holds
it.  Every replicate is therefore the same, bit for bit, for any
partitioning, bucket count, scheduler or cluster.  With ``mix`` the
bijective 64-bit finaliser of SplitMix64 and ``G = 0x9E3779B97F4A7C15``
(all arithmetic modulo ``2**64``)::

    seed key        s   = mix(random_state)
    replicate key   k_b = mix(s + (b + 1) * G)
    row key         r_i = mix((i + 1) * G)          (i: the row's position)
                    r_g = mix(hash(group key))       (cluster bootstrap)
    draw            u   = mix(r ^ k_b)
    count           c   = #{k >= 0 : u >= T_k},  T_k = floor(2**64 * P(X <= k)), X ~ Poisson(1)

The thresholds ``T_k`` are integers computed once in 60-digit decimal
arithmetic, and the draw is compared with them as integers: no float enters
a count, so counts are the same on every CPU.  The compiled loops draw the
same counts (:mod:`dask_auc._kernels.replicates._numba`).

Nothing here imports dask.
"""

from __future__ import annotations

import decimal
from typing import Any

import numpy as np

from ..core.group_keys import column_hash

_GOLDEN = 0x9E3779B97F4A7C15


_MASK64 = (1 << 64) - 1


#: replicate columns per block of work: ``rows x columns`` hashes in NumPy at a time
CELLS = 1 << 21


def mix64(x: Any) -> np.ndarray:
    """SplitMix64's finaliser: a bijection of 64-bit integers that mixes every bit.

    Examples
    --------
    >>> int(mix64(0)[0]), hex(int(mix64(1)[0]))
    (0, '0x5692161d100b05e5')
    """
    return _mixed_in_place(np.atleast_1d(np.asarray(x, dtype=np.uint64)).copy())


def _mixed_in_place(x: np.ndarray) -> np.ndarray:
    """:func:`mix64` of a uint64 array, written over it (one temporary of its size)."""
    shifted = np.empty_like(x)
    for shift, factor in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
        x ^= np.right_shift(x, np.uint64(shift), out=shifted)
        x *= np.uint64(factor)
    x ^= np.right_shift(x, np.uint64(31), out=shifted)
    return x


def _poisson_thresholds() -> np.ndarray:
    """``floor(2**64 * P(X <= k))`` for Poisson(1) ``X``, while below ``2**64``."""
    context = decimal.Context(prec=60)
    term = context.exp(decimal.Decimal(-1))
    cdf, thresholds = decimal.Decimal(0), []
    for k in range(64):
        cdf = context.add(cdf, term)
        threshold = int(context.multiply(cdf, decimal.Decimal(2**64)))  # floor: positive
        if threshold > _MASK64:
            break
        thresholds.append(threshold)
        term = context.divide(term, k + 1)
    return np.array(thresholds, dtype=np.uint64)


#: a draw ``u`` counts ``k`` times when ``T[k - 1] <= u < T[k]`` (``T`` these thresholds)
POISSON_THRESHOLDS = _poisson_thresholds()


def check_seed(random_state: Any) -> int:
    """The seed as an int in ``[0, 2**64)``: an int as it is, a NumPy generator draws one."""
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(
            f"random_state must be None, an int or a NumPy generator, got {random_state!r}"
        )
    if isinstance(random_state, (int, np.integer)):
        seed = int(random_state)
        if not 0 <= seed <= _MASK64:
            raise ValueError(f"random_state must be between 0 and 2**64 - 1, got {seed}")
        return seed
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63, dtype=np.int64))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63, dtype=np.int64))
    raise TypeError(
        "random_state must be None, an int or a NumPy Generator/RandomState, "
        f"got {type(random_state).__name__}"
    )


def replicate_keys(seed: int, replicates: Any) -> np.ndarray:
    """``k_b`` of replicates ``b`` (an int array) under ``seed``."""
    seed_key = int(mix64(seed)[0])
    b = np.asarray(replicates, dtype=np.uint64)
    return mix64(np.uint64(seed_key) + (b + np.uint64(1)) * np.uint64(_GOLDEN))


def position_keys(positions: Any) -> np.ndarray:
    """``r_i`` of rows at ``positions`` (0-based, in the whole input)."""
    i = np.asarray(positions, dtype=np.int64).astype(np.uint64)
    return keys_of_positions(i)


def keys_of_positions(positions: np.ndarray) -> np.ndarray:
    """:func:`position_keys` of a fresh uint64 array of positions, written over it."""
    positions += np.uint64(1)
    positions *= np.uint64(_GOLDEN)
    return _mixed_in_place(positions)


def group_keys(values: Any) -> np.ndarray:
    """``r_g`` of each row's group key: equal key values, equal ``r_g``, in any block.

    A key hashes by its value, in the one canonical form the grouped AUC
    groups by (:func:`~dask_auc._kernels.core.group_keys.column_hash`): ``7``,
    ``7.0``, a nullable or a categorical 7 are one key, whatever dtype one
    block happens to hold.  Missing keys are refused by the caller.
    """
    return mix64(np.asarray(column_hash(values), dtype=np.uint64))


def counts_for(row_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Each row's count in each replicate: ``(len(keys), len(row_keys))`` uint8."""
    draws = mix64(row_keys[np.newaxis, :] ^ keys[:, np.newaxis])
    return np.searchsorted(POISSON_THRESHOLDS, draws, side="right").astype(np.uint8)
