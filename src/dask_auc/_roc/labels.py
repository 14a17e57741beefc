"""scikit-learn's label rules of the binary queries, checked once the labels are known.

The ROC sorts every label, so ``pos_label`` never changes its sort; which
labels a query accepts differs between scikit-learn's functions, so each
query's finish applies its rule to the :class:`~dask_auc._kernels.sort.labels.LabelChoice`
first: before any number is returned, after the sort ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._kernels.binary.det import DetLabelRule
from .._kernels.core.validation import BinaryTarget
from .._kernels.sort.labels import LabelChoice, LabelRule


def curve_labels(choice: LabelChoice) -> None:
    """The curves' rule: two labels, or more with a ``pos_label``; {0, 1}/{-1, 1} without."""
    LabelRule("curve", choice.pos_label).check(choice.classes, choice.n_rows)


def det_labels(choice: LabelChoice) -> None:
    """``det_curve``'s rule: the curves', worded as scikit-learn's ``det_curve`` does."""
    DetLabelRule("curve", choice.pos_label).check(choice.classes, choice.n_rows)


def average_precision_labels(choice: LabelChoice) -> None:
    """``average_precision_score``'s rule: its ``pos_label`` (1 by default) one of two labels."""
    LabelRule("average_precision", asked_class(choice)).check(choice.classes, choice.n_rows)


@dataclass(frozen=True)
class TargetLabels:
    """A binary target's rule: more than two labels without a ``pos_label`` raise.

    ``roc_auc_score``'s multi-class errors; the binary-only functions name
    themselves and the classes (:class:`~dask_auc._kernels.core.validation.BinaryTarget`).
    """

    target: BinaryTarget

    def __call__(self, choice: LabelChoice) -> None:
        if choice.pos_label is None:
            self.target.check(choice.classes, choice.n_rows)


def asked_class(choice: LabelChoice) -> Any:
    """The class ``average_precision_score`` asks about: its ``pos_label``, 1 by default."""
    return 1 if choice.pos_label is None else choice.pos_label


def asks_the_other_class(choice: LabelChoice) -> bool:
    """Whether AP's class is not this ROC's positive one (then it is the negative one).

    AP's label rule (:func:`average_precision_labels`) leaves at most two
    labels, one of them AP's class if both are present: so the ROC's
    negatives are AP's class.
    """
    return not _same_positive(choice.positive, asked_class(choice))


def _same_positive(a: Any, b: Any) -> bool:
    return isinstance(a, str) == isinstance(b, str) and bool(a == b)
