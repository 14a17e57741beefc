"""Pure-NumPy kernels of the ROC object: one sort by label value, a positive class chosen after it.

The sort keeps one part per *label value* in every bucket (every label, any
number of them); which label is positive is decided afterwards, by one small
task from the distinct labels (:func:`choose_positive`), and each bucket is
then seen as (negatives, positives) by :func:`binary_bucket`.  So the sort
of an input does not depend on ``pos_label`` nor on a metric's label rule:
``roc_auc_score``, the curves (``pos_label``), ``average_precision_score``
(``pos_label=1``) of one input share it.  scikit-learn's label errors, which
differ by metric, are raised by each metric's finish from :class:`LabelChoice`
-- before any number is returned, though after the sort has run.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core.validation import sorted_labels
from .buckets import Bucket
from .plan import ABSENT, BlockMeta, SortPlan, plan_sort
from .rows import merged_parts


def plan_labels(metas: Sequence[BlockMeta], n_buckets: int) -> SortPlan:
    """:func:`~dask_auc._kernels.sort.plan.plan_sort` with one bucket part per label value.

    The plan's ``classes`` and ``group_keys`` are every label found, sorted
    (``ABSENT`` stands in when no block holds a row).

    Examples
    --------
    >>> import numpy as np
    >>> from dask_auc._kernels.sort.prepare import block_meta, prepare_block
    >>> block = prepare_block(["b", "a", "c"], [0.3, 0.1, 0.2], any_labels=True)
    >>> plan_labels([block_meta(block, 4)], 1).group_keys
    ('a', 'b', 'c')
    """
    labels = sorted_labels(meta.classes for meta in metas)
    rows = sum(meta.lengths.rows for meta in metas)
    weights = [meta.max_weight for meta in metas if meta.max_weight is not None]
    # every weight zero: each query raises scikit-learn's error after its label checks
    weightless = bool(weights) and max(weights) == 0
    plain = [
        replace(meta, classes=(), max_weight=None if weightless else meta.max_weight)
        for meta in metas
    ]
    plan = plan_sort(plain, n_buckets, group_keys=labels or (ABSENT,))
    return replace(plan, classes=labels, rows=rows, weights_all_zero=weightless)


@dataclass(frozen=True)
class LabelChoice:
    """Which label of one input is positive: the binary view of its sorted buckets.

    Attributes
    ----------
    classes : tuple
        Every label of ``y_true``, sorted.
    n_rows : int
        Rows of the input (before rows of weight zero are dropped).
    pos_label : object
        As given to :func:`dask_auc.roc` (None: scikit-learn's default rule).
    positive : object
        The positive label: ``pos_label``; by default 1 for {0, 1} and {-1, 1}
        targets (scikit-learn's curves), else the greater of the labels
        (scikit-learn's ``roc_auc_score``).  It may be absent from ``classes``.
    index : int or None
        The positive label's part in each bucket, None when it is absent.
    weights_all_zero : bool
        Every row weighs zero (scikit-learn's error, after its label checks).
    """

    classes: tuple[Any, ...]
    n_rows: int
    pos_label: Any
    positive: Any
    index: int | None
    weights_all_zero: bool = False

    @property
    def n_classes(self) -> int:
        """Labels for scikit-learn's "only one class" rule: of ``y_true``, or the two sides.

        With a ``pos_label`` the two sides (the positive label, any other) are
        the classes; without, the labels of ``y_true`` are.
        """
        if self.pos_label is None:
            return len(self.classes)
        has_positive = self.index is not None
        return int(has_positive) + int(len(self.classes) > int(has_positive))


def choose_positive(plan: SortPlan, pos_label: Any) -> LabelChoice:
    """The positive label of the planned sort, as :class:`LabelChoice` says; never raises.

    Examples
    --------
    >>> from dask_auc._kernels.sort.plan import SortPlan
    >>> import numpy as np
    >>> plan = SortPlan(("neg", "pos"), np.empty(0), group_keys=("neg", "pos"))
    >>> choose_positive(plan, None).positive, choose_positive(plan, "neg").index
    ('pos', 0)
    """
    classes = plan.classes
    if pos_label is not None:
        positive = pos_label
    elif is_default_binary(classes):
        positive = 1
    else:
        positive = classes[-1] if classes else None
    index = next((i for i, c in enumerate(plan.group_keys) if _same_label(c, positive)), None)
    return LabelChoice(classes, plan.rows, pos_label, positive, index, plan.weights_all_zero)


def binary_bucket(bucket: Bucket, choice: LabelChoice) -> Bucket:
    """The bucket as (negatives, positives): every other label's rows are negatives.

    Two labels: the parts as they are (views, nothing copied).  More (a
    multi-class ``y_true`` with a ``pos_label``): the other labels' sorted
    parts merged.
    """
    groups = bucket.groups
    empty = groups[0].empty()
    pos = groups[choice.index] if choice.index is not None else empty
    others = [g for i, g in enumerate(groups) if i != choice.index]
    if not others:
        neg = empty
    elif len(others) == 1:
        neg = others[0]
    else:
        neg = merged_parts(others)
    return Bucket.binary(pos, neg, bucket.weight_exponent, bucket.compiled)


def is_default_binary(labels: tuple[Any, ...]) -> bool:
    """{0, 1}, {-1, 1} or a subset: scikit-learn's curves take 1 as positive without pos_label."""
    if any(isinstance(c, (str, bytes)) for c in labels):
        return False
    return set(labels) in ({0, 1}, {-1, 1}, {0}, {-1}, {1})


def _same_label(label: Any, positive: Any) -> bool:
    """``label == positive`` as ``y_true == pos_label`` compares them (a string is no number)."""
    if label is ABSENT or isinstance(label, str) != isinstance(positive, str):
        return False
    return bool(label == positive)


MULTICLASS_FORMAT_MESSAGE = "multiclass format is not supported"


@dataclass(frozen=True)
class LabelRule:
    """Which label is positive, and which of scikit-learn's label checks apply.

    ``metric`` is ``"curve"`` (``roc_curve``, ``precision_recall_curve``:
    ``pos_label=None`` means 1 for {0, 1} or {-1, 1} targets) or
    ``"average_precision"`` (``pos_label`` must be one of two present labels).
    """

    metric: str
    pos_label: Any

    @property
    def positive(self) -> Any:
        return 1 if self.pos_label is None else self.pos_label

    def check(self, labels: tuple[Any, ...], n_rows: int, n_columns: int | None = None) -> None:
        """Raise scikit-learn 1.9's error for these labels, if it would raise one.

        ``n_columns`` is the number of score columns of a 2-D ``y_score``.
        """
        if self.metric == "average_precision":
            self._check_average_precision(labels, n_rows, n_columns)
        elif len(labels) > 2 and self.pos_label is None:
            raise ValueError(MULTICLASS_FORMAT_MESSAGE)
        elif self.pos_label is None and not is_default_binary(labels):
            shown = ", ".join(repr(c) for c in labels)
            raise ValueError(
                f"y_true takes value in {{{shown}}} and pos_label is not specified: either "
                "make y_true take value in {0, 1} or {-1, 1} or pass pos_label explicitly."
            )

    def _check_average_precision(
        self, labels: tuple[Any, ...], n_rows: int, n_columns: int | None
    ) -> None:
        shape = f"({n_rows},)" if n_columns is None else f"({n_rows}, {n_columns})"
        if len(labels) > 2:
            if self.pos_label != 1:
                raise ValueError(
                    "Parameter pos_label is fixed to 1 for multiclass y_true. "
                    "Do not set pos_label or set pos_label to 1."
                )
            if n_columns != len(labels):
                raise ValueError(
                    "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` "
                    f"contains multiple classes. Got `y_score.shape={shape}`."
                )
            raise ValueError(
                "average_precision_score of dask-auc does not support a multi-class y_true "
                "yet: compute each class's one-vs-rest average precision on "
                "(y_true == class, y_score[:, k])."
            )
        if n_columns is not None:
            raise ValueError(f"y should be a 1d array, got an array of shape {shape} instead.")
        if len(labels) == 2 and not any(self.pos_label == c for c in labels):
            raise ValueError(
                f"pos_label={self.pos_label} is not a valid label. It should be one of "
                f"{np.array(labels)}"
            )
