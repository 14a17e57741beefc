"""The optional compiled kernels, behind one door: each returns ``None`` when it cannot run.

``pip install dask-auc[numba]`` installs numba; each stage's loops live beside
its kernels, in its ``_numba`` module (the sort's, the binary queries', the
groups', the replicates': :attr:`~.loading._Family.stages`), and each stage's
entries to them beside their callers, through :func:`usable` (the sort's own
are here: :func:`grouped_rows`, :func:`pair_counts`, :func:`aggregate`,
:func:`ranks`, :func:`partitioned`).  :mod:`.loading` compiles (or loads) them
in the background; :func:`compile_now` waits for every loop (the tests do).

Without numba, or with the ``dask-auc.numba`` setting False (the engine
passes it to every task as ``compiled=False``), every caller takes its NumPy
path, which gives the same numbers: the compiled path changes the time, never
a result.  Nothing here imports dask.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from . import loading
from .loading import _available, _warming, compile_now, loaded, loops
from .preferences import calibrate, counting_pays, hash_pays

__all__ = [  # the doors; compile_now, loaded and loops are .loading's, re-exported
    "aggregate",
    "compile_now",
    "grouped_rows",
    "hashes",
    "loaded",
    "loops",
    "pair_counts",
    "partitioned",
    "ranks",
    "score_bits",
    "supports",
    "UNSIGNED_OF_WIDTH",
    "usable",
]

#: score dtypes the compiled loops are built for (others take the NumPy path)
_SCORE_KINDS = frozenset("fiu")
#: the unsigned integer of each width: loops that move or hash values take their bits as these
UNSIGNED_OF_WIDTH = {8: np.uint64, 4: np.uint32, 2: np.uint16, 1: np.uint8}


def supports(dtype: np.dtype) -> bool:
    """Whether the compiled loops take scores of this dtype (and numba is installed)."""
    return dtype.kind in _SCORE_KINDS and dtype.itemsize in UNSIGNED_OF_WIDTH and _available()


def usable(compiled: bool, stage: str, *arrays: np.ndarray, work: float = 0) -> ModuleType | None:
    """A stage's loops for these arrays (:func:`loops`), or None: take the NumPy path.

    Every entry to compiled loops asks here: ``compiled`` False (the
    ``dask-auc.numba`` setting), a score dtype the loops are not built for, or
    a compile not done yet (unless ``work`` is worth the wait) give None.
    """
    if not compiled or not all(supports(a.dtype) for a in arrays):
        return None
    return loops(stage, work)


def grouped_rows(
    scores: np.ndarray,
    codes: np.ndarray,
    n_codes: int,
    splitters: np.ndarray,
    ids: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
    """Unsorted rows grouped by (ascending score bucket, code), in two passes, or None.

    ``codes`` (uint8, 0 or 1; ``n_codes`` 1 or 2) give each row's part.  Returns
    ``(rows, starts, row_ids)``: the scores ordered by group ``bucket * n_codes +
    code`` (input order within one), group ``g`` being
    ``rows[starts[g]:starts[g + 1]]``, and ``ids`` (the rows' ids on a traced
    sort; else None) in the same order.  A score equal to a splitter goes to
    the bucket below it; a splitter value repeated ``m`` times deals its rows
    over ``m + 1`` buckets.
    """
    kernel = usable(True, "sort", scores)
    if kernel is None or scores.dtype != splitters.dtype or not 1 <= n_codes <= 2:
        return None
    spread = np.zeros(len(splitters), np.int64)
    if len(splitters):
        _, first, repeats = np.unique(splitters, return_index=True, return_counts=True)
        spread[first] = repeats
    n_groups = (len(splitters) + 1) * n_codes
    group_dtype = np.uint8 if n_groups <= 1 << 8 else np.uint16 if n_groups <= 1 << 16 else np.int64
    groups = np.empty(len(scores), group_dtype)
    counted_most = kernel.COUNTED_SPLITTERS if counting_pays.is_set() else -1
    counts = kernel.group_of_rows(scores, codes, n_codes, splitters, spread, groups, counted_most)
    starts = np.concatenate(([0], np.cumsum(counts)))
    rows = np.empty_like(scores)
    kernel.scatter(scores, groups, starts, rows)
    row_ids = None
    if ids is not None:
        row_ids = np.empty_like(ids)
        kernel.scatter(ids, groups, starts, row_ids)
    return rows, starts, row_ids


def pair_counts(
    pos: np.ndarray, neg: np.ndarray, *, compiled: bool = True
) -> tuple[int, int] | None:
    """(pairs pos > neg, pairs pos == neg) of two ascending arrays by one merge, or None."""
    kernel = usable(compiled, "binary", pos, neg)
    if kernel is None or pos.dtype != neg.dtype or len(pos) * len(neg) >= 2**63:
        return None
    strict, tied = kernel.merged_pair_counts(pos, neg)
    return int(strict), int(tied)


def ranks(
    values: np.ndarray, queries: np.ndarray, *, compiled: bool = True
) -> tuple[np.ndarray, np.ndarray] | None:
    """``searchsorted(values, queries, "left")`` and ``"right"`` of two ascending arrays, or None.

    One walk of the two arrays (linear) instead of two binary searches per query.
    """
    kernel = usable(compiled, "sort", values, queries)
    if kernel is None or values.dtype != queries.dtype:
        return None
    below = np.empty(len(queries), np.int64)
    through = np.empty(len(queries), np.int64)
    kernel.sorted_ranks(values, queries, below, through)
    return below, through


def partitioned(
    groups: np.ndarray, n_groups: int, *values: np.ndarray, compiled: bool = True
) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """Each of ``values`` ordered by ``groups`` (row order within one): a counting partition.

    ``groups`` (uint8 or uint16, below ``n_groups``) give each row's group.
    Returns ``(starts, ordered)``, group ``g`` of each ``ordered`` array being
    ``[starts[g]:starts[g + 1]]``; None where the compiled loops do not run.
    """
    kernel = usable(compiled, "sort", *values)
    if kernel is None or groups.dtype not in (np.uint8, np.uint16):
        return None
    starts = np.concatenate(([0], np.cumsum(np.bincount(groups, minlength=n_groups))))
    ordered = []
    for value in values:
        out = np.empty_like(value)
        kernel.scatter(value, groups, starts, out)
        ordered.append(out)
    return starts, ordered


def _hash(compiled: bool, scores: np.ndarray) -> ModuleType | None:
    """The sort's loops if their hash aggregates these scores here (else Arrow would), or None."""
    kernel = usable(compiled, "sort", scores)
    if kernel is None or not (hash_pays.is_set() or getattr(_warming, "active", False)):
        return None
    return kernel


def hashes(compiled: bool, scores: np.ndarray) -> bool:
    """Whether :func:`aggregate` would hash these scores now (numba, compiled, calibrated)."""
    return _hash(compiled, scores) is not None


def score_bits(scores: np.ndarray) -> tuple[np.ndarray, np.uint64]:
    """The scores' bit patterns (an unsigned view, no copy) and the pattern of ``-0.0``.

    Equal scores have equal patterns but for ``-0.0``, whose pattern the
    compiled hashes read as ``0.0``'s, 0 (for integer scores: 0, nothing to read).

    Examples
    --------
    >>> bits, negative_zero = score_bits(np.array([0.0, -0.0]))
    >>> bits.tolist(), hex(negative_zero)
    ([0, 9223372036854775808], '0x8000000000000000')
    """
    bits = scores.view(UNSIGNED_OF_WIDTH[scores.dtype.itemsize])
    negative_zero = (
        int(np.array(-0.0, scores.dtype).view(bits.dtype)) if scores.dtype.kind == "f" else 0
    )
    return bits, np.uint64(negative_zero)


def aggregate(
    scores: np.ndarray, positive: np.ndarray | None, limit: int, *, compiled: bool = True
) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct scores and their row counts per class, by hashing, or None.

    Returns ``(values, counts)`` with ``counts[i]`` = (rows of ``values[i]``
    not positive, positive); ``positive`` None: every row is of the first.
    None also when the rows hold more than ``limit`` distinct scores, or
    more than ``2**32 - 1`` rows (the hash counts in 32-bit halves).  Values
    come in no particular order; ``-0.0`` and ``0.0`` are one value.
    """
    kernel = _hash(compiled, scores)
    if kernel is None:
        return None
    bits, negative_zero = score_bits(scores)
    codes = np.zeros(len(scores), np.uint8) if positive is None else positive.view(np.uint8)
    found = kernel.aggregate_codes(bits, codes, negative_zero, limit)
    if found is None:
        return None
    patterns, counts = found
    return patterns.astype(bits.dtype).view(scores.dtype), counts


def _calibrate(rows: int = 1 << 20, repeats: int = 3) -> None:
    """This CPU's two timed choices (:func:`.preferences.calibrate`), in the background compile."""
    calibrate(aggregate, loading._module("sort"), rows, repeats)


loading.after_main.append(_calibrate)
