"""plot_roc and plot_precision_recall: what is drawn is the package's curve and exact score."""

from __future__ import annotations

import sys

import matplotlib
import numpy as np
import pytest
from sklearn import metrics

import dask_auc
from strategies import dask_array

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture
def models():
    rng = np.random.default_rng(0)
    n = 60_000
    y = (rng.random(n) < 0.3).astype(np.int8)
    noise = rng.normal(size=n)
    strong = y * 1.4 + noise
    weak = np.round(y * 0.6 + rng.normal(size=n), 2)  # ties
    cuts = [0, 20_000, 20_000, 60_000]
    as_dask = {"strong": dask_array(strong, cuts), "weak": dask_array(weak, cuts)}
    return y, dask_array(y, cuts), {"strong": strong, "weak": weak}, as_dask


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _legend(ax):
    return [text.get_text() for text in ax.get_legend().get_texts()]


def test_plot_roc_draws_each_models_bounded_curve_with_its_exact_auc(models, tmp_path):
    y, y_dask, scores, scores_dask = models
    ax = dask_auc.plot_roc(y_dask, scores_dask, max_points=300)
    lines = ax.get_lines()
    assert len(lines) == 3  # two models and the chance diagonal
    for line, s in zip(lines, scores.values(), strict=False):
        fpr, tpr, _ = dask_auc.roc_curve(y, s, max_points=300)
        np.testing.assert_array_equal(line.get_xdata(), fpr)
        np.testing.assert_array_equal(line.get_ydata(), tpr)
        assert len(line.get_xdata()) <= 300
    expected = [f"{n} (AUC = {metrics.roc_auc_score(y, s):.3f})" for n, s in scores.items()]
    assert _legend(ax) == expected + ["Chance level (AUC = 0.5)"]
    np.testing.assert_array_equal(lines[2].get_xydata(), [[0, 0], [1, 1]])
    assert ax.get_xlabel() == "False positive rate"
    assert ax.get_ylabel() == "True positive rate"
    assert ax.get_aspect() == 1.0
    path = tmp_path / "roc.png"
    ax.figure.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_plot_precision_recall_draws_steps_exact_ap_and_the_prevalence_line(models, tmp_path):
    y, y_dask, scores, scores_dask = models
    fig, ax = plt.subplots()
    returned = dask_auc.plot_precision_recall(y_dask, scores_dask, ax=ax, max_points=None)
    assert returned is ax
    for line, s in zip(ax.get_lines(), scores.values(), strict=False):
        precision, recall, _ = metrics.precision_recall_curve(y, s)
        np.testing.assert_allclose(line.get_xdata(), recall, rtol=0, atol=1e-12)
        np.testing.assert_allclose(line.get_ydata(), precision, rtol=0, atol=1e-12)
        assert line.get_drawstyle() == "steps-post"
    prevalence = y.mean()
    expected = [
        f"{n} (AP = {metrics.average_precision_score(y, s):.3f})" for n, s in scores.items()
    ]
    assert _legend(ax) == expected + [f"Chance level (AP = {prevalence:.3f})"]
    chance = ax.get_lines()[-1]
    np.testing.assert_allclose(chance.get_ydata(), [prevalence, prevalence])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Recall", "Precision")
    fig.savefig(tmp_path / "pr.png")


def test_single_model_name_pos_label_and_no_chance_line():
    y = np.array(["no", "yes", "no", "yes", "yes"])
    s = np.array([0.1, 0.9, 0.4, 0.35, 0.8])
    ax = dask_auc.plot_roc(y, s, name="m", pos_label="yes", chance_level=False)
    auc = metrics.roc_auc_score(y == "yes", s)
    assert _legend(ax) == [f"m (AUC = {auc:.3f})"]
    assert ax.get_xlabel() == "False positive rate (Positive label: yes)"


def test_compute_false_draws_when_computed():
    y, s = np.array([0, 1, 0, 1]), np.array([0.1, 0.9, 0.4, 0.35])
    lazy = dask_auc.plot_roc(y, {"a": s}, compute=False)
    assert isinstance(lazy, dask_auc.LazyScore)
    assert plt.get_fignums() == []  # nothing drawn yet
    ax = lazy.compute()
    assert _legend(ax)[0] == "a (AUC = 0.750)"


def test_name_with_a_mapping_and_empty_mapping_raise():
    y, s = np.array([0, 1]), np.array([0.1, 0.9])
    with pytest.raises(ValueError, match="mapping of scores its keys"):
        dask_auc.plot_roc(y, {"a": s}, name="b")
    with pytest.raises(ValueError, match="empty mapping"):
        dask_auc.plot_precision_recall(y, {})


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r'pip install "dask-auc\[plot\]"'):
        dask_auc.plot_roc(np.array([0, 1]), np.array([0.1, 0.9]))
