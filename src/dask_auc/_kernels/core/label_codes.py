"""Each label's code: its index among the checked classes, the one encoding of the families.

The multi-class columns group a block's rows by class (and one-hot encode them
for average precision), top-k finds each row's own score column: all after a
plan has checked every label against the classes.  Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def label_codes(labels: np.ndarray, classes: Sequence[Any]) -> np.ndarray:
    """Each label's index among ``classes`` (sorted; every label one of them, as a plan checked).

    Numbers by a binary search, other labels (strings, objects) by a dict.

    Examples
    --------
    >>> label_codes(np.array([2, 0, 2]), (0, 1, 2))
    array([2, 0, 2])
    >>> label_codes(np.array(["b", "a"], dtype=object), ("a", "b"))
    array([1, 0])
    """
    known = np.asarray(classes)
    if labels.dtype.kind in "biuf" and known.dtype.kind in "biuf":
        return np.searchsorted(known, labels)
    index = {value: code for code, value in enumerate(classes)}
    return np.fromiter((index[v] for v in labels.tolist()), np.int64, len(labels))
