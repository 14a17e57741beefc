"""The Mann-Whitney U test of two samples, equal to ``scipy.stats.mannwhitneyu``, on one sort.

The samples are pooled as one binary input -- ``x`` the positives, ``y`` the
negatives -- and sorted once by the engine (:class:`~.sort.BinarySort`,
the sort of :func:`dask_auc.roc`).  Its bucket summaries give U exactly, as
the ROC's pair count (``U1 = AUC * n1 * n2``), and a second per-bucket
summary, merged between neighbours only, gives scipy's tie correction
(:mod:`dask_auc._kernels.binary.mannwhitney`).  The p-value is scipy's formula on
these exact numbers, computed in the calling process.
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from functools import partial
from typing import Any

import dask.array as da
import dask.dataframe as dd
import numpy as np

from .._engine import LazyScore, gather, lazy_of, only_column, prepared_blocks, split_every_default
from .._kernels.binary.mannwhitney import (
    NAN_KEY,
    TieSummary,
    asymptotic_pvalue,
    bucket_ties,
    choose_method,
    exact_pvalue,
    float_keys,
    merge_tie_run,
    tie_term,
)
from .._kernels.core.summary import PartialROC
from .._kernels.sort.labels import LabelChoice
from .._kernels.sort.prepare import prepare_block
from .params import check_query
from .results import MannwhitneyuResult
from .sort import BinarySort

_NAME = "mannwhitneyu"
#: the pooled sample's labels: x's rows are the positives
_X, _Y = 1, 0
_PREPARE = partial(prepare_block, names=("sample label", "x or y"), any_labels=True)
_TOO_SMALL = (
    "One or more sample arguments is too small; all returned values will be NaN. "
    "See documentation for sample size requirements."
)
_TOO_SMALL_AFTER_OMIT = "After omitting NaNs, one or more sample arguments is too small; " + (
    "all returned values will be NaN. See documentation for sample size requirements."
)


def mannwhitneyu(
    x: Any,
    y: Any,
    *,
    use_continuity: bool = True,
    alternative: str = "two-sided",
    method: Any = "auto",
    nan_policy: str = "propagate",
    axis: int = 0,
    keepdims: bool = False,
    compute: bool = True,
) -> MannwhitneyuResult | LazyScore:
    """The Mann-Whitney U rank test of two independent samples, as ``scipy.stats.mannwhitneyu``.

    The statistic is exact (U1 of ``x``: the pairs where ``x`` is greater,
    plus half the tied pairs; ``roc_auc_score`` of the pooled sample with
    ``x`` as positives, times ``n1 * n2``), whatever the partitioning; the
    p-value is scipy's, from the same exact counts.  The samples are sorted
    once, together, by dask-auc's engine.

    Parameters
    ----------
    x, y : dask Array or Series, NumPy array, pandas Series or list
        The two samples, 1-D, of any lengths (they are not paired).  Values
        are compared as float64, as scipy does; infinities are ordinary values.
    use_continuity : bool, default True
        Apply the continuity correction (1/2) of the normal approximation.
    alternative : {'two-sided', 'less', 'greater'}, default 'two-sided'
        'greater': ``x`` is stochastically greater than ``y``.
    method : {'auto', 'asymptotic', 'exact'}, default 'auto'
        scipy's: 'exact' computes the exact null distribution of U (exact
        integers) of samples without ties; with ties it is scipy's documented
        answer, uncorrected: that distribution at the tested U truncated to an
        integer.  'auto' takes 'exact' when a sample has at most 8 values and
        nothing ties, else 'asymptotic' (normal approximation, corrected for
        ties).  scipy's ``PermutationMethod`` is not supported.
    nan_policy : {'propagate', 'omit', 'raise'}, default 'propagate'
        NaN in either sample: a NaN result, the NaNs dropped, or ValueError.
    axis, keepdims
        Only the defaults (0, False): the samples are 1-D.
    compute : bool, default True
        False returns a :class:`~dask_auc.LazyScore`.

    Returns
    -------
    MannwhitneyuResult
        ``(statistic, pvalue)``, Python floats.  A sample that is empty (or
        only NaN, omitted) gives NaN for both, with scipy's warning.

    Raises
    ------
    ValueError
        ``method='exact'`` needing more than 5e7 terms of U's distribution
        (see Notes); NaN with ``nan_policy='raise'``; inputs that are not 1-D.
    NotImplementedError
        ``method`` a ``PermutationMethod``; ``axis`` or ``keepdims`` other
        than the default.

    Notes
    -----
    U is counted in integers (Python ints beyond int64) and the statistic is
    its correctly rounded float; scipy sums float ranks, which agree while
    ``n1 * n2`` is below ``2**53``.  The tie sum ``sum(t**3 - t)`` is exact
    too, and the asymptotic p-value forms the variance as one exact fraction
    before the normal tail (``math.erfc``).  The exact p-value is an exact
    fraction rounded once (scipy sums float probabilities: the last bits may
    differ).  Like scipy it sums U's shorter tail only, ``t`` values of U at
    a cost of ``min(n1, n2, t) * t`` terms; more than 5e7 raise instead of
    running for minutes (scipy's cost there is ``t**2``).  Samples known to
    be empty (NumPy, pandas, dask arrays of known chunks) give NaN with
    scipy's warning; two dask collections of *unknown* lengths that are both
    empty raise the sort's error for an input of no rows.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> males, females = np.array([19, 22, 16, 29, 24]), np.array([20, 11, 17, 12])
    >>> dask_auc.mannwhitneyu(males, females, method="exact")
    MannwhitneyuResult(statistic=17.0, pvalue=0.1111111111111111)
    >>> round(dask_auc.mannwhitneyu(males, females, method="asymptotic").pvalue, 10)
    0.1113468865

    With ties, 'exact' is scipy's uncorrected answer (here ``2 P(U >= 14)``):

    >>> dask_auc.mannwhitneyu(males, [20, 11, 17, 22], method="exact")
    MannwhitneyuResult(statistic=14.5, pvalue=0.4126984126984127)
    """
    if not isinstance(method, str):
        raise NotImplementedError(
            f"mannwhitneyu: method={type(method).__name__} (scipy's permutation test) is not "
            "supported; use method='auto', 'asymptotic' or 'exact'."
        )
    checked = check_query(
        _NAME,
        use_continuity=use_continuity,
        alternative=alternative.lower() if isinstance(alternative, str) else alternative,
        method=method.lower(),
        nan_policy=nan_policy,
        compute=compute,
    )
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or axis not in (0, -1):
        raise NotImplementedError(
            f"mannwhitneyu: axis={axis!r} is not supported: the samples are 1-D (axis=0)."
        )
    if keepdims is not False:
        raise NotImplementedError(
            f"mannwhitneyu: keepdims={keepdims!r} is not supported: the samples are 1-D."
        )
    labels, keys = _pooled(x, y)
    if labels.shape[0] == 0:  # known empty: the sort would raise for want of rows
        lazy = lazy_of([gather(len, [])], _both_empty, _NAME)
        return lazy.compute() if checked["compute"] else lazy
    blocks = prepared_blocks(labels, keys, prepare=_PREPARE)
    sort = BinarySort(blocks, _X)
    ties = sort.graph.per_bucket("mwu-ties", bucket_ties, on=sort.buckets)
    every = split_every_default()
    tie_sum = sort.graph.tree_reduce(ties, every, "mwu-ties-merge", combine=merge_tie_run)
    finish = MannwhitneyuFinish(
        checked["use_continuity"], checked["alternative"], checked["method"], checked["nan_policy"]
    )
    lazy = sort.query([sort.area(every), tie_sum], finish, _NAME)
    return lazy.compute() if checked["compute"] else lazy


# -- the pooled sample -----------------------------------------------------------------------


def _pooled(x: Any, y: Any) -> tuple[Any, Any]:
    """Labels (x: 1, y: 0) and float keys of the two samples, one after the other."""
    samples = [_one_sample(x, "x"), _one_sample(y, "y")]
    if not any(isinstance(s, da.Array) for s in samples):
        keys = [float_keys(s) for s in samples]
        labels = [_labelled(k, label) for k, label in zip(keys, (_X, _Y), strict=True)]
        return np.concatenate(labels), np.concatenate(keys)
    arrays = [s if isinstance(s, da.Array) else da.from_array(s, chunks=-1) for s in samples]
    keys = [da.map_blocks(float_keys, a, dtype=np.int64) for a in arrays]
    pairs = zip(arrays, (_X, _Y), strict=True)
    labels = [da.map_blocks(_labelled, a, label, dtype=np.int8) for a, label in pairs]
    return da.concatenate(labels), da.concatenate(keys)


def _labelled(block: np.ndarray, label: int) -> np.ndarray:
    return np.full(len(block), label, dtype=np.int8)


def _one_sample(values: Any, name: str) -> Any:
    """A 1-D numeric dask or NumPy array of one sample (scipy's ``atleast_1d`` for a scalar)."""
    if isinstance(values, dd.DataFrame):
        values = only_column(values, f"mannwhitneyu: {name} must be 1-D")
    if isinstance(values, dd.Series):
        values = values.to_dask_array()
    if not isinstance(values, da.Array):
        values = np.atleast_1d(np.asarray(values))
    if values.ndim != 1:
        raise ValueError(
            f"mannwhitneyu: {name} must be 1-D, got shape {values.shape}; several tests "
            "along an axis (scipy's N-d inputs) are not supported."
        )
    if values.dtype.kind not in "biuf":
        raise TypeError(f"mannwhitneyu: {name} must hold real numbers, got dtype {values.dtype}")
    return values


# -- the finish ------------------------------------------------------------------------------


def _both_empty(_: int) -> MannwhitneyuResult:
    warnings.warn(_TOO_SMALL, RuntimeWarning, 2)
    return MannwhitneyuResult(float("nan"), float("nan"))


class MannwhitneyuFinish:
    """scipy's answer from the exact U, the sample sizes and the tie sum."""

    def __init__(self, use_continuity: bool, alternative: str, method: str, nan_policy: str):
        self.use_continuity, self.alternative = use_continuity, alternative
        self.method, self.nan_policy = method, nan_policy

    def __call__(
        self, choice: LabelChoice, area: PartialROC, ties: TieSummary
    ) -> MannwhitneyuResult:
        nan = MannwhitneyuResult(float("nan"), float("nan"))
        # unweighted rows: every count is a Python int, exact
        n1, n2, twice_u = int(area.pos), int(area.neg), int(area.twice_area)
        tie_sum = ties.total()
        omitted = False
        if area.top is not None and area.top.score == NAN_KEY:
            if self.nan_policy == "raise":
                raise ValueError("The input contains nan values")
            if self.nan_policy == "propagate":
                return nan
            # the NaNs are the top tie group: x's NaNs outrank y's other rows and tie y's NaNs
            a, b = int(area.top.pos), int(area.top.neg)
            twice_u -= 2 * a * (n2 - b) + a * b
            tie_sum -= tie_term(a + b)
            n1, n2, omitted = n1 - a, n2 - b, True
        if n1 == 0 or n2 == 0:
            warnings.warn(_TOO_SMALL_AFTER_OMIT if omitted else _TOO_SMALL, RuntimeWarning, 2)
            return nan
        u1 = Fraction(twice_u, 2)
        method = self.method
        if method == "auto":
            method = choose_method(n1, n2, tie_sum > 0)
        if method == "exact":  # with ties too, as scipy: U truncated, no tie correction
            pvalue = exact_pvalue(u1, n1, n2, alternative=self.alternative)
        else:
            pvalue = asymptotic_pvalue(
                u1,
                n1,
                n2,
                tie_sum,
                use_continuity=self.use_continuity,
                alternative=self.alternative,
            )
        return MannwhitneyuResult(float(u1), pvalue)
