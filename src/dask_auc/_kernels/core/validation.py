"""Checks on parameters and on the values inside blocks, with scikit-learn's messages.

Everything here is pure NumPy so that it runs inside worker tasks; the
messages match scikit-learn 1.9 so that code catching sklearn's errors keeps
working when it switches to dask-auc.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .footprint import SizedByArrays

MULTICLASS_MESSAGE = "multi_class must be in ('ovo', 'ovr')"
ONE_CLASS_MESSAGE = (
    "Only one class is present in y_true. ROC AUC score is not defined in that case."
)
NO_NEGATIVES_MESSAGE = "No negative samples in y_true, false positive value should be meaningless"
NO_POSITIVES_MESSAGE = "No positive samples in y_true, true positive value should be meaningless"
#: scikit-learn's error for a multi-class ``y_true`` with a 1-D ``y_score`` and ``multi_class``
#: 'ovr' or 'ovo' (a ``y_score`` of the wrong number of columns gets other messages)
SCORE_SHAPE_MESSAGE = (
    "`y_score` needs to be of shape `(n_samples, n_classes)`, since `y_true` contains "
    "multiple classes. Got `y_score.shape={shape}`."
)
#: how many classes an error message lists before it elides the rest
_CLASSES_SHOWN = 10


def partial_multiclass_message(max_fpr: float) -> str:
    """scikit-learn's error for ``max_fpr`` with a multi-class target."""
    return (
        "Partial AUC computation not available in multiclass setting, 'max_fpr' "
        f"must be set to `None`, received `max_fpr={max_fpr}` instead"
    )


@dataclass(frozen=True)
class BinaryTarget:
    """The function that needs a binary ``y_true``, and so the error a target of more classes gets.

    A binary-only function names itself and the classes found, as
    scikit-learn's binary-only estimators and metrics do.  ``roc_auc_score``
    (``multi_class`` given) raises what scikit-learn 1.9 raises for a 1-D
    ``y_score``, in its order: the ``max_fpr`` error, then the ``multi_class``
    one, then the shape of ``y_score`` for ``'ovr'`` and ``'ovo'``.

    Examples
    --------
    >>> BinaryTarget("delong_test").check((0, 1), 10)  # binary: no error
    >>> BinaryTarget("delong_test").check(("a", "b", "c"), 10)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: delong_test only supports binary ...; y_true holds 3 classes: ['a', 'b', 'c']
    >>> BinaryTarget("roc_auc_score", multi_class="ovr").check((0, 1, 2), 6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: `y_score` needs to be of shape `(n_samples, n_classes)`, ... `y_score.shape=(6,)`.
    """

    function: str | None = None
    multi_class: str | None = None  # roc_auc_score's option; None: the function has none
    max_fpr: float | None = None

    def check(self, classes: Sequence[Any], n_rows: int) -> None:
        """Raise the function's error if ``classes`` (all of ``y_true``'s) are more than two."""
        if len(classes) <= 2:
            return
        if self.multi_class is not None:
            if self.max_fpr is not None and self.max_fpr != 1.0:
                raise ValueError(partial_multiclass_message(self.max_fpr))
            if self.multi_class == "raise":
                raise ValueError(MULTICLASS_MESSAGE)
            raise ValueError(SCORE_SHAPE_MESSAGE.format(shape=f"({n_rows},)"))
        shown = ", ".join(repr(c) for c in classes[:_CLASSES_SHOWN])
        shown += ", ..." if len(classes) > _CLASSES_SHOWN else ""
        who = "this function" if self.function is None else self.function
        raise ValueError(
            f"{who} only supports binary classification (two classes in y_true); "
            f"y_true holds {len(classes):,} classes: [{shown}]"
        )


class InvalidParameterError(ValueError, TypeError):
    """A parameter has a wrong type or value (as ``sklearn``'s error of that name)."""


class UndefinedMetricWarning(UserWarning):
    """The metric is not defined for this input (as ``sklearn``'s warning).

    When scikit-learn is installed, the warnings dask-auc emits are also
    instances of ``sklearn.exceptions.UndefinedMetricWarning``, so a filter
    written for scikit-learn (``warnings.filterwarnings("ignore",
    category=sklearn.exceptions.UndefinedMetricWarning)``) works unchanged.
    """


@functools.cache
def _emitted_class() -> type[UndefinedMetricWarning]:
    """The class of the warnings emitted: also scikit-learn's, when it is installed.

    scikit-learn is imported here, when the first warning is emitted, not when
    dask-auc is imported: it is not a dependency, and importing it costs about
    half a second.
    """
    if importlib.util.find_spec("sklearn") is None:
        return UndefinedMetricWarning
    from sklearn.exceptions import UndefinedMetricWarning as SklearnWarning

    # Both bases derive from UserWarning alone, so the MRO is well defined.
    namespace = {"__module__": UndefinedMetricWarning.__module__}
    return type("UndefinedMetricWarning", (UndefinedMetricWarning, SklearnWarning), namespace)


def warn_undefined(message: str, category: type[Warning] | None = None) -> None:
    """Emit an undefined-metric warning, attributed to the caller's line outside dask-auc.

    The one place dask-auc warns that a metric is undefined; ``category``
    overrides the class for the few messages scikit-learn emits as a plain
    ``UserWarning``.
    """
    warn(message, category or _emitted_class())


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """The one place dask-auc warns: at the caller's line outside dask-auc (and dask).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("a note")
    >>> caught[0].category.__name__, str(caught[0].message)
    ('UserWarning', 'a note')
    """
    warnings.warn(message, category, stacklevel=_user_stacklevel())


def defined_or_warn(n_classes: int, pos: float, neg: float) -> bool:
    """False, after scikit-learn's warning, when a binary ROC metric is undefined.

    ``n_classes`` is the number of distinct labels in ``y_true``; ``pos`` and
    ``neg`` the total count (or weight) of each class.
    """
    if n_classes < 2:
        message = ONE_CLASS_MESSAGE
    elif neg == 0:
        message = NO_NEGATIVES_MESSAGE
    elif pos == 0:
        message = NO_POSITIVES_MESSAGE
    else:
        return True
    warn_undefined(message)
    return False


# the dask_auc package: this file sits in its _kernels/core folder
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside dask-auc (and dask), counted from the caller.

    A warning raised while a lazy result is finalized sits under a varying
    number of dask-auc and dask frames; it must point at the user's line.
    """
    frame = sys._getframe(1)
    level = 1
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def _is_internal(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_PACKAGE_DIR) or f"{os.sep}dask{os.sep}" in path


#: the names of a metric's row inputs, in the order the block kernels take them
ROW_INPUTS = ("y_true", "y_score", "sample_weight")


@dataclass(frozen=True)
class RowCounts:
    """How many rows of each input (named as the caller named it) one block holds."""

    names: tuple[str, ...]
    counts: tuple[int, ...]

    @classmethod
    def of(cls, names: Sequence[str], *columns: Any) -> RowCounts:
        """The row counts of a block's columns; ``None`` columns (no weights) are left out."""
        present = [(n, len(c)) for n, c in zip(names, columns, strict=False) if c is not None]
        return cls(tuple(n for n, _ in present), tuple(int(c) for _, c in present))

    @property
    def aligned(self) -> bool:
        return len(set(self.counts)) <= 1

    @property
    def rows(self) -> int:
        return self.counts[0] if self.counts else 0


@dataclass(frozen=True)
class LabelledBlock(SizedByArrays):
    """One validated block of rows as given: labels, scores (a column or a matrix), weights.

    The families add what their blocks carry besides (group keys, deferred checks).
    """

    lengths: RowCounts
    classes: tuple[Any, ...]
    labels: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None


def check_aligned(blocks: Sequence[RowCounts]) -> int:
    """Check that the inputs pair up row by row in every block; return the row count.

    Totals that differ raise scikit-learn's message.  Equal totals cut at
    different places (two Parquet datasets written separately, one column
    repartitioned) would pair the wrong rows: they raise too, naming the
    inputs and the first block where they differ, before any sorting.
    """
    if not blocks:
        return 0
    totals = [sum(b.counts[i] for b in blocks) for i in range(len(blocks[0].counts))]
    check_lengths(totals)
    for index, block in enumerate(blocks):
        if not block.aligned:
            pairs = zip(block.names, block.counts, strict=True)
            held = ", ".join(f"{count} rows of {name}" for name, count in pairs)
            raise ValueError(
                f"{_listed(block.names)} have the same length ({totals[0]}) but are "
                f"partitioned differently: block {index} holds {held}. dask-auc pairs rows "
                "by position, block by block, as they come: pass columns of one DataFrame "
                "(df['label'], df['score']), or make the blocks line up, e.g. with "
                "`x.to_dask_array(lengths=True)` on each input (dask arrays of known chunk "
                "sizes are realigned exactly)."
            )
    return totals[0]


def check_rows(blocks: Sequence[RowCounts], shape: str = "(0,)") -> int:
    """:func:`check_aligned`, then scikit-learn's error for no row (``shape``: the input's)."""
    rows = check_aligned(blocks)
    if rows == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 is required."
        )
    return rows


def _listed(names: Sequence[str]) -> str:
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def check_lengths(lengths: list[int]) -> None:
    if len(set(lengths)) > 1:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"{[int(n) for n in lengths]}"
        )


def check_score_dtype(dtype: np.dtype) -> None:
    """Reject score dtypes that cannot be numeric, before any data is read."""
    if dtype.kind in "USa" or str(dtype) in ("string", "str"):
        raise ValueError(
            "dtype='numeric' is not compatible with arrays of bytes/strings."
            "Convert your data to numeric values explicitly instead."
        )
    if dtype.kind == "c":
        raise ValueError("Complex data not supported")
    if dtype.kind in "mM":
        raise TypeError(f"y_score must be numeric, got dtype {dtype}")


def to_numpy(values: Any) -> np.ndarray:
    """An ndarray from array-likes, pandas extension arrays' NA turned into NaN."""
    dtype = getattr(values, "dtype", None)
    if dtype is not None and not isinstance(dtype, np.dtype) and hasattr(values, "to_numpy"):
        if getattr(dtype, "kind", "O") in "biuf":
            return values.to_numpy(dtype=np.float64, na_value=np.nan)
        return values.to_numpy(dtype=object)
    return np.asarray(values)


def check_declared_label_dtype(values: Any) -> None:
    """Reject bytes labels from their dtype, before reading data (scikit-learn's TypeError)."""
    if getattr(getattr(values, "dtype", None), "kind", None) == "S":
        raise TypeError(BYTES_LABELS_MESSAGE)


def check_declared_score_dtype(values: Any) -> None:
    """Reject string or complex score columns from their dtype, before reading data."""
    dtype = getattr(values, "dtype", None)
    if dtype is None:
        return
    if isinstance(dtype, np.dtype):
        check_score_dtype(dtype)
    elif "str" in str(dtype).lower():
        check_score_dtype(np.dtype("U1"))


def scores_checked(func: Callable[..., Any], *columns: Any, **options: Any) -> Any:
    """``func(*columns, **options)`` once ``columns[1]``, the scores, passed the dtype check.

    A partition may not have the dtype dask declared for its collection (a
    Parquet file whose score column is text, after a first file where it is
    a number): in the task that reads it, each partition of the scores passes
    the check the declared dtype passed (:func:`check_declared_score_dtype`),
    before its values are converted and the text parsed as numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> scores_checked(len, [0, 1], pd.Series(["0.1", "0.9"], dtype="string"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: dtype='numeric' is not compatible with arrays of bytes/strings.Convert ...
    """
    check_declared_score_dtype(columns[1])
    return func(*columns, **options)


def as_score_array(values: Any, *, check_finite: bool = True) -> np.ndarray:
    """Scores as a finite numeric ndarray, raising sklearn's errors otherwise.

    ``check_finite=False`` leaves NaN and infinities to the caller, which
    checks them with :func:`check_finite_scores` (on an aggregated block's
    distinct scores, say: every value of the rows is among them).  A pandas
    string column is refused from its dtype, as the declared dtype of a
    collection is (:func:`check_declared_score_dtype`).
    """
    check_declared_score_dtype(values)
    scores = to_numpy(values)
    check_score_dtype(scores.dtype)
    if scores.dtype.kind == "b":
        scores = scores.astype(np.int8)
    elif scores.dtype.kind == "O":
        try:
            scores = scores.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                "dtype='numeric' is not compatible with arrays of bytes/strings."
                "Convert your data to numeric values explicitly instead."
            ) from None
    elif scores.dtype == np.float16:
        scores = scores.astype(np.float32)
    if check_finite:
        check_finite_scores(scores)
    return scores


def check_finite_scores(scores: np.ndarray) -> None:
    """sklearn's error for NaN or infinite scores (a no-op for integers)."""
    if scores.dtype.kind == "f":
        _check_finite(scores, "")


def _check_finite(values: np.ndarray, name: str) -> None:
    if np.isfinite(values).all():
        return
    prefix = f"Input {name} contains" if name else "Input contains"
    if np.isnan(values).any():
        raise ValueError(f"{prefix} NaN.")
    raise ValueError(f"{prefix} infinity or a value too large for dtype({values.dtype.name!r}).")


def as_weight_array(values: Any) -> np.ndarray:
    """Sample weights as float64, finite and non-negative."""
    weights = to_numpy(values)
    if weights.dtype.kind not in "biuf":
        try:
            weights = weights.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"sample_weight must be numeric, got dtype {weights.dtype}") from None
    weights = weights.astype(np.float64, copy=False)
    _check_finite(weights, "sample_weight")
    if (weights < 0).any():
        raise ValueError("Negative values in data passed to `sample_weight`")
    return weights


BYTES_LABELS_MESSAGE = (
    "Support for labels represented as bytes is not supported. Convert the labels to a "
    "string or integer format."
)


def distinct_labels(labels: np.ndarray) -> tuple[Any, ...]:
    """The distinct labels of one block, sorted, as Python values; any number of them.

    The one label discovery of dask-auc: every metric's block kernel calls it,
    so every metric rejects the same labels with scikit-learn's messages.  A
    binary-only metric checks the union of all blocks' labels later
    (:class:`BinaryTarget`), where it knows every class.

    Examples
    --------
    >>> distinct_labels(np.array(["b", "a", "b"]))
    ('a', 'b')
    """
    kind = labels.dtype.kind
    if kind == "S":
        raise TypeError(BYTES_LABELS_MESSAGE)
    if kind == "b":
        found: Any = [v for v in (False, True) if (labels == v).any()]
    elif kind in "iu" and labels.size:
        low, high = labels.min().item(), labels.max().item()
        if low != high and ((labels == low) | (labels == high)).all():
            found = [low, high]  # the common binary case, without a sort
        else:
            found = np.unique(labels) if low != high else [low]
    elif kind == "f":
        _check_finite_labels(labels)
        found = np.unique(labels)
    elif kind in "OU":
        found = _object_unique(labels)
        if any(isinstance(v, bytes) for v in found):
            raise TypeError(BYTES_LABELS_MESSAGE)
    else:
        found = np.unique(labels)
    return tuple(v.item() if hasattr(v, "item") else v for v in found)


def _check_finite_labels(labels: np.ndarray) -> None:
    if np.isnan(labels).any():
        raise ValueError("Input y_true contains NaN.")
    if not np.isfinite(labels).all() or (labels != np.round(labels)).any():
        raise ValueError("continuous format is not supported")


def _object_unique(labels: np.ndarray) -> np.ndarray:
    try:
        found = np.unique(labels)
    except TypeError:
        found = np.array(list({v for v in labels.tolist()}), dtype=object)
        if not any(_is_missing(v) for v in found):
            raise ValueError("Mix of label input types (string and number) in y_true") from None
    if any(_is_missing(v) for v in found):
        raise ValueError("Input y_true contains NaN.")
    return found


def _is_missing(value: Any) -> bool:
    return (
        value is None
        or (isinstance(value, float) and value != value)
        or (type(value).__name__ in ("NAType", "NaTType"))
    )


def sorted_labels(per_block: Any) -> tuple[Any, ...]:
    """The sorted union of the labels found in each block, any number of them.

    Examples
    --------
    >>> sorted_labels([(0, 1), (), (2,)])
    (0, 1, 2)
    """
    found = {c for block in per_block for c in block}
    try:
        return tuple(sorted(found))
    except TypeError:
        raise ValueError("Mix of label input types (string and number) in y_true") from None


def union_of_classes(
    per_block: list[tuple[Any, ...]], target: BinaryTarget, n_rows: int
) -> tuple[Any, ...]:
    """The sorted union of per-block classes, at most two (``target``'s error otherwise).

    The last class is the positive one.
    """
    classes = sorted_labels(per_block)
    target.check(classes, n_rows)
    return classes


def as_matrix(values: Any) -> np.ndarray:
    """A block of a 2-D input as a float64 (or object) matrix, from pandas or NumPy."""
    if hasattr(values, "to_numpy") and getattr(values, "ndim", 1) == 2:  # a pandas DataFrame
        kinds = [getattr(dt, "kind", "O") for dt in values.dtypes]
        if all(kind in "biuf" for kind in kinds):
            return values.to_numpy(dtype=np.float64, na_value=np.nan)
        return values.to_numpy()
    return np.asarray(values)
