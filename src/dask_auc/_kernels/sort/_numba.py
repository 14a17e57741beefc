"""The sort's compiled loops (the optional ``numba`` extra, ``pip install dask-auc[numba]``).

Imported only through :mod:`dask_auc._kernels.sort.compiled`, which falls back to
NumPy when numba is missing.  Each loop does what NumPy has no single
primitive for and would otherwise cost a sort or several passes:

* :func:`group_of_rows` + :func:`scatter`: a counting partition of unsorted
  rows by class and score bucket (a sample sort's "split" without sorting
  the block, and without a separate pass per class);
* :func:`aggregate_codes`: an open-addressing hash aggregation of
  (score, class) keys, with their row counts;
* :func:`sorted_ranks`: both binary searches of every entry of one sorted
  array in another (``searchsorted`` left and right) by one walk of the two
  (its step, :func:`ranks_from`); :func:`walked_below` and :func:`walked_through`,
  the binary queries' pair counts' walk, eight entries at a time.

The families' loops live beside their kernels (``binary/_numba.py``,
``replicates/_numba.py``, ``groups/_numba.py``).  Every function is ``nogil``
so that the threaded scheduler runs them on all cores, and results are exact
integers where the NumPy path's are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

#: nogil: the threaded scheduler runs the loops on all cores at once
_compile = njit(nogil=True, cache=True, boundscheck=False)
#: the same, inlined by numba into its callers (the walks' steps, called once a query)
_inlined = njit(nogil=True, cache=True, boundscheck=False, inline="always")


#: up to this many splitters a row's bucket may be a count of the splitters
#: below it, made one splitter at a time over a cache-sized run of rows
#: (compiled to vector compares: it pays with wide vectors, so the caller
#: decides by timing it, :func:`~dask_auc._kernels.sort.preferences.prefer_counting`);
#: else a count per row (<= 16 splitters) or a look-up of its cell (:func:`_cell_groups`)
COUNTED_SPLITTERS = 32


_RUN = 4096


#: up to this many, a count per row; above, the row's cell of a table over the splitters
_LINEAR_SPLITTERS = 16
#: a cell holding more splitters than this searches them by bisection, not one by one
_CELL_SCAN = 16


@_compile
def group_of_rows(scores, codes, n_codes, splitters, spread, groups, counted_most):  # noqa: E501  # pragma: no cover
    """Write every row's group ``bucket * n_codes + code`` into ``groups``; count each group.

    ``codes`` are 0 or 1 (``n_codes`` 1 or 2).  A row goes to ascending
    bucket ``j`` = the number of splitters below its score (a score equal to
    a splitter goes below it, as ``searchsorted(..., "right")`` cuts a sorted
    array).  ``spread[j]`` > 1 marks the first of ``spread[j]`` equal
    splitters (a heavy tie): rows of exactly that score are dealt in turn to
    the ``spread[j] + 1`` buckets from ``j`` on, so that the tie does not
    fill one bucket.  Up to ``counted_most`` splitters (at most
    :data:`COUNTED_SPLITTERS`), the buckets are counted a splitter at a time.
    """
    n_splitters = len(splitters)
    if n_splitters <= min(counted_most, COUNTED_SPLITTERS):
        counts = _counted_groups(scores, codes, n_codes, splitters, groups)
    else:
        _searched_groups(scores, codes, n_codes, splitters, groups)
        counts = np.zeros(0, np.int64)
    if n_splitters and spread.max() > 1:
        _deal_heavy_ties(scores, n_codes, splitters, spread, groups)
        counts = np.zeros(0, np.int64)
    if len(counts) == 0:
        counts = _histogram(groups, (n_splitters + 1) * n_codes)
    return counts


@_compile
def _counted_groups(scores, codes, n_codes, splitters, groups):  # pragma: no cover
    """Buckets as counts of the splitters below, one splitter at a time over runs of rows.

    The comparisons also give, per splitter, the rows of each code above it,
    and so the rows of every group without a histogram.
    """
    n = len(scores)
    n_splitters = len(splitters)
    above = np.zeros((n_splitters + 1, 2), np.int64)  # rows of code c above splitter j
    for start in range(0, n, _RUN):
        run = groups[start : start + _RUN]
        values = scores[start : start + _RUN]
        run_codes = codes[start : start + _RUN]
        for i in range(len(run)):
            run[i] = 0
        for j in range(n_splitters):
            splitter = splitters[j]
            total = 0
            coded = 0
            for i in range(len(run)):
                up = splitter < values[i]
                run[i] += up
                total += up
                coded += up & run_codes[i]
            above[j, 0] += total - coded
            above[j, 1] += coded
        for i in range(len(run)):
            run[i] = run[i] * n_codes + run_codes[i]
    coded_rows = 0
    for i in range(n):
        coded_rows += codes[i]
    counts = np.zeros((n_splitters + 1) * n_codes, np.int64)
    previous = (n - coded_rows, coded_rows)
    for j in range(n_splitters + 1):
        counts[j * n_codes] += previous[0] - above[j, 0]
        counts[j * n_codes + n_codes - 1] += previous[1] - above[j, 1]
        previous = (above[j, 0], above[j, 1])
    return counts


@_compile
def _searched_groups(scores, codes, n_codes, splitters, groups):  # pragma: no cover
    n_splitters = len(splitters)
    if n_splitters > _LINEAR_SPLITTERS:
        _cell_groups(scores, codes, n_codes, splitters, groups)
        return
    for k in range(len(scores)):
        value = scores[k]
        bucket = 0
        for j in range(n_splitters):
            bucket += splitters[j] < value
        groups[k] = bucket * n_codes + codes[k]


_SIGN = np.uint64(1 << 63)


@_compile
def order_key(bits):  # pragma: no cover - compiled
    """A float64's bits to its order-preserving key (-0.0 as 0.0): ``states.bins.score_keys``.

    The split's cells (:func:`_cell_groups`) and the states' bins
    (:mod:`dask_auc._kernels.states._tables`) key scores so.  No branch on the
    sign (a select for -0.0): loops over the rows vectorise.
    """
    flip = np.uint64(np.int64(bits) >> np.int64(63)) | _SIGN  # all bits if negative, else the sign
    return _SIGN if bits == _SIGN else bits ^ flip


@njit(inline="always", cache=True)
def _float_key(value):  # pragma: no cover - compiled
    """:func:`order_key` of a score as float64: never decreasing in the score, of any dtype."""
    return order_key(np.float64(value).view(np.uint64))


@_compile
def _cell_groups(scores, codes, n_codes, splitters, groups):  # pragma: no cover - compiled
    """A row's bucket (the splitters below its score) by the cell of its key, many splitters.

    The keys between the lowest and the highest splitter's are cut into ``2**12`` to
    ``2**16`` equal cells (about 128 a splitter); ``first[c]``: the splitters of the
    cells before cell ``c``, each below every score of ``c`` (the key never
    decreases with the score), and those of ``c`` are compared with the score itself
    -- the same buckets as a count of every splitter, where a bisection per row took
    ~7 ns a row at 120 splitters and ~42 at 500, and the cells ~2.2 at either.  A
    score below the lowest splitter (above the highest) is in cell 0 (the last).
    """
    n_splitters = len(splitters)
    low, high = _float_key(splitters[0]), _float_key(splitters[n_splitters - 1])
    span = high - low
    cell_bits = min(max(7 + int(np.log2(n_splitters)), 12), 16)
    shift = np.uint64(0)
    while (span >> shift) >> np.uint64(cell_bits) != 0:
        shift += np.uint64(1)
    n_cells = np.int64(span >> shift) + 1
    first = np.zeros(n_cells + 1, np.int64)
    for j in range(n_splitters):
        first[np.int64((_float_key(splitters[j]) - low) >> shift) + 1] += 1
    most = 0
    for c in range(n_cells):
        most = max(most, first[c + 1])
        first[c + 1] += first[c]
    for k in range(len(scores)):
        value = scores[k]
        key = _float_key(value)
        if key < low:
            bucket = 0
        elif key > high:
            bucket = n_splitters
        else:
            c = np.int64((key - low) >> shift)
            bucket, stop = first[c], first[c + 1]
            if most <= _CELL_SCAN:
                for j in range(bucket, stop):
                    bucket += splitters[j] < value
            else:  # many splitters in one cell (scores crowded in a few cells): bisect them
                bucket = first_not_below(splitters, bucket, stop, value)
        groups[k] = bucket * n_codes + codes[k]


@_compile
def _deal_heavy_ties(scores, n_codes, splitters, spread, groups):  # pragma: no cover
    n_splitters = len(splitters)
    dealt = np.zeros(n_splitters + 1, np.int64)  # each tie's next turn, 0 .. spread
    code_bits = n_codes - 1  # n_codes is 1 or 2: a shift, not a division a row
    for k in range(len(scores)):
        bucket = np.int64(groups[k]) >> code_bits
        if bucket < n_splitters and spread[bucket] > 1 and splitters[bucket] == scores[k]:
            turn = dealt[bucket]
            dealt[bucket] = 0 if turn == spread[bucket] else turn + 1  # turn % (spread + 1)
            groups[k] += turn * n_codes


@_compile
def _histogram(groups, n_groups):  # pragma: no cover
    # 4 interleaved histograms: consecutive rows of one group do not wait on
    # each other's increment
    counts = np.zeros(4 * n_groups, np.int64)
    for k in range(len(groups)):
        counts[(k & 3) * n_groups + groups[k]] += 1
    return counts.reshape(4, n_groups).sum(axis=0)


@_compile
def scatter(values, groups, starts, out):  # pragma: no cover - compiled
    """``values`` ordered by group into ``out`` (input order within a group).

    Group ``g`` starts at ``starts[g]``.

    ``out`` is allocated by NumPy, whose large arrays ask the kernel for huge
    pages: their first touch costs a third of numba's own allocation's.
    """
    cursor = starts[:-1].astype(np.uint64)
    for k in range(len(values)):
        g = np.uint64(groups[k])
        at = cursor[g]
        out[at] = values[k]
        cursor[g] = at + np.uint64(1)


@_compile
def first_not_below(values, first, stop, value):  # pragma: no cover - compiled
    """The first index in ``[first, stop)`` of ascending ``values`` holding ``>= value``: a
    bisection (the groups' and the states' loops; numba's ``np.searchsorted`` costs more to
    compile)."""
    while first < stop:
        middle = (first + stop) >> 1
        if values[middle] < value:
            first = middle + 1
        else:
            stop = middle
    return first


#: entries a walk step compares at once (one vector compare, no branch between them)
_STRIDE = 8


@_inlined
def walked_below(values, low, n, query):  # pragma: no cover - compiled
    """The first index from ``low`` of ascending ``values[:n]`` not below ``query``.

    ``_STRIDE`` entries are counted at a time (they ascend: those below are a
    prefix), so that the few entries between two queries of a merge cost one
    vector compare, not a branch each whose exit the CPU cannot predict: the
    pair counts' merge of a bucket's two classes (``merged_pair_counts``) takes
    2.29 against 2.44 ns a row so on the benchmarks' logistic scores, 1.7 against
    2.5 on better separated classes (6.25e6 rows, 30% positives).  Where most
    queries have no entry before the next (:func:`sorted_ranks` of the majority
    class among the minority's), one compare a query is cheaper: 3.6 against
    5.1 ns a row there, so that walk keeps :func:`ranks_from`.
    """
    while low + _STRIDE <= n:
        below = 0
        for t in range(_STRIDE):
            below += values[low + t] < query
        low += below
        if below < _STRIDE:
            return low
    while low < n and values[low] < query:
        low += 1
    return low


@_inlined
def walked_through(values, high, n, query):  # pragma: no cover - compiled
    """:func:`walked_below` for the entries at or below ``query``."""
    while high + _STRIDE <= n:
        through = 0
        for t in range(_STRIDE):
            through += values[high + t] <= query
        high += through
        if through < _STRIDE:
            return high
    while high < n and values[high] <= query:
        high += 1
    return high


@_compile
def ranks_from(values, low, high, query):  # pragma: no cover - compiled
    """``(below, through)``: the entries of ascending ``values`` strictly below ``query`` and at
    or below it, walked on from ``(low, high)``, those of a query no greater (the walk of
    :func:`sorted_ranks`; the binary queries' ``merged_pair_counts`` walks by
    :func:`walked_below`)."""
    n = len(values)
    while low < n and values[low] < query:
        low += 1
    if high < low:
        high = low
    while high < n and values[high] <= query:
        high += 1
    return low, high


@_compile
def sorted_ranks(values, queries, below, through):  # pragma: no cover - compiled
    """``searchsorted(values, queries)``, left into ``below`` and right into ``through``.

    Both arrays ascending: one walk of the two, linear in their lengths (the
    counts of ``values`` strictly below, and at or below, each query).
    """
    low = 0
    high = 0
    for i in range(len(queries)):
        low, high = ranks_from(values, low, high, queries[i])
        below[i] = low
        through[i] = high


#: Fibonacci hashing's multiplier, 2**64 / the golden ratio: the hash tables' (here and the
#: binary queries' lookup by score) home slot of a key is its product's top bits
GOLDEN_64 = 0x9E3779B97F4A7C15

#: a slot's two row counts share one uint64 (code 1 in the high half): a block of
#: more rows than this could carry a count into the other's half
_MAX_HASHED_ROWS = 2**32 - 1


def _room(capacity: int) -> int:
    """The keys a table of ``capacity`` slots takes before it doubles.

    At most an eighth full while it is small (<= 512 KiB), a quarter at 1 MiB,
    half beyond: fewer rows miss their first probe (a mispredicted branch each)
    where a sparser table still stays in L2, and no sparser a large table
    than half full, where the cache misses cost more than the probes.
    """
    return capacity // 8 if capacity <= 1 << 15 else capacity // (4 if capacity <= 1 << 16 else 2)


@_compile
def _insert_rows(bits, codes, start, negative_zero, table, shift, used, room):
    """Count rows from ``start`` until the table holds ``room`` keys; returns (row, used).

    Slot ``s`` is ``table[2 * s]`` (the score's pattern) and ``table[2 * s + 1]``
    (its rows of code 0 plus 2**32 times its rows of code 1): one cache line a
    row.  A slot is empty while its counts are 0 (any pattern, 0 too, is a key).
    Returns at the first row of a new key past ``room``, not yet counted.

    A probe compares the pattern first and reads the counts only on a miss or
    to tell an empty slot of pattern 0 from key 0's: the branch a row takes
    then waits on no count another row has just written (deciding it on both
    at once, with the homes hashed a run of rows ahead, cost ~3.1 ns a row
    against ~1.9 on 995 distinct scores, and ~1.3 ns more up to 1e5 of them).
    """
    mask = len(table) // 2 - 1
    golden = np.uint64(GOLDEN_64)
    zero = np.uint64(0)
    one = np.uint64(1)
    for i in range(start, len(bits)):
        pattern = np.uint64(bits[i])
        pattern = zero if pattern == negative_zero else pattern  # -0.0 is the key 0.0
        slot = np.int64((pattern * golden) >> shift)
        while True:
            if table[2 * slot] == pattern:
                if table[2 * slot + 1] == 0:  # empty, of pattern 0: key 0's new slot
                    if used == room:
                        return i, used
                    used += 1
                break
            if table[2 * slot + 1] == 0:  # empty: the key's new slot
                if used == room:
                    return i, used
                table[2 * slot] = pattern
                used += 1
                break
            slot = (slot + 1) & mask
        table[2 * slot + 1] += one << (np.uint64(32) * np.uint64(codes[i]))
    return len(bits), used


@_compile
def _rehashed(table, shift):  # pragma: no cover - compiled
    """The table's keys and counts in one twice its size (``shift`` one less)."""
    capacity = len(table)  # slots of the new table: twice the old
    mask = capacity - 1
    new = np.zeros(2 * capacity, np.uint64)
    for s in range(len(table) // 2):
        counts = table[2 * s + 1]
        if counts == 0:
            continue
        pattern = table[2 * s]
        slot = np.int64((pattern * np.uint64(GOLDEN_64)) >> shift)
        while new[2 * slot + 1] != 0:
            slot = (slot + 1) & mask
        new[2 * slot] = pattern
        new[2 * slot + 1] = counts
    return new


def aggregate_codes(bits, codes, negative_zero, limit):
    """The distinct scores of the rows and each one's row count per code (0 or 1).

    ``bits`` are the scores' bit patterns (an unsigned view of the same
    width); ``negative_zero`` is the pattern of ``-0.0``, counted as ``0.0``,
    which it equals (0 for integer scores).  Without NaN, equal scores are
    then equal patterns.  Open addressing with linear probing (Fibonacci
    hashing) in one table of (pattern, both counts) slots, doubled whenever
    it holds its :func:`_room`.

    Returns ``(patterns, counts)`` with ``counts[i, code]`` (int64), in no
    particular order, or None as soon as there are more than ``limit``
    distinct scores (the rows are not few-valued after all: the caller sorts
    them instead), and for a block of more than ``2**32 - 1`` rows (a count
    could overflow its half of a slot: the caller's other path counts them).
    """
    if len(bits) > _MAX_HASHED_ROWS:
        return None
    log_capacity = 12
    table = np.zeros(2 << log_capacity, np.uint64)
    row, used = 0, 0
    while True:
        shift = np.uint64(64 - log_capacity)
        room = _room(1 << log_capacity)
        row, used = _insert_rows(bits, codes, row, negative_zero, table, shift, used, room)
        if used > limit:
            return None
        if row == len(bits):
            break
        log_capacity += 1
        table = _rehashed(table, np.uint64(64 - log_capacity))
    slots = table.reshape(-1, 2)
    filled = np.flatnonzero(slots[:, 1])
    packed = slots[filled, 1]
    counts = np.empty((len(filled), 2), np.int64)
    counts[:, 0] = packed & np.uint64(0xFFFFFFFF)
    counts[:, 1] = packed >> np.uint64(32)
    return slots[filled, 0], counts


def warm_up(loaded: Callable[[Any], None]) -> None:
    """Run the sort's loops once, through their doors, on tiny inputs: numba compiles them.

    :mod:`~dask_auc._kernels.sort.compiled` calls this in the background compile;
    ``loaded`` is given the first loop, to revise the compile's estimate.
    """
    from . import compiled

    for dtype in (np.float64, np.int64):
        scores = np.arange(300, dtype=dtype)[::-1].copy()
        codes = (np.arange(300) % 2).astype(np.uint8)
        for n_splitters in (3, 40, 300):  # uint8 and uint16 group codes, both split loops
            splitters = np.sort(scores[:: max(1, 300 // n_splitters)])[:n_splitters]
            compiled.grouped_rows(scores, codes, 2, splitters)
        if dtype is np.float64:
            loaded(group_of_rows)
        ascending = np.sort(scores)
        compiled.pair_counts(ascending[::2].copy(), ascending[1::2].copy())
        compiled.aggregate(scores % 7, codes.view(bool), 100)
        compiled.ranks(ascending[::2].copy(), ascending[1::2].copy())
    narrow = np.arange(300, dtype=np.float32)  # narrowed doubles (prepare.narrowed) split so
    compiled.grouped_rows(narrow, codes, 2, narrow[::100].copy())
    # the route of DeLong's placements back to their blocks: int64 ids, float values
    blocks = (np.arange(300) % 5).astype(np.uint16)
    compiled.partitioned(blocks, 5, np.arange(300), np.linspace(0, 1, 300))
