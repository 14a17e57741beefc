"""The parameters of every binary query, declared once, and one check of them per public call.

``PARAMETERS[name]`` is the table of the public function ``name``; the
:class:`~dask_auc.ROC` method answering the same question checks the entries
of the same table that it takes, under the same name, so that the messages
are the function's.  A public function that checked its parameters calls the
wing inside :func:`checked_once`: the queries it calls do not check those
values again (scikit-learn's ``validate_params(prefer_skip_nested_validation=True)``).

Examples
--------
>>> check_query("ks_statistic", compute=True)
{'compute': True}
>>> with checked_once({"compute": "yes"}):  # checked (and refused) by the caller: not again
...     check_query("ks_statistic", compute="yes")
{'compute': 'yes'}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from .._kernels.binary.operating_point import CRITERIA
from .._params import (
    AtLeast,
    Boolean,
    Constraint,
    Interval,
    Label,
    NonNegativePair,
    Options,
    Range,
    check_params,
)

#: the metrics a bootstrap interval is available for, and the parameters each takes
BOOTSTRAP_METRICS: dict[str, tuple[str, ...]] = {
    "roc_auc": ("max_fpr",),
    "partial_auc": ("fpr_range", "tpr_range", "standardized"),
    "average_precision": (),
    "ks": (),
    "tpr_at_fpr": ("fpr",),
    "fpr_at_tpr": ("tpr",),
}
INTERVALS = ("percentile", "basic", "normal")

_MAX_POINTS = AtLeast(2, why=" (a curve has two end points)")
_RATE = Interval(0, 1, closed="both", none=True)
_MAX_FPR = Interval(0, 1, closed="right", none=True)
_CONFIDENCE_LEVEL = Interval(0, 1, closed="neither")
_CURVE = {
    "pos_label": Label(),
    "drop_intermediate": Boolean(),
    "compute": Boolean(),
    "max_points": _MAX_POINTS,
}
_BOOTSTRAP = {
    "metric": Options(tuple(BOOTSTRAP_METRICS)),
    "n_bootstraps": AtLeast(1, none=False),
    "confidence_level": _CONFIDENCE_LEVEL,
    "interval": Options(INTERVALS),
    "pos_label": Label(),
    "compute": Boolean(),
}

#: every public function of one binary input: its parameters in the order they are checked
PARAMETERS: dict[str, dict[str, Constraint]] = {
    # ``compute`` is ROC.labels': its messages name ``roc``
    "roc": {"pos_label": Label(), "compute": Boolean()},
    "roc_auc_score": {
        "average": Options(("micro", "macro", "samples", "weighted", None)),
        "max_fpr": _MAX_FPR,
        "multi_class": Options(("raise", "ovr", "ovo")),
        "compute": Boolean(),
        "split_every": AtLeast(2),
    },
    "partial_roc_auc_score": {
        "fpr_range": Range(),
        "tpr_range": Range(),
        "standardized": Boolean(),
        "compute": Boolean(),
    },
    "roc_curve": _CURVE,
    "precision_recall_curve": _CURVE,
    "det_curve": _CURVE,
    "confusion_matrix_at_thresholds": {
        "pos_label": Label(),
        "compute": Boolean(),
        "max_points": _MAX_POINTS,
    },
    "average_precision_score": {
        "average": Options(("micro", "samples", "weighted", "macro", None)),
        "pos_label": Label(none=False),
        "compute": Boolean(),
    },
    "ks_statistic": {"pos_label": Label(), "compute": Boolean()},
    "operating_point": {
        "fpr": _RATE,
        "tpr": _RATE,
        "precision": _RATE,
        "recall": _RATE,
        "threshold": Interval(-np.inf, np.inf, none=True),
        "criterion": Options((*CRITERIA, None)),
        "cost": NonNegativePair(names="(cost_fp, cost_fn)"),
        "pos_label": Label(),
        "compute": Boolean(),
    },
    "gains_table": {"n_bins": AtLeast(1, none=False), "pos_label": Label(), "compute": Boolean()},
    "roc_auc_ci": {
        "confidence_level": _CONFIDENCE_LEVEL,
        "method": Options(("delong", "bootstrap")),
        "compute": Boolean(),
        "split_every": AtLeast(2),
        # the bootstrap's, checked by the interval of method="bootstrap"
        **{name: _BOOTSTRAP[name] for name in ("metric", "n_bootstraps", "interval")},
    },
    "bootstrap_ci": _BOOTSTRAP,
    "bootstrap_test": _BOOTSTRAP,
    "mannwhitneyu": {
        "use_continuity": Boolean(),
        "alternative": Options(("two-sided", "less", "greater")),
        "method": Options(("auto", "asymptotic", "exact")),
        "nan_policy": Options(("propagate", "omit", "raise")),
        "compute": Boolean(),
    },
}

#: the parameters of a bootstrap metric (``bootstrap_ci(metric=..., **params)``)
METRIC_PARAMETERS: dict[str, Constraint] = {
    "max_fpr": _MAX_FPR,
    "fpr_range": Range(),
    "tpr_range": Range(),
    "standardized": Boolean(),
    "fpr": _RATE,
    "tpr": _RATE,
}

#: the values a caller up the stack has checked already, by parameter name
_CHECKED: ContextVar[Mapping[str, Any] | None] = ContextVar("dask_auc_checked", default=None)


@contextmanager
def checked_once(checked: Mapping[str, Any]) -> Iterator[None]:
    """The queries called inside do not check again these values, checked by their caller.

    A value is skipped only where it is the very object that was checked: a
    query given another value of the same name checks it.
    """
    token = _CHECKED.set({**(_CHECKED.get() or {}), **checked})
    try:
        yield
    finally:
        _CHECKED.reset(token)


def check_query(name: str, **values: Any) -> dict[str, Any]:
    """Check ``values`` against ``PARAMETERS[name]`` (in its order), but those checked already.

    Returns the values, converted by their constraints.
    """
    table, checked = PARAMETERS[name], _CHECKED.get() or {}
    asked = {key: table[key] for key in table if key in values}
    if len(asked) != len(values):  # a programming error: a parameter with no constraint
        raise KeyError(f"{name} declares no {sorted(set(values) - set(asked))}")
    unchecked = {
        key: constraint
        for key, constraint in asked.items()
        if key not in checked or checked[key] is not values[key]
    }
    return {**values, **check_params(name, unchecked, **values)}
