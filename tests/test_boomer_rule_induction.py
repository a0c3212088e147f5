"""BoomerClassifier's rule-induction options of issue 18 (stratified instance sampling): dense = CSR, n_jobs
invariance, pickle, seeding, bad values and scikit-learn's estimator checks."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.boomer import BoomerClassifier

OPTIONS = [dict(instance_sampling="stratified_output_wise"),
           dict(instance_sampling="stratified_example_wise", instance_sample_size=0.5),
           dict(instance_sampling="stratified_output_wise", loss="logistic_example_wise"),
           dict(instance_sampling="subsample", instance_sample_size=0.8)]


def _data(n=150, F=8, K=4, seed=0, nan=0.05):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, F)), 2)
    X[rng.random(X.shape) < 0.3] = 0.0
    Y = ((X @ rng.normal(size=(F, K)) + 0.3 * rng.normal(size=(n, K))) > 0).astype(np.int8)
    X[rng.random(X.shape) < nan] = np.nan
    return X, Y


def _state(c):
    return [getattr(c, a) for a in ("cond_ptr_", "cond_feature_", "cond_threshold_", "cond_op_", "head_ptr_",
                                    "head_label_", "head_score_")]


def _same(a, b):
    assert a.n_rules_ == b.n_rules_
    for x, y in zip(_state(a), _state(b)): np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("kw", OPTIONS)
def test_dense_equals_csr(kw):
    X, Y = _data()
    a = BoomerClassifier(max_rules=30, random_state=3, **kw).fit(X, Y)
    b = BoomerClassifier(max_rules=30, random_state=3, **kw).fit(sp.csr_matrix(X), Y)
    _same(a, b)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(sp.csr_matrix(X)))


@pytest.mark.parametrize("kw", OPTIONS[:3])
def test_n_jobs_invariance_and_seeding(kw):
    X, Y = _data(F=12)
    a = BoomerClassifier(max_rules=30, random_state=5, n_jobs=1, **kw).fit(X, Y)
    b = BoomerClassifier(max_rules=30, random_state=5, n_jobs=2, **kw).fit(X, Y)
    _same(a, b)
    c = BoomerClassifier(max_rules=30, random_state=6, n_jobs=1, **kw).fit(X, Y)
    assert not np.array_equal(a.cond_threshold_, c.cond_threshold_) or a.n_rules_ != c.n_rules_   # the seed matters


@pytest.mark.parametrize("kw", OPTIONS[:2])
def test_pickle_round_trip(kw):
    X, Y = _data()
    a = BoomerClassifier(max_rules=25, random_state=0, **kw).fit(X, Y)
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_stratified_sample_is_what_the_rule_is_grown_on():
    "A one-condition rule's sample: with instance_sample_size=1.0 every example is in it, as with no sampling."
    X, Y = _data()
    full = BoomerClassifier(max_rules=20, random_state=1, instance_sampling=None).fit(X, Y)
    for s in ("stratified_output_wise", "stratified_example_wise"):
        one = BoomerClassifier(max_rules=20, random_state=1, instance_sampling=s, instance_sample_size=1.0).fit(X, Y)
        _same(full, one)


@pytest.mark.parametrize("bad, msg", [(dict(instance_sampling="stratified"), "instance_sampling"),
                                      (dict(instance_sampling="stratified_output_wise", instance_sample_size=0.0), "instance_sample_size"),
                                      (dict(instance_sampling="subsample", instance_sample_size=1.5), "instance_sample_size"),
                                      (dict(instance_sampling="bootstrap", instance_sample_size=0.5), "instance_sample_size"),
                                      (dict(instance_sampling=None, instance_sample_size=0.5), "instance_sample_size")])
def test_bad_values(bad, msg):
    X, Y = _data()
    with pytest.raises(ValueError, match=msg):
        BoomerClassifier(max_rules=5, **bad).fit(X, Y)


@parametrize_with_checks([BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[0]),
                          BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[1])])
def test_sklearn_contract(estimator, check):
    check(estimator)
