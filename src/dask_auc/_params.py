"""Declarative checks of the public functions' parameters, with scikit-learn's messages.

Each public function declares its parameters once, as a mapping of names to
constraints, and checks them all with :func:`check_params` before any graph
is built.  The messages are scikit-learn's ("The 'max_fpr' parameter of
roc_auc_score must be a float in the range (0.0, 1.0] or None. Got 2 instead."),
raised as :class:`~dask_auc.InvalidParameterError`, a ``ValueError`` and a
``TypeError`` at once, as scikit-learn's is.

Examples
--------
>>> check_params("f", {"level": Interval(0, 1, closed="neither")}, level=0.9)
{'level': 0.9}
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._kernels.core.validation import InvalidParameterError

_BOOL_TYPES = "an instance of 'bool' or an instance of 'numpy.bool'"


class Constraint:
    """What a parameter accepts; ``convert`` gives the value the function uses."""

    description = ""

    def accepts(self, value: Any) -> bool:
        raise NotImplementedError

    def convert(self, value: Any) -> Any:
        return value


@dataclass(frozen=True)
class Options(Constraint):
    """One of a few strings (or None, when listed)."""

    options: tuple[Any, ...]

    @property
    def description(self) -> str:  # type: ignore[override]
        shown = "{" + ", ".join(repr(o) for o in self.options if o is not None) + "}"
        return f"a str among {shown}" + (" or None" if None in self.options else "")

    def accepts(self, value: Any) -> bool:
        return any(value is o or (isinstance(value, str) and value == o) for o in self.options)


@dataclass(frozen=True)
class Interval(Constraint):
    """A real number in a range; ``closed`` is "left", "right", "both" or "neither"."""

    low: float
    high: float
    closed: str = "both"
    none: bool = False

    @property
    def description(self) -> str:  # type: ignore[override]
        left = "[" if self.closed in ("left", "both") else "("
        right = "]" if self.closed in ("right", "both") else ")"
        shown = f"a float in the range {left}{float(self.low)}, {float(self.high)}{right}"
        return shown + (" or None" if self.none else "")

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.none
        if not isinstance(value, numbers.Real):  # a bool is one: scikit-learn takes True as 1
            return False
        number = float(value)
        above = number >= self.low if self.closed in ("left", "both") else number > self.low
        below = number <= self.high if self.closed in ("right", "both") else number < self.high
        return bool(above and below)

    def convert(self, value: Any) -> Any:
        return None if value is None else float(value)


@dataclass(frozen=True)
class Range(Constraint):
    """An interval ``(low, high)`` of rates, ``0 <= low < high <= 1`` (or None)."""

    none: bool = True

    @property
    def description(self) -> str:  # type: ignore[override]
        shown = "a pair (low, high) of floats with 0 <= low < high <= 1"
        return shown + (" or None" if self.none else "")

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.none
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
            return False
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
            return False
        low, high = float(value[0]), float(value[1])
        return bool(0 <= low < high <= 1)

    def convert(self, value: Any) -> Any:
        return None if value is None else (float(value[0]), float(value[1]))


@dataclass(frozen=True)
class AtLeast(Constraint):
    """An integer of at least ``low`` (or None)."""

    low: int
    none: bool = True
    why: str = ""  # said after the rule, e.g. "(a curve has two end points)"

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"an int >= {self.low}" + (" or None" if self.none else "") + self.why

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.none
        integral = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        return integral and value >= self.low

    def convert(self, value: Any) -> Any:
        return None if value is None else int(value)


@dataclass(frozen=True)
class Boolean(Constraint):
    """``True`` or ``False`` (NumPy's too)."""

    description = _BOOL_TYPES

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (bool, np.bool_))

    def convert(self, value: Any) -> Any:
        return bool(value)


@dataclass(frozen=True)
class Label(Constraint):
    """A class label as scikit-learn's ``pos_label``: a number, a string or a bool."""

    none: bool = True

    @property
    def description(self) -> str:  # type: ignore[override]
        if self.none:
            return f"an instance of 'float', an instance of 'str', {_BOOL_TYPES} or None"
        return f"an instance of 'float', an instance of 'str' or {_BOOL_TYPES}"

    def accepts(self, value: Any) -> bool:
        return (value is None and self.none) or isinstance(value, (numbers.Real, str, np.bool_))

    def convert(self, value: Any) -> Any:
        return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True)
class NonNegativePair(Constraint):
    """Two finite real numbers ``>= 0``, not both 0, such as ``(cost_fp, cost_fn)`` (or None)."""

    names: str = "(a, b)"

    @property
    def description(self) -> str:  # type: ignore[override]
        return f"a pair {self.names} of finite floats >= 0, not both 0, or None"

    def accepts(self, value: Any) -> bool:
        if value is None:
            return True
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
            return False
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
            return False
        pair = [float(v) for v in value]
        return all(np.isfinite(v) and v >= 0 for v in pair) and any(v > 0 for v in pair)

    def convert(self, value: Any) -> Any:
        return None if value is None else (float(value[0]), float(value[1]))


@dataclass(frozen=True)
class Column(Constraint):
    """One column name of a DataFrame (any hashable but a tuple), or a list of them if ``several``.

    A list, tuple or set where one name is expected is refused by type, before
    the name is looked for among the columns (where it would not hash).
    """

    none: bool = False
    several: bool = False

    @property
    def description(self) -> str:  # type: ignore[override]
        shown = "one column name of df (a str)" + (" or a list of them" if self.several else "")
        return shown + (" or None" if self.none else "")

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.none
        if self.several and isinstance(value, (list, tuple)):
            return all(_one_name(v) for v in value)
        return _one_name(value)

    def convert(self, value: Any) -> Any:
        if not self.several or value is None:
            return value
        return tuple(value) if isinstance(value, (list, tuple)) else (value,)


class Satisfies(Constraint):
    """Any value ``test`` accepts (a type check of scikit-learn's); ``description`` names them.

    >>> Satisfies("a callable", callable).accepts(len)
    True
    """

    def __init__(self, description: str, test: Callable[[Any], bool]):
        self.description, self.test = description, test

    def accepts(self, value: Any) -> bool:
        return self.test(value)


def _one_name(value: Any) -> bool:
    if isinstance(value, tuple):
        return False
    try:
        hash(value)
    except TypeError:
        return False
    return True


def check_params(func: str, constraints: Mapping[str, Constraint], **values: Any) -> dict[str, Any]:
    """Check every parameter of ``func`` against its constraint; return the converted values.

    Raises :class:`~dask_auc.InvalidParameterError` with scikit-learn's
    message for the first parameter, in declaration order, that is invalid.
    """
    checked = {}
    for name, constraint in constraints.items():
        value = values[name]
        if not constraint.accepts(value):
            raise InvalidParameterError(
                f"The {name!r} parameter of {func} must be {constraint.description}. "
                f"Got {value!r} instead."
            )
        checked[name] = constraint.convert(value)
    return checked


def check_every_param(
    func: str, constraints: Mapping[str, Constraint], **values: Any
) -> dict[str, Any]:
    """:func:`check_params` of a public function's every parameter, forwarded as its ``locals()``.

    ``values`` must name exactly the parameters of ``constraints``: a face whose signature
    and table differ is a programming error (``KeyError``), never a parameter dropped on
    the way or one left unchecked.
    """
    if values.keys() != constraints.keys():
        raise KeyError(f"{func} declares {sorted(constraints)}; got {sorted(values)}")
    return check_params(func, constraints, **values)
