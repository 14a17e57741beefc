"""Pure-NumPy kernels of the Mann-Whitney U test: keys, tie sums, and scipy's p-values.

The two samples are pooled and sorted once by the engine as one binary input
(``x`` the positives, ``y`` the negatives): the U statistic of ``x`` is then
the exact pair count of that input's :class:`~dask_auc.PartialROC`
(``U1 = strict + tied / 2``).  What the ROC summary does not hold is the
tie correction of the normal approximation, ``sum(t**3 - t)`` over the tie
groups of the pooled sample; :class:`TieSummary` carries it per bucket, and
:func:`merge_ties` joins neighbouring buckets, also when one tie group is
dealt over several of them.

Scores go through the sort as int64 *keys* (:func:`float_keys`): an
order-preserving map of float64, so that infinities -- legitimate values
here, above or below every finite one -- travel through an engine that
rejects them as ROC scores, and NaN becomes one key above ``+inf``: the top
tie group, counted and removed exactly at the end (``nan_policy``).

Nothing here imports dask.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache, reduce

import numpy as np

from ..sort.buckets import Bucket
from ..sort.rows import SortedScores, score_runs

#: the key of every NaN: above the key of +inf, so NaNs form the top tie group
NAN_KEY = int(np.iinfo(np.int64).max)

#: the most terms (min(n1, n2, t) times the t values of U's shorter tail) method="exact" computes
EXACT_WORK_LIMIT = 50_000_000


def float_keys(values: np.ndarray) -> np.ndarray:
    """int64 keys ordered, and equal, exactly as the float64 values (NaN: :data:`NAN_KEY`).

    -0.0 and 0.0 share a key, as they compare equal; every NaN gets the
    same key, above the key of ``+inf``.

    Examples
    --------
    >>> keys = float_keys(np.array([-np.inf, -1.5, -0.0, 0.0, 2.0, np.inf, np.nan]))
    >>> bool(np.all(np.diff(keys[:3]) > 0)), keys[2] == keys[3], keys[-1] == NAN_KEY
    (True, np.True_, np.True_)
    """
    floats = np.asarray(values, dtype=np.float64) + 0.0  # -0.0 + 0.0 is 0.0: one key for zero
    bits = floats.view(np.int64)
    # IEEE 754 orders non-negative floats as their bit patterns; negative ones in
    # reverse, which flipping every bit but the sign restores (below all non-negatives)
    keys = np.where(bits < 0, bits ^ np.int64(0x7FFFFFFFFFFFFFFF), bits)
    keys[np.isnan(floats)] = NAN_KEY
    return keys


def tie_term(t: int) -> int:
    """``t**3 - t``: a tie group's share of scipy's tie correction (0 for a single row)."""
    return t * t * t - t


@dataclass(frozen=True)
class TieSummary:
    """The tie groups of a run of pooled rows, in descending key order.

    Attributes
    ----------
    first, last : (key, rows) or None
        The highest and the lowest key of the run and their rows (None: an
        empty run).  A merge joins a group straddling the edge of two runs.
    inner : int
        ``sum(t**3 - t)`` over the run's other tie groups, exact.
    """

    first: tuple[int, int] | None
    last: tuple[int, int] | None
    inner: int = 0

    @classmethod
    def empty(cls) -> TieSummary:
        """The identity of :func:`merge_ties`."""
        return cls(None, None)

    @property
    def single(self) -> bool:
        """Every row of the run has one key (first and last are one group)."""
        return self.first is not None and self.last is not None and self.first[0] == self.last[0]

    def total(self) -> int:
        """``sum(t**3 - t)`` over every tie group of the run.

        Examples
        --------
        >>> TieSummary((5, 2), (1, 3), 6).total()
        36
        """
        if self.first is None or self.last is None:
            return 0
        if self.single:
            return tie_term(self.first[1])
        return tie_term(self.first[1]) + self.inner + tie_term(self.last[1])


def merge_ties(higher: TieSummary, lower: TieSummary) -> TieSummary:
    """The tie summary of two neighbouring runs, ``higher`` holding the higher keys.

    Associative, with :meth:`TieSummary.empty` as identity; not commutative.

    Examples
    --------
    >>> a, b = TieSummary((9, 1), (4, 2), 0), TieSummary((4, 3), (4, 3), 0)
    >>> merge_ties(a, b)
    TieSummary(first=(9, 1), last=(4, 5), inner=0)
    >>> merge_ties(merge_ties(a, b), TieSummary((2, 1), (2, 1))).total()
    120
    """
    if higher.first is None or higher.last is None:
        return lower
    if lower.first is None or lower.last is None:
        return higher
    if higher.last[0] < lower.first[0]:
        raise ValueError(
            "merge_ties: the left run must hold the higher keys "
            f"({higher.last[0]!r} < {lower.first[0]!r})"
        )
    inner = higher.inner + lower.inner
    if higher.last[0] == lower.first[0]:  # one tie group across the edge
        joined = (lower.first[0], higher.last[1] + lower.first[1])
        if higher.single and lower.single:
            return TieSummary(joined, joined)
        if higher.single:
            return TieSummary(joined, lower.last, inner)
        if lower.single:
            return TieSummary(higher.first, joined, inner)
        return TieSummary(higher.first, lower.last, inner + tie_term(joined[1]))
    # the edge groups are whole: each moves inside unless it is its run's only group
    if not higher.single:
        inner += tie_term(higher.last[1])
    if not lower.single:
        inner += tie_term(lower.first[1])
    return TieSummary(higher.first, lower.last, inner)


def merge_tie_run(summaries: list[TieSummary]) -> TieSummary:
    """Merge neighbouring tie summaries, given highest keys first."""
    return reduce(merge_ties, summaries, TieSummary.empty())


def _runs(part: SortedScores) -> tuple[np.ndarray, np.ndarray]:
    values, counts = score_runs(part.scores)
    if part.weights is not None:  # counted entries: each stands for ``weight`` rows
        starts = np.cumsum(counts) - counts
        counts = np.add.reduceat(part.weights, starts) if len(starts) else counts
    return values, counts.astype(np.int64)


def _tie_terms(counts: np.ndarray) -> int:
    """``sum(t**3 - t)`` over ``counts``, exact (Python ints where int64 could overflow)."""
    counts = counts[counts > 1]
    if len(counts) == 0:
        return 0
    if int(counts.max()) ** 3 * len(counts) < 2**62:
        return int(np.sum(counts**3 - counts))
    return sum(tie_term(int(t)) for t in counts)


def _edge_group(parts: list[tuple[np.ndarray, np.ndarray]], index: int) -> tuple[int, int]:
    """The pooled key at the part edges (``index`` -1: highest, 0: lowest) and its rows."""
    edges = [int(v[index]) for v, _ in parts if len(v)]
    key = max(edges) if index == -1 else min(edges)
    rows = sum(int(c[index]) for v, c in parts if len(v) and int(v[index]) == key)
    return key, rows


def bucket_ties(bucket: Bucket) -> TieSummary:
    """The :class:`TieSummary` of one sorted bucket, both samples pooled.

    A key held by both samples, ``a`` rows in one and ``b`` in the other,
    adds ``(a + b)**3 - (a + b) - (a**3 - a) - (b**3 - b) = 3ab(a + b)`` to the
    two samples' own tie sums: one binary search of the distinct keys of one
    sample into the other's finds them, no merge of the two.

    Examples
    --------
    >>> pos = SortedScores(np.array([1, 3, 3]))
    >>> neg = SortedScores(np.array([0, 3, 7]))
    >>> bucket_ties(Bucket.binary(pos, neg))
    TieSummary(first=(7, 1), last=(0, 1), inner=24)
    """
    parts = [_runs(part) for part in bucket.groups]
    held = [(v, c) for v, c in parts if len(v)]
    if not held:
        return TieSummary.empty()
    total = sum(_tie_terms(c) for _, c in held)
    if len(held) == 2:
        (low_v, low_c), (high_v, high_c) = sorted(held, key=lambda part: len(part[0]))
        at = np.minimum(np.searchsorted(high_v, low_v), len(high_v) - 1)
        common = high_v[at] == low_v
        a, b = low_c[common], high_c[at[common]]
        if len(a):
            if int(max(a.max(), b.max())) ** 3 * len(a) < 2**60:
                total += int(np.sum(3 * a * b * (a + b)))
            else:  # int64 could overflow: Python ints
                total += sum(
                    3 * int(x) * int(y) * (int(x) + int(y)) for x, y in zip(a, b, strict=True)
                )
    first, last = _edge_group(held, -1), _edge_group(held, 0)
    if first[0] == last[0]:
        return TieSummary(first, last)
    return TieSummary(first, last, total - tie_term(first[1]) - tie_term(last[1]))


# -- p-values, as scipy.stats.mannwhitneyu computes them ---------------------------------------


def choose_method(n1: int, n2: int, ties: bool) -> str:
    """scipy's ``method="auto"``: exact when a sample has at most 8 rows and nothing ties."""
    if n1 > 8 and n2 > 8:
        return "asymptotic"
    return "asymptotic" if ties else "exact"


def _tested(u1: Fraction, n1: int, n2: int, alternative: str) -> tuple[Fraction, int]:
    """The statistic whose survival function is the p-value, and its factor (scipy's)."""
    u2 = n1 * n2 - u1
    if alternative == "greater":
        return u1, 1
    if alternative == "less":
        return u2, 1  # by symmetry, the SF of U2 rather than the CDF of U1
    return max(u1, u2), 2


def asymptotic_pvalue(
    u1: Fraction, n1: int, n2: int, ties: int, *, use_continuity: bool, alternative: str
) -> float:
    """scipy's normal approximation with tie-corrected variance, from exact counts.

    The variance ``n1 n2 / 12 * ((n + 1) - ties / (n (n - 1)))`` is formed
    exactly (a fraction) and rounded once; the tail is ``erfc(z / sqrt 2) / 2``.

    Examples
    --------
    >>> p = asymptotic_pvalue(Fraction(17), 5, 4, 0, use_continuity=True, alternative="two-sided")
    >>> round(p, 10)
    0.1113468865
    """
    u, factor = _tested(u1, n1, n2, alternative)
    n = n1 + n2
    variance = Fraction(n1 * n2 * ((n + 1) * n * (n - 1) - ties), 12 * n * (n - 1))
    numerator = u - Fraction(n1 * n2, 2) - (Fraction(1, 2) if use_continuity else 0)
    if variance == 0:  # every row tied: scipy's numerator / 0
        if numerator == 0:
            return float("nan")
        z = math.inf if numerator > 0 else -math.inf
    else:
        z = float(numerator) / math.sqrt(float(variance))
    p = 0.5 * math.erfc(z / math.sqrt(2))
    return min(max(p * factor, 0.0), 1.0)


@lru_cache(maxsize=8)  # requests of one data set needing the same tail (options) share it
def u_frequencies(m: int, n: int, upto: int) -> tuple[int, ...]:
    """How many of the ``C(m + n, m)`` orderings give U = 0, 1, ..., ``upto``, exact.

    They are the coefficients of the Gaussian binomial
    ``prod_{i=1..m} (1 - q**(n + i)) / (1 - q**i)``, truncated after ``q**upto``:
    one multiplication and one division (a strided cumulative sum) per
    ``i <= min(m, upto)``; the factors of larger ``i`` are 1 below ``q**(upto + 1)``.

    Examples
    --------
    >>> u_frequencies(2, 2, 4)
    (1, 1, 2, 1, 1)
    """
    m, n = min(m, n), max(m, n)
    size = upto + 1
    # int64 holds every coefficient (and the differences of a step) below 2**62
    dtype: type | np.dtype = np.int64 if 2 * math.comb(m + n, m) < 2**62 else object
    coefficients = np.zeros(size, dtype=dtype)
    coefficients[0] = 1
    for i in range(1, min(m, upto) + 1):
        shift = n + i
        if shift < size:  # times (1 - q**shift)
            coefficients[shift:] = coefficients[shift:] - coefficients[: size - shift]
        # divided by (1 - q**i): c[j] += c[j - i], a cumulative sum down each residue class
        padded = np.zeros(-(-size // i) * i, dtype=dtype)
        padded[:size] = coefficients
        coefficients = np.cumsum(padded.reshape(-1, i), axis=0).ravel()[:size]
    return tuple(int(c) for c in coefficients)


def exact_pvalue(u1: Fraction, n1: int, n2: int, *, alternative: str) -> float:
    """scipy's ``method="exact"`` p-value, as an exact fraction rounded once.

    ``P(U >= k)`` under the null hypothesis of samples *without* ties, from
    the exact frequencies of U (symmetric about ``n1 n2 / 2``), times 2 when
    two-sided, at most 1.  ``k`` is the tested U truncated to an integer, as
    scipy's ``np.asarray(U, np.int64)``: with ties, a half-integer U is
    rounded down and nothing is corrected for ties (scipy's documented
    behaviour).  Like scipy, only the shorter tail is built: the cost is
    ``min(n1, n2, t) * t`` for a tail of ``t`` values of U.

    Examples
    --------
    >>> exact_pvalue(Fraction(17), 5, 4, alternative="two-sided")
    0.1111111111111111
    >>> exact_pvalue(Fraction(29, 2), 5, 4, alternative="two-sided")  # ties: 2 P(U >= 14)
    0.4126984126984127
    """
    u, factor = _tested(u1, n1, n2, alternative)
    k, pairs = math.floor(u), n1 * n2
    total = math.comb(n1 + n2, n1)
    if k <= 0:  # every ordering has U >= 0
        return min(float(factor), 1.0)
    # P(U >= k) = P(U <= pairs - k) by symmetry, or 1 - P(U <= k - 1): the shorter sum
    upto = min(pairs - k, k - 1)
    work = min(n1, n2, upto) * (upto + 1)
    if work > EXACT_WORK_LIMIT:
        raise ValueError(
            f"The exact p-value of samples of {n1} and {n2} rows would compute {work:,} "
            f"terms of U's exact distribution (the limit is {EXACT_WORK_LIMIT:,}); pass "
            "method='asymptotic' (method='auto' takes the exact one whenever a sample has "
            "at most 8 values and nothing ties)."
        )
    frequencies = u_frequencies(n1, n2, upto)
    if upto == pairs - k:
        count = sum(frequencies)
    else:
        count = total - sum(frequencies)
    return min(float(Fraction(factor * count, total)), 1.0)
