"""dask-auc: exact ROC AUC and ranking metrics on Dask collections.

Examples
--------
>>> import numpy as np, dask_auc
>>> dask_auc.roc_auc_score(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
0.75
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ._auc import auc
from ._calibration import brier_score_loss, log_loss, normalized_entropy
from ._compare import compare
from ._curves import (
    KSStatistic,
    average_precision_score,
    ks_statistic,
    precision_recall_curve,
    roc_curve,
)
from ._engine import LazyScore, compute
from ._grouped import GroupedAUC, grouped_roc_auc_score
from ._kernels.core.summary import PartialROC, TieGroup, merge_adjacent
from ._kernels.core.validation import InvalidParameterError, UndefinedMetricWarning
from ._label_ranking import (
    coverage_error,
    dcg_score,
    label_ranking_average_precision_score,
    label_ranking_loss,
    ndcg_score,
)
from ._metric_at_thresholds import ConfusionMetric, confusion_metric, metric_at_thresholds
from ._ranking import partial_roc_auc_score, roc_auc_score
from ._reliability import reliability_diagram
from ._roc import (
    ROC,
    AUCInterval,
    BootstrapInterval,
    BootstrapTest,
    DeLongTest,
    MannwhitneyuResult,
    ReliabilityDiagram,
    ScoreDecomposition,
    bootstrap_ci,
    bootstrap_counts,
    bootstrap_test,
    delong_test,
    mannwhitneyu,
    roc,
    roc_auc_ci,
)
from ._scorers import get_scorer, make_scorer
from ._states import AUCBounds, KSBounds, ROCState, roc_auc_bounds, roc_state
from ._thresholds import (
    OperatingPoint,
    confusion_matrix_at_thresholds,
    det_curve,
    gains_table,
    operating_point,
)
from ._top_k import top_k_accuracy_score
from ._training.staged import roc_auc_by_iteration
from ._training.xgb import XGBoostAUC
from .plotting import (
    plot_det,
    plot_gains,
    plot_precision_recall,
    plot_reliability,
    plot_roc,
)

try:
    __version__ = version("dask-auc")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

__all__ = [
    "AUCBounds",
    "AUCInterval",
    "BootstrapInterval",
    "BootstrapTest",
    "ConfusionMetric",
    "DeLongTest",
    "GroupedAUC",
    "InvalidParameterError",
    "KSBounds",
    "KSStatistic",
    "LazyScore",
    "MannwhitneyuResult",
    "OperatingPoint",
    "PartialROC",
    "ROC",
    "ROCState",
    "ReliabilityDiagram",
    "ScoreDecomposition",
    "TieGroup",
    "UndefinedMetricWarning",
    "XGBoostAUC",
    "__version__",
    "auc",
    "average_precision_score",
    "bootstrap_ci",
    "bootstrap_counts",
    "bootstrap_test",
    "brier_score_loss",
    "compare",
    "compute",
    "confusion_matrix_at_thresholds",
    "confusion_metric",
    "coverage_error",
    "dcg_score",
    "delong_test",
    "det_curve",
    "gains_table",
    "get_scorer",
    "grouped_roc_auc_score",
    "ks_statistic",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "log_loss",
    "make_scorer",
    "mannwhitneyu",
    "merge_adjacent",
    "metric_at_thresholds",
    "ndcg_score",
    "normalized_entropy",
    "operating_point",
    "partial_roc_auc_score",
    "plot_det",
    "plot_gains",
    "plot_precision_recall",
    "plot_reliability",
    "plot_roc",
    "precision_recall_curve",
    "reliability_diagram",
    "roc",
    "roc_auc_bounds",
    "roc_auc_by_iteration",
    "roc_auc_ci",
    "roc_auc_score",
    "roc_curve",
    "roc_state",
    "top_k_accuracy_score",
]


def __dir__() -> list[str]:
    return __all__
