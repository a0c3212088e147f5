"""BoomerClassifier's rule-induction options (stratified instance sampling, IREP rule pruning,
sequential post-optimization): dense = CSR,
n_jobs invariance, pickle, seeding, bad values, no new kernel on default fits and scikit-learn's estimator checks."""

import functools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.boomer import BoomerClassifier

from _boomer_fixtures import data as _data, dense_and_csr, one_and_two_jobs, same as _same

OPTIONS = [
    dict(instance_sampling="stratified_output_wise"),
    dict(instance_sampling="stratified_example_wise", instance_sample_size=0.5),
    dict(instance_sampling="stratified_output_wise", loss="logistic_example_wise"),
    dict(instance_sampling="subsample", instance_sample_size=0.8),
    dict(instance_sampling="subsample", rule_pruning="irep"),
    dict(instance_sampling="bootstrap", rule_pruning="irep", loss="logistic_example_wise"),
    dict(instance_sampling="stratified_example_wise", rule_pruning="irep", head="complete"),
    dict(post_optimization="sequential"),
    dict(
        post_optimization="sequential",
        post_optimization_options=dict(refine_heads=True, num_iterations=1),
        loss="logistic_example_wise",
        instance_sampling="stratified_output_wise",
    ),
]


@pytest.mark.parametrize("kw", OPTIONS)
def test_dense_equals_csr(kw):
    X, Y = _data()
    a, b = dense_and_csr(functools.partial(BoomerClassifier, max_rules=30, random_state=3, **kw), X, Y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(sp.csr_matrix(X)))


@pytest.mark.parametrize("kw", OPTIONS[:3] + OPTIONS[4:])
def test_n_jobs_invariance_and_seeding(kw):
    X, Y = _data(F=12)
    a, b = one_and_two_jobs(functools.partial(BoomerClassifier, max_rules=30, random_state=5, **kw), X, Y)
    c = BoomerClassifier(max_rules=30, random_state=6, n_jobs=1, **kw).fit(X, Y)
    assert not np.array_equal(a.cond_threshold_, c.cond_threshold_) or a.n_rules_ != c.n_rules_  # the seed matters


@pytest.mark.parametrize("kw", OPTIONS[:2] + OPTIONS[4:5] + OPTIONS[7:8])
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


def test_irep_prunes_only_with_a_prune_set():
    "IREP shortens rules grown on a sample (rules with one condition stay), and without instance sampling changes nothing."
    X, Y = _data(n=300)
    kw = dict(max_rules=40, random_state=4)
    _same(
        BoomerClassifier(instance_sampling=None, **kw).fit(X, Y),
        BoomerClassifier(instance_sampling=None, rule_pruning="irep", **kw).fit(X, Y),
    )
    grown = BoomerClassifier(instance_sampling="subsample", **kw).fit(X, Y)
    pruned = BoomerClassifier(instance_sampling="subsample", rule_pruning="irep", **kw).fit(X, Y)
    assert np.diff(pruned.cond_ptr_).mean() < np.diff(grown.cond_ptr_).mean()
    # the first rule is grown on the same sample either way: pruned, it is a prefix of the grown one
    c0, c1 = grown.cond_ptr_[1:3], pruned.cond_ptr_[1:3]
    np.testing.assert_array_equal(
        pruned.cond_feature_[c1[0] : c1[1]], grown.cond_feature_[c0[0] : c0[0] + c1[1] - c1[0]]
    )


def test_default_fit_compiles_no_option_kernel():
    "In a fresh process, default and stratified fits leave IREP's kernel uncompiled (it is not in their code)."
    import subprocess, sys

    code = (
        "import numpy as np; import mlc_lit.boomer as b; r = np.random.default_rng(0); X = r.normal(size=(60, 4)); "
        "Y = (X[:, :2] > 0).astype(np.int8); b.BoomerClassifier(max_rules=5, random_state=0).fit(X, Y); "
        "b.BoomerClassifier(max_rules=5, random_state=0, instance_sampling='stratified_output_wise').fit(X, Y); "
        "assert not b._irep_depth.signatures, b._irep_depth.signatures"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_post_optimization_one_rule_and_label_kept():
    "A model of one rule (and the default rule) re-learns that rule exactly; longer ones keep each single head's label."
    X, Y = _data()
    kw = dict(random_state=2, instance_sampling=None, feature_sampling=None)
    _same(
        BoomerClassifier(max_rules=2, **kw).fit(X, Y),
        BoomerClassifier(max_rules=2, post_optimization="sequential", **kw).fit(X, Y),
    )
    a = BoomerClassifier(max_rules=20, random_state=2).fit(X, Y)
    b = BoomerClassifier(max_rules=20, random_state=2, post_optimization="sequential").fit(X, Y)
    np.testing.assert_array_equal(a.head_label_, b.head_label_)
    assert not np.array_equal(a.cond_threshold_, b.cond_threshold_)  # but the rules did change
    assert BoomerClassifier(max_rules=1, post_optimization="sequential").fit(X, Y).n_rules_ == 1


@pytest.mark.parametrize(
    "bad, msg",
    [
        (dict(rule_pruning="rep"), "rule_pruning"),
        (dict(post_optimization="yes"), "post_optimization"),
        (dict(post_optimization="sequential", post_optimization_options=dict(iterations=2)), "unknown"),
        (dict(post_optimization="sequential", post_optimization_options=dict(refine_heads=1)), "refine_heads"),
        (dict(instance_sampling="stratified"), "instance_sampling"),
        (dict(instance_sampling="stratified_output_wise", instance_sample_size=0.0), "instance_sample_size"),
        (dict(instance_sampling="subsample", instance_sample_size=1.5), "instance_sample_size"),
        (dict(instance_sampling="bootstrap", instance_sample_size=0.5), "instance_sample_size"),
        (dict(instance_sampling=None, instance_sample_size=0.5), "instance_sample_size"),
    ],
)
def test_bad_values(bad, msg):
    X, Y = _data()
    with pytest.raises(ValueError, match=msg):
        BoomerClassifier(max_rules=5, **bad).fit(X, Y)


@pytest.mark.slow  # further configurations' scikit-learn checks (the fast tier checks one per code path)
@parametrize_with_checks(
    [
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[0]),
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[1]),
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[4]),
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[7]),
    ]
)
def test_sklearn_contract(estimator, check):
    check(estimator)
