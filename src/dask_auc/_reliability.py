"""The CORP reliability diagram and score decomposition of binary probabilities, with dask.

A query of the binary wing (:func:`dask_auc.roc`'s one sort): see
:mod:`dask_auc._roc.reliability` for its tasks.
"""

from __future__ import annotations

from typing import Any

from ._engine import LazyScore
from ._roc import ReliabilityDiagram, answer


def reliability_diagram(
    y_true: Any,
    y_proba: Any,
    *,
    sample_weight: Any = None,
    max_points: int | None = None,
    compute: bool = True,
) -> ReliabilityDiagram | LazyScore:
    """The CORP reliability diagram and the decomposition of the Brier and log scores.

    CORP (Dimitriadis, Gneiting and Jordan, *Stable reliability diagrams for
    probabilistic classifiers*, PNAS 2021) recalibrates the probabilities by
    the isotonic (pool-adjacent-violators) regression of the outcomes on
    them, tied probabilities pooled first: no bins and nothing to tune.  The
    fit is a step function; its steps are the diagram, and it splits each
    score into miscalibration (MCB), discrimination (DSC) and uncertainty
    (UNC), ``score = MCB - DSC + UNC`` (as ``model-diagnostics``' ``decompose``
    with ``SquaredError`` and ``LogLoss``).  The fit is made on the sort a
    :func:`dask_auc.roc` holds: each bucket pools its own scores, and
    neighbouring buckets' blocks merge in a tree.

    Parameters
    ----------
    y_true : dask Series or Array, pandas Series, ndarray or list
        True labels: two classes (or one).  The positive class is
        :func:`roc_auc_score`'s: 1 for {0, 1} and {-1, 1} targets, else the
        greater label; more than two classes raise.
    y_proba : same kinds as ``y_true``, 1-D
        Probability of the positive class, in [0, 1].
    sample_weight : same kinds as ``y_true``, optional
        Non-negative row weights; rows of weight zero are left out (their
        probabilities are not checked).
    max_points : int >= 2, optional
        Return at most this many steps, for drawing: of each cell of a grid
        along the diagram (``score + recalibrated`` grows from 0 to 2) the
        first and the last step are kept, as curves are thinned.  The
        decompositions always come from every step.
    compute : bool, default=True
        If False, return a :class:`~dask_auc.LazyScore`.

    Returns
    -------
    ReliabilityDiagram or LazyScore
        ``low``, ``high``: each step's lowest and highest score (ascending);
        ``recalibrated``: its fitted probability, the (weighted) share of
        positives among its rows; ``weight``: its rows (or weight);
        ``brier`` and ``log_score``: :class:`~dask_auc.ScoreDecomposition`
        ``(score, miscalibration, discrimination, uncertainty)``;
        ``mean_score`` and ``mean_outcome``, the (weighted) means.
        Sums are exact and each number rounded once, so unweighted results
        are the same bits for any partitioning.  The log score is not clipped:
        it (and its MCB) is inf where a row has probability 0 of its outcome.
        One class only: the fit is that class's constant, ``UNC = DSC = 0``
        and ``MCB`` is the score.

    Raises
    ------
    ValueError
        Probabilities outside [0, 1] (``brier_score_loss``'s message), NaN or
        infinite ones, more than two classes, or every weight zero -- before
        any number is returned.

    See Also
    --------
    brier_score_loss, log_loss : the scores alone, with scikit-learn's clipping.
    ROC.reliability : the same query of a (persisted) ROC.

    Examples
    --------
    >>> import numpy as np, dask_auc
    >>> y = np.array([0, 0, 1, 0, 1, 1])
    >>> p = np.array([0.1, 0.3, 0.3, 0.6, 0.7, 0.9])
    >>> diagram = dask_auc.reliability_diagram(y, p)
    >>> diagram.low, diagram.high, diagram.recalibrated
    (array([0.1, 0.3, 0.7]), array([0.1, 0.6, 0.9]), array([0.        , 0.33333333, 1.        ]))
    >>> diagram.weight
    array([1, 3, 2])
    >>> [round(v, 4) for v in diagram.brier]  # score = MCB - DSC + UNC
    [0.175, 0.0639, 0.1389, 0.25]
    >>> [round(v, 4) for v in diagram.log_score]
    [0.5074, 0.1891, 0.3749, 0.6931]
    """
    return answer("reliability_diagram", **locals())
