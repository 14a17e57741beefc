"""The binary wing: one binary input sorted once, every binary question a query on it.

This package is the wing's door: the public faces import from
``dask_auc._roc``, never from its modules.

- :mod:`.sort`: the sort of one binary input (:class:`~.sort.BinarySort`) and
  what the curve queries share (:class:`~.sort.CurveSort`);
- :mod:`.object`: the :class:`~dask_auc.ROC` object and :func:`~dask_auc.roc`;
- :mod:`.registry`: every binary query declared once (:mod:`.declarations`
  says what an entry holds), and :func:`~.registry.ask`, which answers one;
- :mod:`.queries`: the queries' plans, each question of the ROC made into tasks;
- :mod:`.params`: the constraints and the one check of the parameters per call;
- :mod:`.labels`, :mod:`.finish`: scikit-learn's label rules and the queries' finishes;
- :mod:`.reliability`: the CORP reliability diagram's plan and finish;
- :mod:`.results`: the result types;
- :mod:`.replicates`, :mod:`.replicate_metrics`, :mod:`.bootstrap`: the
  bootstrap's sort, its replicates' metrics and intervals, its public functions;
- :mod:`.delong`: DeLong's interval, covariance of k AUCs and paired test;
  :mod:`.mannwhitney`: the U test.
"""

from .bootstrap import bootstrap_ci, bootstrap_counts, bootstrap_test, grouped_interval
from .declarations import BinaryQuery, Replicated
from .delong import DeLongCovariance, TracedModels, delong_covariance, delong_test, roc_auc_ci
from .finish import defined_auc
from .mannwhitney import mannwhitneyu
from .object import ROC, answer, roc, roc_auc
from .params import PARAMETERS, check_query, checked_once
from .registry import BOOTSTRAP_METRICS, BY_METHOD, QUERIES
from .results import (
    AUCInterval,
    BootstrapInterval,
    BootstrapTest,
    DeLongTest,
    KSStatistic,
    MannwhitneyuResult,
    OperatingPoint,
    ReliabilityDiagram,
    ScoreDecomposition,
)
from .sort import partial_area_key

__all__ = [
    "BOOTSTRAP_METRICS",
    "BY_METHOD",
    "BinaryQuery",
    "PARAMETERS",
    "QUERIES",
    "Replicated",
    "ROC",
    "answer",
    "AUCInterval",
    "BootstrapInterval",
    "BootstrapTest",
    "DeLongCovariance",
    "DeLongTest",
    "KSStatistic",
    "MannwhitneyuResult",
    "OperatingPoint",
    "ReliabilityDiagram",
    "ScoreDecomposition",
    "TracedModels",
    "bootstrap_ci",
    "bootstrap_counts",
    "bootstrap_test",
    "check_query",
    "checked_once",
    "defined_auc",
    "delong_covariance",
    "delong_test",
    "grouped_interval",
    "mannwhitneyu",
    "partial_area_key",
    "roc",
    "roc_auc",
    "roc_auc_ci",
]
