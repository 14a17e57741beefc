"""The ordered scan that places each bucket's curve points among all others.

A curve point is a distinct score ``s`` with the (weighted) counts of
positives and negatives scoring ``>= s``: scikit-learn's ``tps`` and ``fps``.
Each sorted bucket (:mod:`dask_auc._kernels.sort.buckets`, bucket 0 = highest scores) makes
the points of its own distinct scores, shifted by the counts of all higher
buckets.  Those shifts, and everything else a bucket must know of the others,
come from one ordered exclusive scan of the bucket summaries
(:func:`curve_contexts`); no row leaves its bucket.

* A tie group spread over several buckets gives one point, made by the *last*
  bucket holding its score: a bucket whose bottom score opens the next
  non-empty bucket does not emit it (``CurveContext.continues``).
* ``drop_intermediate`` decides on a point from its two neighbours; for the
  first and last point of a bucket those neighbours are the edge points of
  the buckets around it, whose counts the scan derives from their summaries'
  top and bottom tie groups.

Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.summary import Number, PartialROC, neighbourhoods


@dataclass(frozen=True)
class CurveContext:
    """What one bucket needs to know of all others to make its curve points.

    Counts are ``(positives, negatives)``, weighted when weights exist.
    """

    total: tuple[Number, Number]
    above: tuple[Number, Number]  # rows in higher buckets
    continues: bool  # the bottom score opens the next non-empty bucket: not emitted here
    previous: tuple[Number, Number] | None  # the point before this bucket's first one
    following: tuple[Number, Number] | None  # the point after this bucket's last one
    #: rows of higher buckets at this bucket's top score (a tie continued from above)
    carried: tuple[Number, Number] = (0, 0)
    #: rows between this bucket's last point and ``following``: the next point's
    #: tie group, summed from group totals, so "is any positive between" is exact
    gain_after: tuple[Number, Number] | None = None
    #: this bucket's own rows, as its summary sums them (None: not known, as in doctests)
    own: tuple[Number, Number] | None = None
    #: rows of all lower buckets, summed from the bottom bucket up
    below: tuple[Number, Number] = (0, 0)


def curve_contexts(summaries: Sequence[PartialROC]) -> list[CurveContext]:
    """Each bucket's curve context, from the ordered scan of the bucket summaries.

    Examples
    --------
    >>> from dask_auc._kernels.core.summary import TieGroup
    >>> high = PartialROC(1, 1, 0, 1, TieGroup(0.9, 1, 0), TieGroup(0.5, 0, 1))
    >>> low = PartialROC(1, 0, 0, 0, TieGroup(0.5, 1, 0), TieGroup(0.5, 1, 0))
    >>> [c.continues for c in curve_contexts([high, low])]
    [True, False]
    >>> curve_contexts([high, low])[0].following
    (2, 1)
    """
    last_point: tuple[Number, Number] | None = None
    contexts = []
    for summary, around, below in zip(
        summaries, neighbourhoods(list(summaries)), _below(summaries), strict=True
    ):
        own = (summary.pos, summary.neg)
        if summary.is_empty:
            contexts.append(
                CurveContext(
                    around.total,
                    around.above,
                    False,
                    last_point,
                    None,
                    around.carried,
                    own=own,
                    below=below,
                )
            )
            continue
        assert summary.bottom is not None
        through = _plus(around.above, (summary.pos, summary.neg))
        bottom = (summary.bottom.pos, summary.bottom.neg)
        gain = around.next_group
        if around.continues:
            # the last point here is the second-lowest score; the next one is the
            # bottom score, completed by the buckets it continues into
            end = (through[0] - bottom[0], through[1] - bottom[1])
            gain = _plus(bottom, around.next_group)  # type: ignore[arg-type]
            emits = not summary.is_single_group
        else:
            end = through
            emits = True
        following = None if around.next_group is None else _plus(through, around.next_group)
        contexts.append(
            CurveContext(
                around.total,
                around.above,
                around.continues,
                last_point,
                following if emits else None,
                around.carried,
                gain if emits else None,
                own,
                below,
            )
        )
        if emits:
            last_point = end
    return contexts


def _below(summaries: Sequence[PartialROC]) -> list[tuple[Number, Number]]:
    """For each bucket, the rows of the buckets below it: a direct sum, from the bottom up.

    ``below[k]`` is ``below[k + 1] + own[k + 1]``, the very float addition a
    bucket makes (:func:`_running_counts`) for a threshold with all of its own
    rows below it: the remainders at two points with no row between them are
    the same float, whichever bucket makes them.
    """
    below: list[tuple[Number, Number]] = []
    acc: tuple[Number, Number] = (0, 0)
    for summary in reversed(summaries):
        below.append(acc)
        acc = _plus(acc, (summary.pos, summary.neg))
    return below[::-1]


def _plus(a: tuple[Number, Number], b: tuple[Number, Number]) -> tuple[Number, Number]:
    return a[0] + b[0], a[1] + b[1]
