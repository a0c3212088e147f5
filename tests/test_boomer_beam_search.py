"""BoomerClassifier's rule_induction='top_down_beam_search' and rule_induction_options: width 1 = the greedy
search, dense = CSR, n_jobs invariance, pickle, the options' effects, bad values, no new kernel on default fits and
scikit-learn's estimator checks."""

import functools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit import pruning
from mlc_lit.boomer import BoomerClassifier

from _boomer_fixtures import data as _data, dense_and_csr, one_and_two_jobs, same as _same

BEAM = dict(rule_induction="top_down_beam_search")
OPTIONS = [
    dict(BEAM),
    dict(BEAM, loss="logistic_example_wise"),
    dict(BEAM, rule_induction_options=dict(beam_width=3, resample_features=True, max_head_refinements=None)),
    dict(BEAM, instance_sampling="subsample", rule_pruning="irep", rule_induction_options=dict(min_coverage=5)),
    dict(BEAM, head="complete", rule_induction_options=dict(recalculate_predictions=False, max_conditions=2)),
    dict(rule_induction_options=dict(min_coverage=10, max_head_refinements=2)),  # greedy on the beam kernel
    dict(BEAM, post_optimization="sequential", feature_binning="equal_width"),
]


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(loss="logistic_example_wise"),
        dict(head="complete"),
        dict(loss="squared_error_label_wise", instance_sampling="stratified_output_wise"),
        dict(single_label="abs_score", nominal_features=[1]),
        dict(feature_binning="equal_frequency", rule_pruning="irep", instance_sampling="subsample"),
    ],
)
def test_width_one_is_the_greedy_search(kw):
    X, Y = _data(seed=1)
    greedy = BoomerClassifier(max_rules=30, random_state=2, **kw).fit(X, Y)
    for X_ in (X, sp.csr_matrix(X)):
        _same(
            greedy,
            BoomerClassifier(max_rules=30, random_state=2, **BEAM, **kw, rule_induction_options=dict(beam_width=1)).fit(
                X_, Y
            ),
        )


@pytest.mark.parametrize("kw", OPTIONS)
def test_dense_equals_csr(kw):
    X, Y = _data()
    a, b = dense_and_csr(functools.partial(BoomerClassifier, max_rules=30, random_state=3, **kw), X, Y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(sp.csr_matrix(X)))


@pytest.mark.parametrize("kw", OPTIONS[:2])  # single and complete heads: each compiles a parallel kernel
def test_n_jobs_invariance_and_seeding(kw):
    X, Y = _data(F=12)
    a, b = one_and_two_jobs(functools.partial(BoomerClassifier, max_rules=30, random_state=5, **kw), X, Y)
    c = BoomerClassifier(max_rules=30, random_state=6, n_jobs=1, **kw).fit(X, Y)
    assert not np.array_equal(a.cond_threshold_, c.cond_threshold_) or a.n_rules_ != c.n_rules_


@pytest.mark.parametrize("kw", OPTIONS[:3])
def test_pickle_round_trip(kw):
    X, Y = _data()
    a = BoomerClassifier(max_rules=25, random_state=0, **kw).fit(X, Y)
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert b.get_params()["rule_induction"] == "top_down_beam_search"


def test_a_wider_beam_finds_other_rules_and_options_act():
    X, Y = _data(n=300)
    kw = dict(max_rules=30, random_state=4, instance_sampling=None)
    greedy = BoomerClassifier(**kw).fit(X, Y)
    beam = BoomerClassifier(**kw, **BEAM).fit(X, Y)
    assert not np.array_equal(greedy.cond_threshold_, beam.cond_threshold_)
    for r in (
        BoomerClassifier(**kw, rule_induction_options=dict(max_conditions=2)).fit(X, Y),
        BoomerClassifier(**kw, **BEAM, rule_induction_options=dict(max_conditions=2)).fit(X, Y),
    ):
        assert np.diff(r.cond_ptr_)[1:].max() <= 2
    for est in (
        BoomerClassifier(**kw, rule_induction_options=dict(min_coverage=40)).fit(X, Y),
        BoomerClassifier(**kw, **BEAM, rule_induction_options=dict(min_coverage=40)).fit(X, Y),
    ):
        cov = [
            pruning._covered(X, est.cond_feature_[a:b], est.cond_threshold_[a:b], est.cond_op_[a:b]).sum()
            for a, b in zip(est.cond_ptr_[1:-1], est.cond_ptr_[2:])
        ]
        assert min(cov) >= 40
    # recalculate_predictions=False changes the heads only where the sample is not all examples
    no_sample = dict(kw, rule_induction_options=dict(recalculate_predictions=False))
    _same(greedy, BoomerClassifier(**no_sample).fit(X, Y))
    boot = dict(max_rules=30, random_state=4)
    a = BoomerClassifier(**boot).fit(X, Y)
    b = BoomerClassifier(**boot, rule_induction_options=dict(recalculate_predictions=False)).fit(X, Y)
    np.testing.assert_array_equal(
        a.cond_feature_[: a.cond_ptr_[2]], b.cond_feature_[: b.cond_ptr_[2]]
    )  # same first rule
    h = slice(a.head_ptr_[1], a.head_ptr_[2])
    assert not np.array_equal(a.head_score_[h], b.head_score_[h])  # other head


def test_default_fit_compiles_no_beam_kernel():
    "In a fresh process, a default fit (and the greedy search with max_conditions) leaves the beam kernels uncompiled."
    import subprocess, sys

    code = (
        "import numpy as np; import mlc_lit.boomer as b; r = np.random.default_rng(0); X = r.normal(size=(60, 4)); "
        "Y = (X[:, :2] > 0).astype(np.int8); b.BoomerClassifier(max_rules=5, random_state=0).fit(X, Y); "
        "b.BoomerClassifier(max_rules=5, random_state=0, rule_induction_options=dict(max_conditions=1)).fit(X, Y); "
        "assert not b._offer_beam.signatures; "
        "assert b._make_grow_rule_beam.cache_info().currsize == 0"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize(
    "bad, msg",
    [
        (dict(rule_induction="beam"), "rule_induction"),
        (dict(rule_induction_options=[1]), "rule_induction_options"),
        (dict(rule_induction_options=dict(beam_width=2)), "unknown"),
        (dict(BEAM, rule_induction_options=dict(beam_width=0)), "beam_width"),
        (dict(BEAM, rule_induction_options=dict(beam_width=2.0)), "beam_width"),
        (dict(rule_induction_options=dict(min_coverage=0)), "min_coverage"),
        (dict(rule_induction_options=dict(max_conditions=0)), "max_conditions"),
        (dict(rule_induction_options=dict(max_head_refinements=True)), "max_head_refinements"),
        (dict(BEAM, rule_induction_options=dict(resample_features="yes")), "resample_features"),
        (dict(rule_induction_options=dict(recalculate_predictions=1)), "recalculate_predictions"),
    ],
)
def test_bad_values(bad, msg):
    X, Y = _data()
    with pytest.raises(ValueError, match=msg):
        BoomerClassifier(max_rules=5, **bad).fit(X, Y)


@parametrize_with_checks(
    [
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[0]),
    ]
)
def test_sklearn_contract(estimator, check):
    check(estimator)


@pytest.mark.slow  # further configurations' scikit-learn checks (the fast tier checks one per code path)
@parametrize_with_checks(
    [
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[5]),
    ]
)
def test_sklearn_contract_more(estimator, check):
    check(estimator)


@pytest.mark.parametrize(
    "other", [dict(head="partial_fixed"), dict(head="partial_dynamic"), dict(output_sampling="round_robin")]
)
@pytest.mark.parametrize("search", [BEAM, dict(rule_induction_options=dict(min_coverage=3))])
def test_beam_kernel_refuses_partial_heads_and_output_sampling(other, search):
    X, Y = _data()  # only the greedy kernel predicts subsets of the outputs; the beam kernel must say so, not guess
    with pytest.raises(ValueError, match="partial heads"):
        BoomerClassifier(max_rules=5, **search, **other).fit(X, Y)
