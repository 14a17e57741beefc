"""The plots: what is drawn is the package's curve and exact score (ROC, PR, DET, gains, CORP)."""

from __future__ import annotations

import sys

import dask
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


# -- the CORP reliability diagram --------------------------------------------------------------


@pytest.fixture
def probabilities():
    """Tied probabilities (3 decimals) of a model that is a little overconfident, 7 chunks."""
    rng = np.random.default_rng(3)
    n = 30_000
    proba = np.round(rng.beta(2, 5, n), 3)
    y = (rng.random(n) < 0.1 + 0.8 * proba).astype(np.int64)
    cuts = np.linspace(0, n, 8).astype(int)
    return y, proba, dask_array(y, cuts), dask_array(proba, cuts)


def _isotonic(y, proba):
    """scikit-learn's isotonic fit at each distinct probability (ties pooled first)."""
    from sklearn.isotonic import IsotonicRegression

    scores, inverse = np.unique(proba, return_inverse=True)
    total = np.bincount(inverse).astype(float)
    share = np.bincount(inverse, weights=y) / total
    return scores, IsotonicRegression().fit(scores, share, sample_weight=total).predict(scores)


def test_plot_reliability_draws_the_isotonic_steps_and_the_decomposition(probabilities, tmp_path):
    from metric_registry import decomposition_reference

    y, proba, y_dask, proba_dask = probabilities
    ax = dask_auc.plot_reliability(y_dask, proba_dask, name="m")
    curve, diagonal = ax.get_lines()
    x, fit = curve.get_xdata(), curve.get_ydata()
    # each step flat over its scores: pairs (lowest, highest score) at one fitted value
    assert np.all(fit[0::2] == fit[1::2]) and np.all(np.diff(x) >= 0)
    scores, expected = _isotonic(y, proba)
    assert x[0] == scores[0] and x[-1] == scores[-1]
    np.testing.assert_allclose(np.interp(scores, x, fit), expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(diagonal.get_xydata(), [[0, 0], [1, 1]])
    parts = decomposition_reference(y.astype(float), proba, None, "brier")
    brier = metrics.brier_score_loss(y, proba)
    assert _legend(ax) == [
        f"m\nBrier {brier:.4f}: MCB {parts['miscalibration']:.4f}, "
        f"DSC {parts['discrimination']:.4f}, UNC {parts['uncertainty']:.4f}",
        "Perfectly calibrated",
        "Score histogram",
    ]
    bars = ax.patches
    assert len(bars) == 20 and max(bar.get_height() for bar in bars) == pytest.approx(0.2)
    assert ax.get_xlabel() == "Predicted probability"
    ax.figure.savefig(tmp_path / "reliability.png")


def test_plot_reliability_histogram_is_the_scores_where_each_step_is_one_score():
    """Exactly calibrated scores at the bins' centres: every score is its own step, so the
    bars (from the steps' weights) are the scores' own histogram, scaled to 0.2."""
    counts = np.array([50, 80, 120, 200, 300, 260, 150, 90, 40, 20])
    proba = np.repeat((np.arange(10) + 0.5) / 10, counts)
    y = np.concatenate([np.arange(c) < round(c * (k + 0.5) / 10) for k, c in enumerate(counts)])
    # the shares are rounded to whole rows, still increasing: no step pools two scores
    assert len(dask_auc.reliability_diagram(y.astype(int), proba).weight) == 10
    ax = dask_auc.plot_reliability(y.astype(int), proba, bins=10)
    heights = np.array([bar.get_height() for bar in ax.patches])
    expected, _ = np.histogram(proba, bins=10, range=(0, 1))
    np.testing.assert_allclose(heights, expected / expected.max() * 0.2, rtol=1e-12)
    np.testing.assert_allclose([bar.get_x() for bar in ax.patches], np.arange(10) / 10, atol=1e-15)


def test_plot_reliability_weighted_histogram_holds_every_row(probabilities):
    """Steps spanning several bins are spread over them: the shares still add up to 1."""
    from dask_auc._plot_reliability import step_histogram

    y, proba, _, _ = probabilities
    weight = np.random.default_rng(4).choice([0.0, 0.5, 2.0], size=len(y))
    diagram = dask_auc.reliability_diagram(y, proba, sample_weight=weight)
    edges, shares = step_histogram(diagram, 7)
    assert len(edges) == 8 and shares.sum() == pytest.approx(1.0, rel=1e-12)
    assert np.all(shares >= 0)
    ax = dask_auc.plot_reliability(y, proba, sample_weight=weight, bins=7)
    heights = [bar.get_height() for bar in ax.patches]
    np.testing.assert_allclose(heights, shares / shares.max() * 0.2, rtol=1e-12)


def test_plot_reliability_is_one_computation_and_lazy(probabilities):
    y, proba, y_dask, proba_dask = probabilities
    runs = []

    def counting_get(graph, keys, **kwargs):
        runs.append(keys)
        return dask.get(graph, keys, **kwargs)

    lazy = dask_auc.plot_reliability(y_dask, proba_dask, compute=False)
    assert isinstance(lazy, dask_auc.LazyScore) and plt.get_fignums() == []
    with dask.config.set(scheduler=counting_get):
        ax = lazy.compute()
    assert len(runs) == 1
    assert _legend(ax)[0].startswith("Classifier\nBrier ")


def test_plot_reliability_of_a_roc_names_its_positive_class(probabilities):
    y, proba, _, _ = probabilities
    labels = np.where(y == 1, "yes", "no")
    curve = dask_auc.roc(labels, proba, pos_label="yes")
    of_roc = dask_auc.plot_reliability(curve, name="m")
    of_arrays = dask_auc.plot_reliability(y, proba, name="m")
    assert _legend(of_roc) == _legend(of_arrays)
    np.testing.assert_array_equal(
        of_roc.get_lines()[0].get_xydata(), of_arrays.get_lines()[0].get_xydata()
    )
    assert of_roc.get_xlabel() == "Predicted probability (Positive label: yes)"


def test_plot_reliability_refuses_what_it_cannot_draw(monkeypatch):
    y, p = np.array([0, 1, 1]), np.array([0.2, 0.6, 0.9])
    with pytest.raises(TypeError, match="draws one model"):
        dask_auc.plot_reliability(y, {"a": p})
    with pytest.raises(ValueError, match="do not pass y_proba"):
        dask_auc.plot_reliability(dask_auc.roc(y, p), p)
    with pytest.raises(TypeError, match="y_proba is required"):
        dask_auc.plot_reliability(y)
    with pytest.raises(dask_auc.InvalidParameterError, match="'bins' parameter of plot_reliab"):
        dask_auc.plot_reliability(y, p, bins=0)
    with pytest.raises(ValueError, match="y_prob contains values greater than 1"):
        dask_auc.plot_reliability(y, p + 0.5)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r'pip install "dask-auc\[plot\]"'):
        dask_auc.plot_reliability(y, p)
