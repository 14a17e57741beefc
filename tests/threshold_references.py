"""Brute-force references of the threshold metrics: nothing here calls dask-auc.

Every candidate threshold is evaluated from scratch on the NumPy rows: the
point at ``inf`` (nothing predicted positive), then each distinct score of a
row of nonzero weight, descending, counting the rows scoring ``>= t``.
"""

from __future__ import annotations

import math

import numpy as np

GAINS_COLUMNS = (
    "lower_threshold",
    "rows",
    "positives",
    "cumulative_data_fraction",
    "response_rate",
    "cumulative_response_rate",
    "lift",
    "cumulative_lift",
    "capture_rate",
    "cumulative_capture_rate",
    "gain",
    "cumulative_gain",
    "kolmogorov_smirnov",
)


def _rows(y_true, y_score, sample_weight, pos_label=None):
    y, s = np.asarray(y_true), np.asarray(y_score)
    positive = y == (np.unique(y)[-1] if pos_label is None else pos_label)
    if sample_weight is None:
        return positive, s, None
    w = np.asarray(sample_weight, dtype=float)
    return positive, s, w


def _count(mask, w):
    return int(mask.sum()) if w is None else float(w[mask].sum())


def threshold_scan(y_true, y_score, sample_weight=None, pos_label=None) -> list[dict]:
    """Every candidate point: ``threshold, tp, fp`` and the totals ``P, N``."""
    positive, s, w = _rows(y_true, y_score, sample_weight, pos_label)
    counted = np.ones(len(s), bool) if w is None else w != 0
    total_pos, total_neg = _count(positive, w), _count(~positive, w)
    points = [{"threshold": math.inf, "tp": 0 * total_pos, "fp": 0 * total_neg}]
    for t in np.unique(s[counted])[::-1]:
        above = s >= t
        points.append(
            {
                "threshold": t.item(),
                "tp": _count(above & positive, w),
                "fp": _count(above & ~positive, w),
            }
        )
    for point in points:
        point["P"], point["N"] = total_pos, total_neg
    return points


def _rates(point: dict) -> dict:
    tp, fp, total_pos, total_neg = point["tp"], point["fp"], point["P"], point["N"]
    return {
        "tpr": tp / total_pos,
        "fpr": fp / total_neg,
        "precision": tp / (tp + fp) if tp + fp else math.nan,
        "f1": 2 * tp / (tp + fp + total_pos),
    }


def _best(points: list[dict], qualifies, *keys) -> int | None:
    """Index of the qualifying point maximising ``keys`` in turn; the first of ties."""
    chosen = [i for i, p in enumerate(points) if qualifies(p)]
    if not chosen:
        return None
    return max(chosen, key=lambda i: (*(key(points[i]) for key in keys), -i))


def operating_point_reference(
    y_true, y_score, sample_weight=None, *, kind: str, value=None, pos_label=None
) -> dict:
    """The operating point by a brute-force scan, with the documented rule of each target."""
    points = threshold_scan(y_true, y_score, sample_weight, pos_label)
    for point in points:
        point.update(_rates(point))
    if kind == "threshold":
        positive, s, w = _rows(y_true, y_score, sample_weight, pos_label)
        chosen = {
            "threshold": value,
            "tp": _count((s >= value) & positive, w),
            "fp": _count((s >= value) & ~positive, w),
            "P": points[0]["P"],
            "N": points[0]["N"],
        }
        chosen.update(_rates(chosen))
    else:
        rules = {
            "fpr": (lambda p: p["fpr"] <= value, lambda p: p["tpr"], lambda p: -p["fpr"]),
            "tpr": (lambda p: p["tpr"] >= value, lambda p: -p["fpr"], lambda p: p["tpr"]),
            "precision": (
                lambda p: p["precision"] >= value,
                lambda p: p["tp"],
                lambda p: -p["fp"],
            ),
            "recall": (
                lambda p: p["tpr"] >= value and not math.isnan(p["precision"]),
                lambda p: p["precision"],
                lambda p: p["tp"],
            ),
            "youden": (lambda p: True, lambda p: p["tpr"] - p["fpr"]),
            "closest_topleft": (lambda p: True, lambda p: -((1 - p["tpr"]) ** 2 + p["fpr"] ** 2)),
            "f1": (lambda p: True, lambda p: p["f1"]),
            "cost": (
                lambda p: True,
                lambda p: -(value[0] * p["fp"] + value[1] * (p["P"] - p["tp"])),
            ),
        }
        found = _best(points, *rules[kind])
        chosen = points[0 if found is None else found]  # none qualifies: the point at inf
    tp, fp, total_pos, total_neg = chosen["tp"], chosen["fp"], chosen["P"], chosen["N"]
    return {
        "threshold": np.asarray(chosen["threshold"], dtype=float),
        "tp": np.asarray(tp, dtype=float),
        "fp": np.asarray(fp, dtype=float),
        "tn": np.asarray(total_neg - fp, dtype=float),
        "fn": np.asarray(total_pos - tp, dtype=float),
        "tpr": np.asarray(chosen["tpr"]),
        "fpr": np.asarray(chosen["fpr"]),
        "precision": np.asarray(chosen["precision"]),
        "recall": np.asarray(chosen["tpr"]),
        "f1": np.asarray(chosen["f1"]),
    }


def gains_reference(y_true, y_score, sample_weight=None, *, n_bins: int, pos_label=None) -> dict:
    """The gains table by a scan of the distinct scores from the top.

    Bin ``g`` ends at the first distinct score where the rows scoring at least
    it reach ``g / n_bins`` of all rows (``rows * n_bins >= g * n``; exact
    integers unweighted); bins that add no row are dropped.  Columns as H2O's
    ``gains_lift``, rates as fractions.
    """
    points = threshold_scan(y_true, y_score, sample_weight, pos_label)[1:]
    total_pos, total_neg = points[0]["P"], points[0]["N"]
    n = total_pos + total_neg
    cuts = []
    for g in range(1, n_bins + 1):
        # every row scores at least the lowest score: the last bin ends there, even where
        # the weights' float sums in scan order come out an ulp below their total
        cut = next((p for p in points if (p["tp"] + p["fp"]) * n_bins >= g * n), points[-1])
        if not cuts or cut is not cuts[-1]:
            cuts.append(cut)
    table: dict[str, list] = {name: [] for name in GAINS_COLUMNS}
    previous_pos = previous_neg = 0
    overall = total_pos / n
    for cut in cuts:
        cum_pos, cum_neg = cut["tp"], cut["fp"]
        pos, neg = cum_pos - previous_pos, cum_neg - previous_neg
        previous_pos, previous_neg = cum_pos, cum_neg
        rows, cum_rows = pos + neg, cum_pos + cum_neg
        response = pos / rows
        cum_response = cum_pos / cum_rows
        lift, cum_lift = response / overall, cum_response / overall
        row = {
            "lower_threshold": cut["threshold"],
            "rows": rows,
            "positives": pos,
            "cumulative_data_fraction": cum_rows / n,
            "response_rate": response,
            "cumulative_response_rate": cum_response,
            "lift": lift,
            "cumulative_lift": cum_lift,
            "capture_rate": pos / total_pos,
            "cumulative_capture_rate": cum_pos / total_pos,
            "gain": 100 * (lift - 1),
            "cumulative_gain": 100 * (cum_lift - 1),
            "kolmogorov_smirnov": cum_pos / total_pos - cum_neg / total_neg,
        }
        for name, value in row.items():
            table[name].append(value)
    fields = {name: np.asarray(values) for name, values in table.items()}
    fields["group"] = np.arange(1, len(cuts) + 1)
    return fields
