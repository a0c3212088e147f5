"""IREP's update set (`rule_induction_options={'irep_update': ...}`): 'pruned_rule' (the default) updates the scores of
the examples the pruned rule covers, 'last_prefix' those of the examples the grown rule's first n − 1 conditions cover,
as mlrl-boomer 0.15.6 does. Dense = CSR, n_jobs invariance, pickle, what the option may and may not change, bad values."""

import functools
import pickle

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.boomer import BoomerClassifier

from _boomer_fixtures import data as _data, dense_and_csr, one_and_two_jobs, same as _same

LAST = dict(rule_induction_options=dict(irep_update="last_prefix"))
CASES = [
    dict(instance_sampling="subsample", rule_pruning="irep", **LAST),
    dict(instance_sampling="bootstrap", rule_pruning="irep", loss="logistic_example_wise", **LAST),
    dict(instance_sampling="stratified_output_wise", rule_pruning="irep", head="complete", **LAST),
]


@pytest.mark.parametrize("kw", CASES)
def test_dense_equals_csr_and_threads(kw):
    X, Y = _data(F=12)
    make = functools.partial(BoomerClassifier, max_rules=30, random_state=3, **kw)
    dense_and_csr(make, X, Y)
    one_and_two_jobs(make, X, Y)


def test_pickle_round_trip():
    X, Y = _data()
    a = BoomerClassifier(max_rules=25, random_state=0, **CASES[0]).fit(X, Y)
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_what_the_update_set_changes():
    """The first rule and its head are the same either way (the head is always computed on the pruned rule's examples);
    later rules differ, since they start from other training scores. 'pruned_rule' is the default, bit for bit, and
    without a prune set (no instance sampling) there is nothing to prune and both are the plain fit."""
    X, Y = _data(n=300)
    kw = dict(instance_sampling="subsample", rule_pruning="irep", random_state=4)
    _same(BoomerClassifier(max_rules=2, **kw).fit(X, Y), BoomerClassifier(max_rules=2, **kw, **LAST).fit(X, Y))
    ours, ref = BoomerClassifier(max_rules=40, **kw).fit(X, Y), BoomerClassifier(max_rules=40, **kw, **LAST).fit(X, Y)
    assert not np.array_equal(ours.decision_function(X), ref.decision_function(X))
    _same(ours, BoomerClassifier(max_rules=40, rule_induction_options=dict(irep_update="pruned_rule"), **kw).fit(X, Y))
    plain = dict(max_rules=40, random_state=4, instance_sampling=None, rule_pruning="irep")
    _same(BoomerClassifier(**plain).fit(X, Y), BoomerClassifier(**plain, **LAST).fit(X, Y))


@pytest.mark.parametrize(
    "bad, msg",
    [
        (dict(rule_induction_options=dict(irep_update="prefix")), "irep_update"),
        (dict(rule_induction_options=dict(irep_update=None)), "irep_update"),
        (dict(rule_pruning="irep", rule_induction="top_down_beam_search", **LAST), "last_prefix"),
        (
            dict(rule_pruning="irep", rule_induction_options=dict(irep_update="last_prefix", min_coverage=3)),
            "last_prefix",
        ),
    ],
)
def test_bad_values(bad, msg):
    X, Y = _data()
    with pytest.raises(ValueError, match=msg):
        BoomerClassifier(max_rules=5, instance_sampling="subsample", **bad).fit(X, Y)


@pytest.mark.slow  # further configurations' scikit-learn checks (the fast tier checks one per code path)
@parametrize_with_checks([BoomerClassifier(max_rules=10, random_state=0, **CASES[0])])
def test_sklearn_contract(estimator, check):
    check(estimator)
