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


def test_plot_det_draws_sklearns_curve_on_probit_axes(models, tmp_path):
    from scipy.stats import norm

    y, y_dask, scores, scores_dask = models
    ax = dask_auc.plot_det(y_dask, scores_dask, max_points=None)
    lines = ax.get_lines()
    assert len(lines) == 2 and _legend(ax) == list(scores)
    for line, s in zip(lines, scores.values(), strict=True):
        fpr, fnr, _ = metrics.det_curve(y, s)
        np.testing.assert_allclose(line.get_xdata(), norm.ppf(fpr), rtol=1e-9)
        np.testing.assert_allclose(line.get_ydata(), norm.ppf(fnr), rtol=1e-9)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("False Positive Rate", "False Negative Rate")
    assert [t.get_text() for t in ax.get_xticklabels()][:3] == ["0.1%", "1%", "5%"]
    np.testing.assert_allclose(ax.get_xticks()[4], 0.0, atol=1e-12)  # 50%
    assert ax.get_xlim() == (-3, 3)
    thin = dask_auc.plot_det(y_dask, scores_dask["strong"], name="s", max_points=100)
    assert len(thin.get_lines()[0].get_xdata()) <= 100
    ax.figure.savefig(tmp_path / "det.png")


def test_plot_gains_draws_the_gains_and_lift_of_the_exact_table(models, tmp_path):
    y, y_dask, scores, scores_dask = models
    fig, (left, right) = plt.subplots(1, 2)
    assert dask_auc.plot_gains(y_dask, scores_dask, n_bins=20, ax=left) is left
    dask_auc.plot_gains(y_dask, scores_dask, kind="lift", n_bins=20, ax=right)
    for model, s in scores.items():
        table = dask_auc.gains_table(y, s, n_bins=20)
        share = table["cumulative_data_fraction"].to_numpy()
        (gains,) = [line for line in left.get_lines() if line.get_label() == model]
        np.testing.assert_array_equal(gains.get_xdata(), np.concatenate(([0], share)))
        np.testing.assert_array_equal(
            gains.get_ydata(), np.concatenate(([0], table["cumulative_capture_rate"]))
        )
        (lift,) = [line for line in right.get_lines() if line.get_label() == model]
        np.testing.assert_array_equal(lift.get_ydata(), table["cumulative_lift"])
    assert _legend(left)[-1] == "Baseline (random order)"
    np.testing.assert_array_equal(left.get_lines()[-1].get_xydata(), [[0, 0], [1, 1]])
    np.testing.assert_array_equal(right.get_lines()[-1].get_ydata(), [1, 1])
    fig.savefig(tmp_path / "gains.png")
    with pytest.raises(dask_auc.InvalidParameterError, match="'kind' parameter of plot_gains"):
        dask_auc.plot_gains(y, scores["weak"], kind="roc")
    plt.close("all")
    lazy = dask_auc.plot_gains(y, scores["weak"], compute=False)
    assert isinstance(lazy, dask_auc.LazyScore) and plt.get_fignums() == []
    assert _legend(lazy.compute()) == ["Classifier", "Baseline (random order)"]
