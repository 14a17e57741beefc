"""How much memory a kernel value holds, so that Dask's memory manager can count it.

Dask sizes a value it has no rule for with ``sys.getsizeof``, which for a
dataclass is a few dozen bytes whatever arrays it holds: a worker would count
its prepared blocks and sorted buckets as *unmanaged* memory, spill by process
memory alone, and the scheduler would weigh a bucket's inputs as free to move
when it places the task.  Kernel values that carry arrays derive from
:class:`SizedByArrays`, whose ``__sizeof__`` adds up the bytes of the arrays
they reference (a view counts its own extent).
Nothing here imports dask.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import numpy as np


def footprint(value: Any) -> int:
    """Bytes held by ``value``: array buffers (views count their own extent) and containers.

    Examples
    --------
    >>> footprint((np.zeros(10), {"a": np.zeros(5, dtype=np.int8)}))
    85
    """
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, (list, tuple)):
        return sum(footprint(item) for item in value)
    if isinstance(value, dict):
        return sum(footprint(item) for item in value.values())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _fields_footprint(value)
    return sys.getsizeof(value)


def _fields_footprint(value: Any) -> int:
    return sum(footprint(getattr(value, field.name)) for field in dataclasses.fields(value))


class SizedByArrays:
    """Base of dataclasses whose size, for ``sys.getsizeof`` and Dask, is that of their arrays.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Rows(SizedByArrays):
    ...     scores: np.ndarray
    >>> sys.getsizeof(Rows(np.zeros(1000))) > 8000
    True
    """

    __slots__ = ()

    def __sizeof__(self) -> int:
        return object.__sizeof__(self) + _fields_footprint(self)
