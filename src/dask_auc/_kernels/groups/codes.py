"""Dense group codes of a table of keys: each row's group number and the groups' keys.

One column of narrow-span integers is numbered by a table of its span
(:func:`narrow_integer_codes`), other columns by ``pandas.factorize``;
several columns are factorized one at a time and their codes combined
(:func:`group_codes`).

Nothing here imports dask.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.group_keys import (
    NUMBER_KINDS,
)


def group_codes(keys: pd.DataFrame, by: tuple[str, ...]) -> tuple[np.ndarray, pd.Index]:
    """Dense group codes (0..G-1) of the rows and the G keys.

    The codes follow the keys' order of appearance, or their ascending order
    for one integer column of narrow span (:func:`narrow_integer_codes`).

    Several columns are factorized one at a time and their codes combined:
    ``MultiIndex.factorize`` goes through tuples, slow, and re-infers the
    levels from them (an object column of exact ints and floats would be
    turned to float64).
    """
    if len(by) == 1:
        column = keys[by[0]]
        if isinstance(column.dtype, np.dtype) and column.dtype.kind in NUMBER_KINDS:
            column = column.to_numpy()  # the same codes, without the Series machinery
            narrow = narrow_integer_codes(column)
            if narrow is not None:
                return narrow[0], pd.Index(narrow[1], name=by[0])
        codes, uniques = pd.factorize(column)
        return codes.astype(np.int64, copy=False), pd.Index(uniques, name=by[0])
    combined = np.zeros(len(keys), dtype=np.int64)
    level_codes, levels = [], []
    for name in by:
        codes, uniques = pd.factorize(keys[name])
        level_codes.append(codes)
        levels.append(pd.Index(uniques))
        # re-factorized at each step, the codes stay dense: the product is below len(keys)**2
        combined = pd.factorize(combined * len(uniques) + codes)[0].astype(np.int64, copy=False)
    # factorize numbers groups in order of appearance: a group's first row is the
    # first row (row 0) or one whose code exceeds every code before it
    seen = np.maximum.accumulate(combined)
    first = np.flatnonzero(np.r_[len(combined) > 0, combined[1:] > seen[:-1]])
    index = pd.MultiIndex(
        levels=levels, codes=[c[first] for c in level_codes], names=list(by), verify_integrity=False
    )
    return combined, index


def narrow_integer_codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Dense codes of integer keys spanning at most ``len(keys)`` values, in ascending key order.

    A table with one slot per value of the span marks the keys present; its
    running count is each key's code (several times faster than hashing, in
    memory of one byte and one int64 per row at most).  None for other keys.

    Examples
    --------
    >>> codes, uniques = narrow_integer_codes(np.array([7, 3, 7, 5, 4]))
    >>> codes.tolist(), uniques.tolist()
    ([3, 0, 3, 2, 1], [3, 4, 5, 7])
    """
    if keys.dtype.kind not in "iu" or not len(keys):
        return None
    low = keys.min()
    if int(keys.max()) - int(low) >= len(keys):
        return None
    offset = (keys - low).astype(np.intp, copy=False)
    present = np.zeros(int(offset.max()) + 1, dtype=bool)
    present[offset] = True
    dense = np.cumsum(present, dtype=np.int64) - 1
    return dense[offset], np.flatnonzero(present).astype(keys.dtype) + low


def key_table(distinct: pd.Index, by: tuple[str, ...]) -> pd.DataFrame:
    """The distinct keys of :func:`group_codes` as a DataFrame, one column per ``by``."""
    columns = {name: distinct.get_level_values(i) for i, name in enumerate(by)}
    return pd.DataFrame(
        {name: pd.Series(v, copy=False) for name, v in columns.items()}, columns=list(by)
    )
