"""Scorers (issue 32): scikit-learn's searches and dask-ml's wrappers, scored on scores, not labels.

References: scikit-learn's own scorers of the same names on NumPy folds, and the metric of
the estimator's own probabilities.  dask-ml is a test dependency: its real ParallelPostFit
and GridSearchCV, no mock.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.svm import LinearSVC

import dask_auc

NAMES = ("roc_auc", "average_precision", "neg_log_loss", "neg_brier_score")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] + 0.8 * rng.normal(size=600) > 0.3).astype(int)
    return X, y


@pytest.mark.parametrize("name", NAMES)
def test_cross_validation_scores_equal_scikit_learns_scorers(data, name):
    X, y = data
    ours = cross_val_score(LogisticRegression(), X, y, cv=3, scoring=dask_auc.get_scorer(name))
    theirs = cross_val_score(LogisticRegression(), X, y, cv=3, scoring=name)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_grid_search_picks_as_scikit_learn_does(data):
    X, y = data
    grid = {"C": [1e-4, 1e-2, 1.0]}
    ours = GridSearchCV(LogisticRegression(), grid, cv=3, scoring=dask_auc.get_scorer("roc_auc"))
    theirs = GridSearchCV(LogisticRegression(), grid, cv=3, scoring="roc_auc")
    ours.fit(X, y), theirs.fit(X, y)
    assert ours.best_params_ == theirs.best_params_
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], rtol=1e-12
    )


def test_decision_function_and_string_classes(data):
    X, y = data
    labels = np.where(y == 1, "click", "skip")  # classes_ == ['click', 'skip']: skip is [1]
    model = LinearSVC().fit(X, labels)
    expected = skm.roc_auc_score(labels == "skip", model.decision_function(X))
    assert dask_auc.get_scorer("roc_auc")(model, X, labels) == pytest.approx(expected, rel=1e-12)
    as_click = dask_auc.make_scorer(dask_auc.average_precision_score, pos_label="click")
    expected = skm.average_precision_score(labels, -model.decision_function(X), pos_label="click")
    assert as_click(model, X, labels) == pytest.approx(expected, rel=1e-12)


def test_dask_ml_parallel_post_fit_is_scored_on_its_dask_probabilities(data):
    wrappers = pytest.importorskip("dask_ml.wrappers")
    X, y = data
    model = wrappers.ParallelPostFit(LogisticRegression()).fit(X, y)
    dX, dy = da.from_array(X, chunks=150), da.from_array(y, chunks=150)
    probabilities = model.estimator.predict_proba(X)[:, 1]
    scorer = dask_auc.get_scorer("roc_auc")
    assert scorer(model, dX, dy) == dask_auc.roc_auc_score(y, probabilities)  # exact, both
    assert scorer(model, dX, dy) == pytest.approx(skm.roc_auc_score(y, probabilities), rel=1e-12)
    # ParallelPostFit.score on dask collections wraps a scoring callable as a metric of
    # predict()'s labels: a bare metric there scores the hard labels -- another number --
    labels_auc = skm.roc_auc_score(y, model.estimator.predict(X))
    bare = wrappers.ParallelPostFit(LogisticRegression(), scoring=dask_auc.roc_auc_score)
    assert bare.fit(X, y).score(dX, dy) == labels_auc != scorer(model, dX, dy)
    # and a dask-auc scorer there refuses, saying what to call instead
    wrapped = wrappers.ParallelPostFit(LogisticRegression(), scoring=scorer).fit(X, y)
    with pytest.raises(TypeError, match=r"call the scorer itself instead"):
        wrapped.score(dX, dy)


def test_dask_ml_grid_search_with_dask_auc_scorers(data):
    model_selection = pytest.importorskip("dask_ml.model_selection")
    X, y = data
    grid = {"C": [1e-4, 1.0]}
    scorer = dask_auc.get_scorer("neg_log_loss")
    search = model_selection.GridSearchCV(LogisticRegression(), grid, cv=3, scoring=scorer)
    search.fit(da.from_array(X, chunks=200), da.from_array(y, chunks=200))
    theirs = GridSearchCV(LogisticRegression(), grid, cv=3, scoring="neg_log_loss").fit(X, y)
    assert search.best_params_ == theirs.best_params_
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], rtol=1e-9
    )


def test_errors_name_the_problem(data):
    X, y = data

    class LabelsOnly:
        classes_ = np.array([0, 1])

        def predict(self, X):
            return np.zeros(len(X), int)

    with pytest.raises(TypeError, match="needs scores, not predicted labels"):
        dask_auc.get_scorer("roc_auc")(LabelsOnly(), X, y)
    with pytest.raises(ValueError, match="not a scorer of dask-auc"):
        dask_auc.get_scorer("accuracy")
    with pytest.raises(ValueError, match="scores, not the labels of predict"):
        dask_auc.make_scorer(dask_auc.roc_auc_score, response_method="predict")
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="not one of the estimator's classes"):
        dask_auc.make_scorer(dask_auc.average_precision_score, pos_label=7)(model, X, y)
