"""A block's rows in bucket order by one compiled counting sort (the grouped AUC's split).

:func:`~.split.split_group_block` cuts a block into one piece per bucket of
its key hashes.  NumPy's way is a stable ``argsort`` of the buckets and a
gather of each column; unweighted, with one numeric key column, the loop
:func:`~._numba.bucketed_rows` counts the buckets and scatters every column
into them in one pass each: the same pieces.  Nothing here imports dask.
"""

from __future__ import annotations

import numpy as np

from ..sort.compiled import UNSIGNED_OF_WIDTH, usable


def bucketed_columns(
    row_bucket: np.ndarray, n_buckets: int, label: np.ndarray, score: np.ndarray, key: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Label, score and key rows in bucket order, by one compiled counting sort; or None.

    Returns ``(label, score, key, cuts)``: bucket ``b``'s rows are
    ``cuts[b]:cuts[b + 1]``, in input order; rows of a bucket of
    ``n_buckets`` or more (heavy groups') are left out.  Each column goes
    through the loop as unsigned integers of its width (the same bytes: one
    compiled signature a width, not a dtype); a column the loop does not take
    (objects), or no compiled loops, gives None (the NumPy path: a stable
    ``argsort``, then a gather of each column).

    Examples
    --------
    >>> found = bucketed_columns(np.array([1, 0, 1, 2], np.uint16), 2, np.array([0, 1, 1, 0]),
    ...                          np.array([0.5, 0.1, 0.7, 0.2]), np.array([7, 8, 9, 6]))
    >>> found is None or [a.tolist() for a in found] == [[1, 0, 1], [0.1, 0.5, 0.7], [8, 7, 9],
    ...                                                  [0, 1, 3]]  # (None: no numba)
    True
    """  # fmt: skip
    # each score column contiguous: a 2-D stack's transpose (columns x rows) is then a view
    by_column = score.T if score.ndim == 2 else score.reshape(1, len(score))
    columns = (label, by_column, key)
    if any(
        c.dtype.kind not in "biuf" or c.dtype.itemsize not in UNSIGNED_OF_WIDTH for c in columns
    ):
        return None
    label_bits, stack_bits, key_bits = (
        np.ascontiguousarray(c).view(UNSIGNED_OF_WIDTH[c.dtype.itemsize]) for c in columns
    )
    kernel = usable(True, "groups", label_bits, stack_bits, key_bits)
    if kernel is None:
        return None
    kept = len(row_bucket) - int(np.count_nonzero(row_bucket >= n_buckets))
    out_label, out_key = np.empty(kept, label_bits.dtype), np.empty(kept, key_bits.dtype)
    out_score = np.empty((kept, stack_bits.shape[0]), stack_bits.dtype)
    # (the buckets as they come: uint16 below 65,536 buckets, no copy of 8 bytes a row)
    cuts = kernel.bucketed_rows(
        row_bucket, n_buckets, label_bits, stack_bits, key_bits, out_label, out_score, out_key
    )
    out_score = out_score.view(score.dtype)
    return (
        out_label.view(label.dtype),
        out_score if score.ndim == 2 else out_score[:, 0],
        out_key.view(key.dtype),
        cuts,
    )
