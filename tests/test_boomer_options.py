"""BoomerClassifier's hold-out, pruning, time-limit, default-rule, calibration and predictor options
(mlc_lit.pruning, mlc_lit.calibration): dense = CSR, n_jobs invariance, pickle, scikit-learn's estimator checks."""

import functools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.boomer import BoomerClassifier

from _boomer_fixtures import data as _data, dense_and_csr, one_and_two_jobs, same as _same

OPTIONS = [
    dict(holdout="random", global_pruning="pre_pruning", pruning_options=dict(min_rules=5, num_past=3, num_recent=3)),
    dict(
        holdout="stratified_output_wise", global_pruning="post_pruning", pruning_options=dict(min_rules=3, interval=2)
    ),
    dict(
        holdout="stratified_example_wise",
        marginal_calibration="isotonic",
        joint_calibration="isotonic",
        predictor="gfm",
    ),
    dict(holdout="random", marginal_calibration="isotonic", based_on_probabilities=True, calibrate_on_holdout=False),
    dict(loss="logistic_example_wise", based_on_probabilities=True, joint_calibration="isotonic"),
    dict(loss="logistic_example_wise", probability_predictor="marginalized", marginal_calibration="isotonic"),
    dict(global_pruning="post_pruning", pruning_options=dict(min_rules=2, use_holdout_set=False)),
    dict(default_rule=False, predictor="gfm", loss="squared_error_label_wise"),
]


@pytest.mark.parametrize("kw", OPTIONS)
def test_dense_equals_csr(kw):
    X, Y = _data()
    a, b = dense_and_csr(functools.partial(BoomerClassifier, max_rules=30, random_state=3, **kw), X, Y)
    np.testing.assert_array_equal(a.predict(X), b.predict(sp.csr_matrix(X)))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(sp.csr_matrix(X)))


@pytest.mark.parametrize("kw", OPTIONS[:3] + OPTIONS[5:6])
def test_n_jobs_invariance(kw):
    X, Y = _data(F=12)
    a, b = one_and_two_jobs(functools.partial(BoomerClassifier, max_rules=30, random_state=5, **kw), X, Y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("kw", OPTIONS)
def test_pickle_round_trip(kw):
    X, Y = _data()
    a = BoomerClassifier(max_rules=25, random_state=0, **kw).fit(X, Y)
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_pruning_and_holdout_change_the_model_only_when_asked():
    X, Y = _data()
    base = BoomerClassifier(max_rules=40, random_state=2).fit(X, Y)
    never = BoomerClassifier(
        max_rules=40,
        random_state=2,
        global_pruning="post_pruning",
        pruning_options=dict(min_rules=10_000, use_holdout_set=False),
    ).fit(X, Y)
    _same(base, never)  # post-pruning that cannot cut leaves the model as it was
    assert base.holdout_size_ == 0 and base.marginal_calibration_ is None and base.holdout_losses_ is None
    held = BoomerClassifier(max_rules=40, random_state=2, holdout="random").fit(X, Y)
    assert held.holdout_size_ == round(0.33 * len(X))


@pytest.mark.parametrize(
    "bad, msg",
    [
        (dict(pruning_options=dict(num_past=0)), "num_past"),
        (dict(pruning_options=dict(aggregation="median")), "aggregation"),
        (dict(holdout_size=1.0), "holdout_size"),
        (dict(time_limit=0), "time_limit"),
        (dict(predictor="f1"), "predictor"),
        (dict(joint_calibration="platt"), "joint_calibration"),
    ],
)
def test_bad_options(bad, msg):
    X, Y = _data()
    with pytest.raises(ValueError, match=msg):
        BoomerClassifier(max_rules=5, global_pruning="pre_pruning", **bad).fit(X, Y)


def _by_design(est):
    "Checks that compare predict with sign(decision_function) or argmax(predict_proba), which these predictors do not follow."
    why = {}
    if est.predictor == "gfm":
        why = dict.fromkeys(
            ["check_classifier_multioutput", "check_classifiers_train"],
            "the GFM predicts the label vector of highest expected F1, not sign(decision_function)",
        )
    if est.probability_predictor == "marginalized":
        why = dict.fromkeys(
            ["check_classifier_multioutput", "check_classifiers_train"],
            "marginalised probabilities need not agree with the score-based predict",
        )
    return why


@parametrize_with_checks(
    [
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[0]),
    ],
    expected_failed_checks=lambda est: _by_design(est),
)
def test_sklearn_contract(estimator, check):
    check(estimator)


@pytest.mark.slow  # further configurations' scikit-learn checks (the fast tier checks one per code path)
@parametrize_with_checks(
    [
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[2]),
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[5]),
        BoomerClassifier(max_rules=40, random_state=0, time_limit=60.0, default_rule=False),
    ],
    expected_failed_checks=lambda est: _by_design(est),
)
def test_sklearn_contract_more(estimator, check):
    check(estimator)
