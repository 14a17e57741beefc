"""A per-row block's inputs as arrays, and scikit-learn's 1-D check of a small input.

Nothing here imports dask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.validation import as_matrix, to_numpy


def block_values(values: Any) -> np.ndarray:
    """A block of one input as an ndarray: a pandas DataFrame's columns as a matrix."""
    return as_matrix(values) if getattr(values, "ndim", 1) == 2 else to_numpy(values)


def column_or_1d(values: np.ndarray) -> np.ndarray:
    """scikit-learn's ``column_or_1d``: a 1-D array, or a one-column matrix raveled."""
    if values.ndim == 1 or (values.ndim == 2 and values.shape[1] == 1):
        return values.ravel()
    raise ValueError(f"y should be a 1d array, got an array of shape {values.shape} instead.")
