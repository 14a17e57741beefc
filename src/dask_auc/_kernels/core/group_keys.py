"""Group keys by value: one representation per value, a hash of it, and exact concatenation.

The blocks of one frame may give a key column different dtypes (int64 in one
Parquet file, float64 after a null id in another; nullable ``Int64``,
categories, strings of several string dtypes).  A key must group, hash and
travel by its *value*: :func:`canonical_key_column` puts a column in the one
representation of its values, :func:`key_hash` hashes that value,
:func:`concat_key_columns` joins columns without rounding one into another,
and :func:`same_keys` tells whether two keys are one value.

Numbers are int64 when every value is an integer that fits it, uint64 when
one is above ``2**63``, float64 only when one is not an integer;
categoricals become their values; strings stay as they are (every pandas
string dtype hashes and compares alike).  The common case costs nothing: an
int64, bool or string column is its own representation, used as it is, and
columns of one dtype are concatenated as they are.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd


def present_keys(keys: pd.DataFrame) -> np.ndarray:
    """Whether each row's key is whole (no missing value in any column)."""
    if all(isinstance(keys[n].dtype, np.dtype) and keys[n].dtype.kind in "biu" for n in keys):
        return np.ones(len(keys), dtype=bool)  # NumPy integers and bools hold no NA
    return keys.notna().all(axis=1).to_numpy()


NUMBER_KINDS = "biuf"


def canonical_keys(keys: pd.DataFrame) -> pd.DataFrame:
    """``keys`` with every column put in the representation of its values (no missing keys).

    Examples
    --------
    >>> keys = pd.DataFrame({"user": [3.0, 2.0**53], "c": pd.Categorical(["b", "a"])})
    >>> keys = canonical_keys(keys)
    >>> keys["user"].tolist(), keys["user"].dtype, keys["c"].tolist()
    ([3, 9007199254740992], dtype('int64'), ['b', 'a'])
    """
    changed = {}
    for name in keys.columns:
        column = keys[name]
        canonical = canonical_key_column(column)
        if canonical is not column:
            changed[name] = canonical
    return _with(keys, changed) if changed else keys


def canonical_key_column(column: pd.Series) -> pd.Series:
    """One representation per key value, whatever dtype the column has.

    - integers of every width, signedness and nullability: int64, or uint64
      when a value is above ``2**63 - 1`` (exact, never through float64);
    - floats: as integers like the above when every value is an integer in
      their range, else float64 (``-0.0`` as ``0.0``);
    - booleans (numpy or nullable): bool;
    - categoricals: their values, in the representation of the categories;
    - anything else (strings, dates): unchanged.

    The column holds no missing value (the caller dropped those rows).
    """
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        categories = canonical_key_column(pd.Series(dtype.categories)).array
        return pd.Series(categories.take(column.cat.codes.to_numpy()), index=column.index)
    kind = getattr(dtype, "kind", "O")
    if kind not in NUMBER_KINDS:
        return column
    if not isinstance(dtype, np.dtype):  # nullable or pyarrow numbers: no NA is left
        column = pd.Series(column.to_numpy(dtype=dtype.numpy_dtype), index=column.index)
    values = column.to_numpy()
    if kind == "b" or values.dtype == np.int64:
        return column
    canonical = _canonical_integers(values) if kind in "iu" else _canonical_floats(values)
    return pd.Series(canonical, index=column.index, copy=False)


def _canonical_integers(values: np.ndarray) -> np.ndarray:
    """int64, unless a uint64 value is beyond it: then the uint64 column as it is."""
    if values.dtype.kind == "i" or values.dtype.itemsize < 8 or not len(values):
        return values.astype(np.int64)
    return values if values.max() > np.iinfo(np.int64).max else values.astype(np.int64)


def _canonical_floats(values: np.ndarray) -> np.ndarray:
    values = values.astype(np.float64)  # float16 and float32 widen exactly
    if not _integral(values).all():
        return values + 0.0  # -0.0 + 0.0 is 0.0: one zero
    if not len(values) or (values.min() >= -(2.0**63) and values.max() < 2.0**63):
        return values.astype(np.int64)
    if values.min() >= 0 and values.max() < 2.0**64:
        return values.astype(np.uint64)
    return values  # integers beyond any 64-bit integer: floats compare them exactly


def _integral(values: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # inf - inf
        return np.isfinite(values) & (values == np.trunc(values))


def key_hash(keys: pd.DataFrame) -> np.ndarray:
    """A uint64 hash of each row's key that depends on the values only.

    ``pandas.util.hash_pandas_object`` hashes a number through its dtype's bits
    (``-1`` as int32 and as int64 differ, ``3.0`` and ``3`` differ), strings
    alike in every string dtype.  Canonical keys are int64, uint64, bool or
    float64; integers among the floats are hashed through their integer bits,
    the 64 bits int64 and uint64 share (bool hashes as 0 and 1 already).

    Examples
    --------
    >>> same = [pd.DataFrame({"k": [3]}), pd.DataFrame({"k": [3.0]}), pd.DataFrame({"k": [True]})]
    >>> [int(key_hash(canonical_keys(k))[0]) for k in same[:2]] == [int(key_hash(same[0])[0])] * 2
    True
    """
    if len(keys.columns) == 1 and keys.dtypes.iloc[0] in _BITS_OF:
        # one number a row: the hash of its 64 value bits, without the DataFrame's machinery
        values = keys.iloc[:, 0].to_numpy()
        return pd.util.hash_array(_BITS_OF[values.dtype](values), categorize=False)
    bits = {
        name: _value_bits(keys[name].to_numpy())
        for name in keys.columns
        if keys[name].dtype == np.float64
    }
    keys = _with(keys, bits) if bits else keys
    return pd.util.hash_pandas_object(keys, index=False).to_numpy()


def column_hash(values: Any) -> np.ndarray:
    """A uint64 hash of each value of one key column (no missing value), of any dtype.

    Numbers hash by their canonical value, as :func:`key_hash` hashes them
    (``7``, ``7.0`` and a nullable or categorical 7 alike); anything else by
    pandas' hash of the value (NumPy strings as the Python strings they are).

    Examples
    --------
    >>> hashes = [column_hash(np.array([7])), column_hash(pd.array([7.0], dtype="Float64"))]
    >>> int(hashes[0][0]) == int(hashes[1][0])
    True
    """
    column = values if isinstance(values, pd.Series) else pd.Series(values, copy=False)
    array = canonical_key_column(column).to_numpy()
    if array.dtype in _BITS_OF:
        return pd.util.hash_array(_BITS_OF[array.dtype](array), categorize=False)
    if array.dtype.kind in "US":
        array = array.astype(object)
    return pd.util.hash_array(array, categorize=False)


#: the 64 bits of a canonical number's value, by dtype (as :func:`key_hash` hashes them)
_BITS_OF = {
    np.dtype(np.int64): lambda v: v.view(np.uint64),
    np.dtype(np.uint64): lambda v: v,
    np.dtype(np.bool_): lambda v: v.astype(np.uint64),
    np.dtype(np.float64): lambda v: _value_bits(v),
}


def _with(keys: pd.DataFrame, columns: dict[Any, Any]) -> pd.DataFrame:
    """``keys`` with some columns replaced (``assign`` takes only string names)."""
    merged = {name: columns.get(name, keys[name]) for name in keys.columns}
    return pd.DataFrame(merged, columns=keys.columns, copy=False)


def _value_bits(values: np.ndarray) -> np.ndarray:
    """The 64 bits of each float's value: of the integer for integers, of the float otherwise."""
    bits = values.view(np.uint64).copy()
    whole = _integral(values)
    signed = whole & (values >= -(2.0**63)) & (values < 2.0**63)
    bits[signed] = values[signed].astype(np.int64).view(np.uint64)
    unsigned = whole & (values >= 2.0**63) & (values < 2.0**64)
    bits[unsigned] = values[unsigned].astype(np.uint64)
    return bits


def concat_key_columns(columns: Sequence[Any]) -> pd.Series:
    """One key column of the values of several (Series or Index), exactly, in a natural dtype.

    Columns of one dtype are concatenated as they are.  Canonical numbers of
    different dtypes go to the first of int64, uint64 (and float64 if one is
    non-integral) that holds every value exactly, else to Python ints and
    floats (object): ``2**53 + 1`` beside ``0.5``, ``-1`` beside ``2**63``.
    Booleans beside numbers count as 0 and 1; strings of different string
    dtypes, or mixtures of anything else, become object.  Empty columns do
    not take part in the choice.

    Examples
    --------
    >>> concat_key_columns([pd.Series([2**53 + 1]), pd.Series([0.5])]).tolist()
    [9007199254740993, 0.5]
    """
    present = [pd.Series(c, copy=False) for c in columns if len(c)] or [pd.Series(columns[0])]
    dtypes = {c.dtype for c in present}
    if len(dtypes) == 1:
        (dtype,) = dtypes
        if isinstance(dtype, np.dtype) and dtype.kind in NUMBER_KINDS:  # no pandas machinery
            return pd.Series(np.concatenate([c.to_numpy() for c in present]), copy=False)
        return pd.concat(present, ignore_index=True)
    arrays = [c.to_numpy() for c in present]
    if all(a.dtype.kind in NUMBER_KINDS for a in arrays):
        return pd.Series(_concat_numbers(arrays), copy=False)
    objects = [_as_python_numbers(a) if a.dtype.kind in "iuf" else a.astype(object) for a in arrays]
    return pd.Series(np.concatenate(objects), dtype=object)


def _concat_numbers(arrays: list[np.ndarray]) -> np.ndarray:
    arrays = [a.astype(np.int64) if a.dtype.kind == "b" else a for a in arrays]
    targets = [np.int64, np.uint64] + (
        [np.float64] if any(a.dtype.kind == "f" for a in arrays) else []
    )
    for target in targets:
        if all(_holds(np.dtype(target), a) for a in arrays):
            return np.concatenate([a.astype(target, copy=False) for a in arrays])
    return np.concatenate([_as_python_numbers(a) for a in arrays])


def _holds(target: np.dtype, values: np.ndarray) -> bool:
    """Whether every value of a canonical number column is exact in ``target``."""
    kind = values.dtype.kind
    if kind == target.kind:
        return True
    if target.kind == "i":
        return kind == "u" and values.max() <= np.iinfo(np.int64).max
    if target.kind == "u":
        return kind == "i" and values.min() >= 0
    return kind in "iu" and _exact_in_float(values)  # target float64


def _exact_in_float(values: np.ndarray) -> bool:
    as_float = values.astype(np.float64)
    inside = as_float < (2.0**63 if values.dtype.kind == "i" else 2.0**64)
    back = np.where(inside, as_float, 0.0).astype(values.dtype)
    return bool((inside & (back == values)).all())


def _as_python_numbers(values: np.ndarray) -> np.ndarray:
    """Python ints and floats, integers as ints: they compare (and hash) exactly by value."""
    objects = values.astype(object)  # int64 and uint64 give Python ints
    if values.dtype.kind == "f":
        whole = _integral(values)
        for target, low, high in ((np.int64, -(2.0**63), 2.0**63), (np.uint64, 2.0**63, 2.0**64)):
            inside = whole & (values >= low) & (values < high)
            objects[inside] = values[inside].astype(target).astype(object)
    return objects


def same_keys(left: pd.DataFrame, right: pd.DataFrame) -> np.ndarray:
    """Whether row ``i`` of ``left`` and row ``i`` of ``right`` are one key value.

    Both hold canonical keys (:func:`canonical_keys`), columns of the same
    names.  Numbers compare by value whatever their dtypes, exactly (``2**53
    + 1`` is not ``2.0**53``, ``-1`` is not ``2**64 - 1``), as :func:`key_hash`
    hashes them; anything else compares with ``==``.

    Examples
    --------
    >>> left = pd.DataFrame({"k": [3, 2**53 + 1, -1]})
    >>> right = pd.DataFrame({"k": np.array([3.0, 2.0**53, 2.0**63])})
    >>> same_keys(left, right).tolist()
    [True, False, False]
    """
    same = np.ones(len(left), dtype=bool)
    for name in left.columns:
        a, b = left[name].to_numpy(), right[name].to_numpy()
        if a.dtype.kind in NUMBER_KINDS and b.dtype.kind in NUMBER_KINDS:
            for part_a, part_b in zip(_number_identity(a), _number_identity(b), strict=True):
                same &= part_a == part_b
        else:
            same &= np.array([bool(x == y) for x, y in zip(a, b, strict=True)], dtype=bool)
    return same


def _number_identity(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value bits, negative, an integer of 64 bits): equal triples are equal numbers."""
    if values.dtype.kind == "f":
        values = values.astype(np.float64, copy=False)
        integer = _integral(values) & (values >= -(2.0**63)) & (values < 2.0**64)
        return _value_bits(values), values < 0, integer
    if values.dtype.kind == "i":
        bits = values.astype(np.int64, copy=False).view(np.uint64)
        return bits, values < 0, np.ones(len(values), dtype=bool)
    bits = values.astype(np.uint64)  # unsigned and bool: non-negative integers
    return bits, np.zeros(len(values), dtype=bool), np.ones(len(values), dtype=bool)
