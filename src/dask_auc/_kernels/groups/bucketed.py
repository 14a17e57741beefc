"""A block's rows in bucket order by one compiled counting sort (the grouped AUC's split).

:func:`~.split.split_group_block` cuts a block into one piece per bucket of
its key hashes.  NumPy's way is a stable ``argsort`` of the buckets and a
gather of each column; where the key is one column, unweighted, the loop
:func:`~._numba.bucketed_rows` counts the buckets and scatters every column
into them in one pass each: the same pieces.  Nothing here imports dask.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..sort.compiled import usable

#: the unsigned integer of each width: the counting sort's loop moves bytes, whatever their dtype
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bucketed_rows(
    key_bucket: np.ndarray, n_buckets: int, label: np.ndarray, score: np.ndarray, keys: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray, list[pd.DataFrame], np.ndarray] | None:
    """Label, score and key rows in bucket order, by one compiled counting sort; or None.

    Rows of a bucket of ``n_buckets`` or more (heavy groups') are left out.
    Each column goes through the loop as unsigned integers of its width (the
    same bytes: one compiled signature a width, not a dtype); a key of
    several columns, or of a type the loop does not take, gives None (the
    NumPy path: a stable ``argsort``, then a gather of each column).
    """
    if len(keys.columns) != 1 or not isinstance(keys.dtypes.iloc[0], np.dtype):
        return None  # (an extension dtype's column: the NumPy path's take keeps it)
    if label.dtype.kind not in "biuf":
        return None
    key = keys.iloc[:, 0].to_numpy()
    widths = (label.dtype.itemsize, score.dtype.itemsize, key.dtype.itemsize)
    if key.dtype.kind not in "biuf" or any(w not in _UNSIGNED for w in widths):
        return None
    columns = (label, score.reshape(len(score), score.shape[1] if score.ndim == 2 else 1), key)
    label_bits, stack_bits, key_bits = (
        np.ascontiguousarray(c).view(_UNSIGNED[w]) for c, w in zip(columns, widths, strict=True)
    )
    kernel = usable(True, "groups", label_bits, stack_bits, key_bits)
    if kernel is None:
        return None
    kept = len(key_bucket) - int(np.count_nonzero(key_bucket >= n_buckets))
    out_label, out_key = np.empty(kept, label_bits.dtype), np.empty(kept, key_bits.dtype)
    out_score = np.empty((kept, stack_bits.shape[1]), stack_bits.dtype)
    # (the buckets as they come: uint16 below 65,536 buckets, no copy of 8 bytes a row)
    cuts = kernel.bucketed_rows(
        key_bucket, n_buckets, label_bits, stack_bits, key_bits, out_label, out_score, out_key
    )
    out_score = out_score.view(score.dtype)
    ordered = pd.DataFrame({keys.columns[0]: out_key.view(key.dtype)}, copy=False)
    key_pieces = [ordered.iloc[cuts[b] : cuts[b + 1]] for b in range(n_buckets)]
    return (
        out_label.view(label.dtype),
        out_score if score.ndim == 2 else out_score[:, 0],
        key_pieces,
        cuts,
    )
