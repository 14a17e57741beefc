"""Each label's code: its index among the checked classes, the one encoding of the families.

The multi-class columns group a block's rows by class (and one-hot encode them
for average precision), top-k finds each row's own score column: all after a
plan has checked every label against the classes.  The bootstrap's rows keep
their labels so, in one byte (:func:`class_codes`).  Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def label_codes(labels: np.ndarray, classes: Sequence[Any]) -> np.ndarray:
    """Each label's index among ``classes`` (sorted; every label one of them, as a plan checked).

    Numbers and NumPy strings by a binary search, other labels (objects) by a dict.

    Examples
    --------
    >>> label_codes(np.array([2, 0, 2]), (0, 1, 2))
    array([2, 0, 2])
    >>> label_codes(np.array(["b", "a"], dtype=object), ("a", "b"))
    array([1, 0])
    """
    known = np.asarray(classes)
    numbers = labels.dtype.kind in "biuf" and known.dtype.kind in "biuf"
    if numbers or labels.dtype.kind == known.dtype.kind == "U":
        return np.searchsorted(known, labels)
    index = {value: code for code, value in enumerate(classes)}
    return np.fromiter((index[v] for v in labels.tolist()), np.int64, len(labels))


def class_codes(labels: np.ndarray, classes: Sequence[Any]) -> np.ndarray:
    """:func:`label_codes` in one byte a row (uint8), where they fit; else the labels as given.

    Labels of more than 256 classes, or not numbers or NumPy strings
    (objects, whose codes would take a dict lookup a row), are returned as
    they are.  Two classes of numbers: one comparison a row, no search.

    Examples
    --------
    >>> class_codes(np.array([7, 3, 7]), (3, 7))
    array([1, 0, 1], dtype=uint8)
    >>> class_codes(np.array(["b", "a"]), ("a", "b"))
    array([1, 0], dtype=uint8)
    """
    if len(classes) > 256 or labels.dtype.kind not in "biufU":
        return labels
    if len(classes) == 2 and labels.dtype.kind in "biuf":
        return (labels == classes[1]).view(np.uint8)  # index 1 is the larger
    return label_codes(labels, classes).astype(np.uint8)
