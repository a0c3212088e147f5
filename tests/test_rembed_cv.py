"""Tests of mlc_lit.rembed.RandomizedEmbeddingCV that notebooks express badly: scikit-learn's estimator
checks (with a tiny n_iter), the default search space, and the search inside scikit-learn's own tools."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.rembed import (
    RandomizedEmbeddingClassifier,
    RandomizedEmbeddingCV,
    default_search_space,
    make_sparse_problem,
)

SMALL = {"n_random_features": [20, 40], "l2": [0.01, 1.0], "bandwidth": [1.0, 2.0]}


@parametrize_with_checks([RandomizedEmbeddingCV(SMALL, n_iter=2, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.slow  # further configurations' scikit-learn checks (the fast tier checks one per code path)
@parametrize_with_checks(
    [
        RandomizedEmbeddingCV(
            {"loss": ["squared", "logistic"], "kernel": ["cauchy", "student"]},
            n_iter=2,
            scoring="hamming",
            fixed_params={"n_random_features": 30, "max_iter": 20},
            random_state=0,
        ),
    ]
)
def test_sklearn_compatible_more(estimator, check):
    check(estimator)


def test_default_space_draws_valid_parameters():
    X, Y = make_sparse_problem(200, d=100, c=6, n_topics=5, seed=2)
    s = RandomizedEmbeddingCV(n_iter=3, scoring="macro_f1", fixed_params={"max_iter": 20}, random_state=0).fit(X, Y)
    assert set(s.best_params_) == set(default_search_space("macro_f1"))
    assert all(p["rank"] == "spectral90" or p["rank"] <= 6 for p in s.cv_results_["params"])  # capped at 6 labels
    assert isinstance(s.best_estimator_, RandomizedEmbeddingClassifier)


def test_unfitted_clone_and_outer_cross_validation():
    X, Y = make_sparse_problem(200, d=100, c=8, n_topics=5, seed=3)
    s = RandomizedEmbeddingCV(SMALL, n_iter=2, random_state=0)
    assert clone(s).get_params() == s.get_params()
    scores = cross_val_score(s, X, Y.toarray(), cv=2, scoring="f1_micro")
    assert scores.shape == (2,) and np.all((scores >= 0) & (scores <= 1))


@pytest.mark.parametrize(
    "bad, phrase",
    [
        ({"n_iter": 0}, "n_iter"),
        ({"validation_fraction": 1.0}, "validation_fraction"),
        ({"time_budget": -1}, "time_budget"),
        ({"time_budget": "fast"}, "time_budget"),
        ({"cv": 1}, "cv"),
        ({"fixed_params": {"depth": 2}}, "'depth' is not a searchable parameter"),
        ({"fixed_params": {"l2": 1.0}}, "both searched"),
    ],
)
def test_bad_parameters(bad, phrase):
    X, Y = make_sparse_problem(60, d=50, c=5, n_topics=4, seed=4)
    with pytest.raises(ValueError, match=phrase):
        RandomizedEmbeddingCV(SMALL, **bad).fit(X, Y)


def test_budget_skips_what_cannot_finish_and_says_so():
    X, Y = make_sparse_problem(300, d=200, c=20, n_topics=10, seed=1)
    space = {"n_random_features": [20, 40, 8000], "l2": [0.1, 1.0]}  # 8,000 features: an 8000 x 8000 Cholesky each
    kw = dict(n_iter=6, strategy="random", validation_fraction=0.7, random_state=0)
    with pytest.warns(UserWarning, match="candidates skipped"):
        s = RandomizedEmbeddingCV(space, time_budget=0.5, **kw).fit(X, Y)
    assert s.n_candidates_ + len(s.skipped_) == 6 and s.time_budget_ == 0.5
    assert {p["params"]["l2"] for p in s.skipped_ if p["params"]["n_random_features"] == 8000} == {0.1, 1.0}
    assert all(set(p) == {"params", "projected_s", "refit_s", "left_s"} for p in s.skipped_)
    assert RandomizedEmbeddingCV(time_budget="auto").get_params()["time_budget"] == "auto"
    assert RandomizedEmbeddingCV().time_budget == "auto"  # never unbounded by default
