"""What declares one binary query: :class:`BinaryQuery`, and the bootstrap's :class:`Replicated`.

flox's ``Aggregation`` is the model: a metric is data -- its names, its
parameters, its kernel, how its tasks are laid out, its label rule, its
result -- and one engine (:mod:`.sort`, :mod:`.queries`) makes the tasks of
any of them.  The entries themselves are in :mod:`.registry`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._kernels.sort.labels import LabelChoice
from .._params import Constraint

#: a label rule: raises scikit-learn's error for the labels a function does not take
LabelRule = Callable[[LabelChoice], None]


@dataclass(frozen=True)
class Replicated:
    """One metric of the bootstrap's replicates (``bootstrap_ci(metric=...)``).

    Attributes
    ----------
    metric : str
        Its name in ``bootstrap_ci(metric=...)``, ``bootstrap_test`` and ``ROC.ci``.
    parameters : tuple of str
        The parameters it takes (``bootstrap_ci(metric=..., **params)``); their
        constraints are the query's.
    plan : callable
        ``plan(name, given) -> (replicate query, finish)``: the per-bucket query
        of the replicate kernels (:class:`~dask_auc._kernels.replicates.queries.ReplicateQuery`;
        None for the AUC, which the replicate scan gives alone) and the finish making
        each column's value, for the checked parameters ``given``; ``name`` words
        the errors.
    """

    metric: str
    parameters: tuple[str, ...]
    plan: Callable[[str, dict[str, Any]], tuple[Any, Callable[..., Any]]]


@dataclass(frozen=True)
class BinaryQuery:
    """One binary metric, declared once: every name it goes by, and how it is computed.

    Attributes
    ----------
    function : str
        The public function, ``dask_auc.<function>``; its parameter messages
        name it.
    method : str
        The :class:`~dask_auc.ROC` method answering it, ``ROC.<method>``.
    parameters : mapping of str to Constraint
        The function's parameters and their constraints, in the order they are
        checked; the method takes the same ones but ``pos_label`` (the ROC's).
    plan : callable
        ``plan(sort, query, **checked) -> LazyScore``: the query's tasks on the
        :class:`~.sort.CurveSort` of one input, ending in its finish.
    kernel : callable or None
        What each sorted bucket computes for it (None: the buckets' summaries,
        which every query shares, are enough).
    labels : callable or None
        Its scikit-learn label rule (:mod:`.labels`); None: the binary target's
        rule, worded with the function's parameters by the plan.
    result : type
        What a computed answer is (checked by the tests for every entry).
    bootstrap : tuple of Replicated
        The metrics of its replicates that :func:`dask_auc.bootstrap_ci` offers.
    """

    function: str
    method: str
    parameters: Mapping[str, Constraint]
    plan: Callable[..., Any]
    kernel: Callable[..., Any] | None
    labels: LabelRule | None
    result: type | tuple[type, ...]
    bootstrap: tuple[Replicated, ...] = field(default=())
