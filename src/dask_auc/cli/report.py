"""The report of ``dask-auc``: its fields (printed as they are by ``--json``) and its text.

Examples
--------
>>> import numpy as np
>>> plain(np.float32(0.5)), plain("clicked")
(0.5, 'clicked')
>>> _score_text(2 / 3), _score_text(np.int64(7))
('0.6666666667', '7')
>>> _signed(0.25), _signed(float("nan"))
('+0.2500000000', '(baseline)')
"""

from __future__ import annotations

import argparse
import numbers
from typing import Any

import pandas as pd

from .. import GroupedAUC, OperatingPoint, ReliabilityDiagram
from .metrics import GROUP_CALIBRATION
from .parser import PROG

#: how the text names each rate target of ``--threshold-at``
_RATE_RULES = {"fpr": "FPR <=", "tpr": "TPR >=", "precision": "precision >=", "recall": "recall >="}
#: the gains table's columns the text prints (--json has them all)
_GAINS_SHOWN = (
    "lower_threshold",
    "rows",
    "positives",
    "response_rate",
    "lift",
    "cumulative_lift",
    "cumulative_capture_rate",
    "cumulative_gain",
    "kolmogorov_smirnov",
)
#: the quantiles a report gives of a per-group column
_QUANTILES = (("min", 0.0), ("25%", 0.25), ("median", 0.5), ("75%", 0.75), ("max", 1.0))


def plain(value: Any) -> Any:
    """A NumPy scalar as the Python value JSON can hold."""
    return value.item() if hasattr(value, "item") else value


def build_report(
    counts: dict[str, Any],
    metrics: dict[str, Any],
    classes: list[Any],
    args: argparse.Namespace,
    kind: str,
    partitions: int,
    ran_on: str,
    seconds: float,
) -> dict[str, Any]:
    """The report's fields, from the computed label ``counts`` and ``metrics``."""
    negative, positive = classes
    rows = counts["rows"]
    report: dict[str, Any] = {
        "paths": list(args.paths),
        "format": kind,
        "partitions": partitions,
        "label": args.label,
        "score": args.score,
        "weight": args.weight,
        "pos_label": args.pos_label,
        "positive_class": plain(positive),
        "negative_class": plain(negative),
        "rows": int(rows.sum()),
        "positives": int(rows[positive]),
        "negatives": int(rows[negative]),
    }
    if "weights" in counts:
        report["positive_weight"] = float(counts["weights"][positive])
        report["negative_weight"] = float(counts["weights"][negative])
    report["roc_auc"] = metrics["roc_auc"]
    if args.max_fpr is not None:
        report["max_fpr"] = args.max_fpr
        report["partial_auc"] = metrics["partial_auc"]
    report["average_precision"] = metrics["average_precision"]
    report["gini"] = 2 * metrics["roc_auc"] - 1
    report["ks"] = metrics["ks"].statistic
    report["ks_threshold"] = plain(metrics["ks"].threshold)
    points = [
        _point_report(name, point)
        for name, point in metrics.items()
        if name.startswith(("threshold_at:", "best:"))
    ]
    if points:
        report["operating_points"] = points
    if args.calibration:
        for name in ("log_loss", "brier_score", "normalized_entropy"):
            report[name] = metrics[name]
        report["reliability"] = _reliability_report(metrics["reliability"])
    if "gains" in metrics:
        table = metrics["gains"].reset_index()
        report["gains"] = [
            {column: plain(value) for column, value in row.items()}
            for row in table.to_dict(orient="records")
        ]
    if args.by is not None:
        report.update(_group_summary(metrics["grouped"], args.by, args.weight))
    report["seconds"] = round(seconds, 3)
    report["ran_on"] = ran_on
    return report


def _point_report(name: str, point: OperatingPoint) -> dict[str, Any]:
    """One operating point: its target (``fpr=0.01``, ``best=youden``) and its fields."""
    kind, _, target = name.partition(":")
    shown = f"best={target}" if kind == "best" else target
    return {"target": shown, **{field: plain(value) for field, value in point._asdict().items()}}


def _reliability_report(diagram: ReliabilityDiagram) -> dict[str, Any]:
    """The CORP decompositions (``score = miscalibration - discrimination + uncertainty``)."""
    return {
        "brier": {part: plain(value) for part, value in diagram.brier._asdict().items()},
        "log_score": {part: plain(value) for part, value in diagram.log_score._asdict().items()},
        "mean_score": plain(diagram.mean_score),
        "mean_outcome": plain(diagram.mean_outcome),
        "steps": len(diagram.recalibrated),
    }


def _quantiles(values: pd.Series) -> dict[str, float]:
    return {
        name: float(values.quantile(q)) if len(values) else float("nan") for name, q in _QUANTILES
    }


def _group_calibration(grouped: GroupedAUC) -> dict[str, Any]:
    """The calibration of the rows with a group, and quantiles of the per-group columns."""
    table = grouped.per_group
    return {
        "calibration": grouped.overall["calibration"],
        "group_quantiles": {
            name: _quantiles(table[name].dropna()) for name in GROUP_CALIBRATION if name in table
        },
    }


def _group_summary(grouped: GroupedAUC, by: str, weight: str | None) -> dict[str, Any]:
    auc = grouped.per_group["auc"].dropna()
    calibration = {"group_calibration": _group_calibration(grouped)} if grouped.overall else {}
    return {
        "by": by,
        "gauc": grouped.gauc,
        # gauc_weight="rows" weighs a group by its rows, or with sample weights by their sum
        "gauc_weight": "rows" if weight is None else "sample_weight",
        "groups": len(grouped.per_group),
        "groups_with_both_classes": len(auc),
        # left out of every group: a missing (NaN, empty) key
        "rows_without_group": grouped.rows_without_group,
        "group_auc_quantiles": _quantiles(auc),
        **calibration,
    }


def text_report(report: dict[str, Any]) -> str:
    """The report as aligned ``name  value`` lines (and the gains table, if asked)."""
    rows = [
        ("rows", f"{report['rows']:,}"),
        (f"positives (label {report['positive_class']!r})", f"{report['positives']:,}"),
        (f"negatives (label {report['negative_class']!r})", f"{report['negatives']:,}"),
    ]
    if "positive_weight" in report:
        rows.append(("positive weight", f"{report['positive_weight']:,.6g}"))
        rows.append(("negative weight", f"{report['negative_weight']:,.6g}"))
    rows.append(("ROC AUC", f"{report['roc_auc']:.10f}"))
    if "partial_auc" in report:
        name = f"partial AUC (max_fpr={report['max_fpr']:g})"
        rows.append((name, f"{report['partial_auc']:.10f}"))
    rows.append(("average precision", f"{report['average_precision']:.10f}"))
    rows.append(("Gini (2 AUC - 1)", f"{report['gini']:.10f}"))
    ks_at = _score_text(report["ks_threshold"])
    rows.append(("KS statistic", f"{report['ks']:.10f} (at score >= {ks_at})"))
    for point in report.get("operating_points", []):
        rows.append(_point_line(point))
    if "log_loss" in report:
        rows.append(("log loss", f"{report['log_loss']:.10f}"))
        rows.append(("Brier score", f"{report['brier_score']:.10f}"))
        rows.append(("normalized entropy", f"{report['normalized_entropy']:.10f}"))
    if "reliability" in report:
        rows.extend(_reliability_lines(report["reliability"]))
    if "gauc" in report:
        rows.extend(_group_lines(report))
    rows.append(("time", f"{report['seconds']:.2f} s on {report['ran_on']}"))
    width = max(len(name) for name, _ in rows) + 2
    title = f"{PROG}: {' '.join(report['paths'])}"
    title += f" ({report['format']}, {report['partitions']} partitions)"
    text = "\n".join([title] + [f"  {n:<{width}}{v}" for n, v in rows])
    if "gains" in report:
        table = pd.DataFrame(report["gains"]).set_index("group")[list(_GAINS_SHOWN)]
        text += f"\n\ngains table ({len(table)} bins, ties never split)\n"
        text += table.to_string(float_format=lambda v: f"{v:.4f}")
    return text


def comparison_report(table: pd.DataFrame) -> dict[str, Any]:
    """The fields of :func:`dask_auc.compare`'s table: one row per model, NaN as null."""
    rows = [
        {"model": model, **{k: None if v != v else plain(v) for k, v in row.items()}}
        for model, row in table.to_dict(orient="index").items()
    ]
    return {**table.attrs, "models": rows}


def models_text(report: dict[str, Any]) -> str:
    """Each model's text report, then their paired comparison against the first."""
    comparison = report["comparison"]
    test = {"delong": "DeLong's paired test", "bootstrap": "the paired bootstrap"}
    level = f"{comparison['confidence_level']:.0%}"
    table = pd.DataFrame(comparison["models"]).set_index("model")
    shown = pd.DataFrame(
        {
            "ROC AUC": table["roc_auc"].map(lambda v: f"{v:.10f}"),
            "difference": table["difference"].map(_signed),
            f"{level} interval": [
                "" if low is None or low != low else f"[{low:+.6f}, {high:+.6f}]"
                for low, high in zip(table["low"], table["high"], strict=True)
            ],
            "p-value": table["p_value"].map(lambda v: "" if v is None or v != v else f"{v:.4g}"),
        }
    )
    title = (
        f"models compared with {comparison['baseline']!r} ({test[comparison['test']]} of the "
        "ROC AUC, the same rows)"
    )
    parts = [f"model {model['score']!r}\n{text_report(model)}" for model in report["models"]]
    return "\n\n".join([*parts, f"{title}\n{shown.to_string()}"])


def _signed(value: Any) -> str:
    return "(baseline)" if value is None or value != value else f"{value:+.10f}"


def _group_lines(report: dict[str, Any]) -> list[tuple[str, str]]:
    """The grouped AUC's lines of the text (``--by``)."""
    weighting = "rows" if report["gauc_weight"] == "rows" else f"summed {report['weight']!r}"
    quantiles = report["group_auc_quantiles"]
    lines = [
        (f"groups ({report['by']})", f"{report['groups']:,}"),
        ("  with both classes", f"{report['groups_with_both_classes']:,}"),
        ("  rows without a group (no key)", f"{report['rows_without_group']:,}"),
        (f"  GAUC (groups weighted by {weighting})", f"{report['gauc']:.10f}"),
        ("  group AUC", "  ".join(f"{name} {value:.4f}" for name, value in quantiles.items())),
    ]
    if "group_calibration" in report:
        calibration = report["group_calibration"]
        lines.append(("  calibration (sum p / sum y)", f"{calibration['calibration']:.10f}"))
        for name, quantiles in calibration["group_quantiles"].items():
            shown = "  ".join(f"{q} {value:.4f}" for q, value in quantiles.items())
            lines.append((f"  group {name.replace('_', ' ')}", shown))
    return lines


def _reliability_lines(reliability: dict[str, Any]) -> list[tuple[str, str]]:
    """``CORP Brier score  0.1663601223 (MCB ..., DSC ..., UNC ...)``, and the log score's."""
    lines = []
    for key, name in (("brier", "CORP Brier score"), ("log_score", "CORP log score")):
        parts = reliability[key]
        lines.append(
            (
                name,
                f"{parts['score']:.10f} (MCB {parts['miscalibration']:.10f}, "
                f"DSC {parts['discrimination']:.10f}, UNC {parts['uncertainty']:.10f})",
            )
        )
    return lines


def _point_line(point: dict[str, Any]) -> tuple[str, str]:
    """``threshold at FPR <= 0.01    0.8123  (TPR 0.41, FPR 0.0099, precision 0.62, F1 0.5)``."""
    target = point["target"]
    if target.startswith("best="):
        name = f"best threshold ({target.removeprefix('best=')})"
    else:
        rate, _, value = target.partition("=")
        name = f"threshold at {_RATE_RULES[rate]} {value}"
    rates = (
        f"TPR {point['tpr']:.4f}, FPR {point['fpr']:.4f}, "
        f"precision {point['precision']:.4f}, F1 {point['f1']:.4f}"
    )
    return name, f"{_score_text(point['threshold'])}  ({rates})"


def _score_text(score: Any) -> str:
    """A threshold as the text report shows it: 10 significant digits (integers whole)."""
    return str(score) if isinstance(score, numbers.Integral) else f"{score:.10g}"
