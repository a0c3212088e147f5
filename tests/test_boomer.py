"""Estimator contract and invariances of mlc_lit.boomer.BoomerClassifier."""

import os
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.boomer import BoomerClassifier
from mlc_lit.core import InsufficientMemoryError

VARIANTS = [
    dict(loss="logistic_label_wise", head="single"),
    dict(loss="logistic_label_wise", head="complete"),
    dict(loss="logistic_example_wise", head="single"),
    dict(loss="logistic_example_wise", head="complete"),
    dict(loss="squared_error_label_wise", head="complete"),
    dict(loss="logistic_label_wise", head="single", single_label="abs_score"),  # the reference's label rule
    dict(loss="logistic_example_wise", head="single", single_label="abs_score"),
    dict(loss="logistic_example_wise", label_binning="equal_width", bin_ratio=0.5, exact_binning=True),
]


def _data(n=120, F=6, K=4, seed=0, zeros=0.3, nan=0.0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, F)), 2)
    X[rng.random(X.shape) < zeros] = 0.0
    W = rng.normal(size=(F, K))
    Y = ((np.nan_to_num(X) @ W + 0.3 * rng.normal(size=(n, K))) > 0).astype(np.int8)
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    return X, Y


def _model(clf):
    return [
        getattr(clf, a)
        for a in (
            "cond_ptr_",
            "cond_feature_",
            "cond_threshold_",
            "cond_op_",
            "head_ptr_",
            "head_label_",
            "head_score_",
        )
    ]


def _assert_same_model(a, b):
    for x, y in zip(_model(a), _model(b)):
        np.testing.assert_array_equal(x, y)


@parametrize_with_checks(
    [
        BoomerClassifier(max_rules=20, random_state=0),
        BoomerClassifier(max_rules=10, loss="logistic_example_wise", random_state=0),
        BoomerClassifier(
            max_rules=10, loss="logistic_example_wise", label_binning="equal_width", exact_binning=True, random_state=0
        ),
    ]
)
def test_sklearn_contract(estimator, check):
    check(estimator)


@pytest.mark.slow  # further configurations' scikit-learn checks (the fast tier checks one per code path)
@parametrize_with_checks(
    [
        BoomerClassifier(max_rules=10, head="single", single_label="abs_score", random_state=0),
    ]
)
def test_sklearn_contract_more(estimator, check):
    check(estimator)


@pytest.mark.parametrize("kw", VARIANTS)
def test_dense_equals_csr(kw):
    X, Y = _data(nan=0.05)
    a = BoomerClassifier(max_rules=40, random_state=3, **kw).fit(X, Y)
    b = BoomerClassifier(max_rules=40, random_state=3, **kw).fit(sp.csr_matrix(X), Y)
    _assert_same_model(a, b)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(sp.csr_matrix(X)))


@pytest.mark.parametrize("kw", [VARIANTS[0], VARIANTS[3], VARIANTS[5], VARIANTS[7]])
def test_n_jobs_invariance(kw):
    X, Y = _data(F=12)
    a = BoomerClassifier(max_rules=30, random_state=5, n_jobs=1, **kw).fit(X, Y)
    b = BoomerClassifier(max_rules=30, random_state=5, n_jobs=2, **kw).fit(X, Y)
    _assert_same_model(a, b)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_pickle_round_trip():
    X, Y = _data()
    clf = BoomerClassifier(max_rules=25, random_state=0, loss="logistic_example_wise").fit(X, Y)
    clf2 = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clf.decision_function(X), clf2.decision_function(X))
    np.testing.assert_array_equal(clf.predict(X), clf2.predict(X))
    assert str(clf.rules_) == str(clf2.rules_)


def test_random_state_reproducible_and_matters():
    X, Y = _data()
    a = BoomerClassifier(max_rules=20, random_state=1).fit(X, Y)
    b = BoomerClassifier(max_rules=20, random_state=1).fit(X, Y)
    c = BoomerClassifier(max_rules=20, random_state=2).fit(X, Y)
    _assert_same_model(a, b)
    assert not np.array_equal(a.head_score_, c.head_score_)


@pytest.mark.parametrize("kw", VARIANTS)
def test_training_scores_equal_model_scores(kw):
    """The learner's incremental scores equal the scores of the stored rules (checked via the training loss)."""
    X, Y = _data()
    clf = BoomerClassifier(max_rules=15, random_state=0, verbose=0, **kw).fit(X, Y)
    S = clf.decision_function(X)
    # each rule's stored head must be exactly what covers its examples: recompute coverage by brute force
    S2 = np.zeros_like(S)
    for r in range(clf.n_rules_):
        cov = np.ones(len(X), bool)
        for c in range(clf.cond_ptr_[r], clf.cond_ptr_[r + 1]):
            x, t, op = X[:, clf.cond_feature_[c]], clf.cond_threshold_[c], clf.cond_op_[c]
            with np.errstate(invalid="ignore"):
                cov &= [x <= t, x > t, x == t, x != t][op] & ~np.isnan(x)
        for h in range(clf.head_ptr_[r], clf.head_ptr_[r + 1]):
            S2[cov, clf.head_label_[h]] += clf.head_score_[h]
    np.testing.assert_allclose(S, S2, rtol=1e-12, atol=1e-12)


def test_missing_values_and_nominal_features():
    rng = np.random.default_rng(0)
    n = 200
    colour = rng.integers(0, 3, n).astype(float)
    x = rng.normal(size=n)
    Y = np.column_stack([colour == 2, x > 0.5]).astype(np.int8)
    X = np.column_stack([x, colour])
    X[rng.random(n) < 0.1, 0] = np.nan
    clf = BoomerClassifier(
        max_rules=40, nominal_features=[1], instance_sampling=None, feature_sampling=None, random_state=0
    ).fit(X, Y)
    assert set(clf.cond_op_[clf.cond_feature_ == 1]) <= {2, 3}
    assert set(clf.cond_op_[clf.cond_feature_ == 0]) <= {0, 1}
    assert (clf.predict(X)[:, 0] == Y[:, 0]).mean() > 0.95
    text = str(
        clf.rules_as_text(
            feature_names=["x", "colour"], label_names=["blue", "pos"], value_names={1: ["red", "green", "blue"]}
        )
    )
    assert "colour = blue" in text or "colour != " in text


def test_rules_text_uses_names():
    pd = pytest.importorskip("pandas")
    X, Y = _data(F=3, K=2)
    Xd = pd.DataFrame(X, columns=["a", "b", "c"])
    Yd = pd.DataFrame(Y, columns=["happy", "sad"])
    clf = BoomerClassifier(max_rules=5, random_state=0, head="complete").fit(Xd, Yd)
    lines = clf.rules_
    assert lines[0].startswith("IF TRUE THEN (happy: ")
    assert any(n in lines[1] for n in ("a ", "b ", "c ")) and "sad:" in lines[1]


def test_constant_features_and_unseen_labels():
    X = np.ones((30, 3))
    Y = np.zeros((30, 2), np.int8)
    Y[:5, 0] = 1
    with pytest.warns(ConvergenceWarning, match="stopped after 1 of max_rules=10"):
        clf = BoomerClassifier(max_rules=10, random_state=0).fit(X, Y)
    assert clf.n_rules_ == 1  # no condition can split constant features: only the default rule
    np.testing.assert_array_equal(clf.predict(X), np.zeros((30, 2)))


@pytest.mark.parametrize(
    "kw",
    [
        {},
        dict(rule_induction="top_down_beam_search"),
        dict(feature_binning="equal_frequency"),
        dict(loss="logistic_example_wise", head="complete"),
        dict(instance_sampling="subsample"),
        dict(head="partial_dynamic"),
        dict(output_sampling="round_robin"),
        dict(instance_sampling="subsample", rule_pruning="irep"),
    ],
)
def test_constant_feature_samples_draw_more(kw):
    "19 all-zero features and one that varies: rules whose 5 sampled features are all zero draw more (they used to end the fit)."
    rng = np.random.default_rng(0)
    X = np.zeros((80, 20))
    X[:, 7] = rng.normal(size=80)
    Y = (X[:, [7, 7]] * [1, -1] + 0.3 * rng.normal(size=(80, 2)) > 0).astype(np.int8)
    fits = []
    for n_jobs, Xi in ((1, X), (2, X), (1, sp.csr_matrix(X))):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            fits.append(
                BoomerClassifier(
                    **{
                        "max_rules": 30,
                        "feature_sampling": "log2",
                        "instance_sampling": None,
                        "random_state": 3,
                        "n_jobs": n_jobs,
                        **kw,
                    }
                ).fit(Xi, Y)
            )
    assert fits[0].n_rules_ == 30 and set(fits[0].cond_feature_.tolist()) == {7}
    for f in fits[1:]:
        np.testing.assert_array_equal(f.predict_proba(X), fits[0].predict_proba(X))


def test_memory_check(monkeypatch):
    X, Y = _data(K=4)
    monkeypatch.setenv("MLC_LIT_MEMORY_LIMIT", "1000")
    with pytest.raises(InsufficientMemoryError, match="label binning"):
        BoomerClassifier(max_rules=5, loss="logistic_example_wise", head="complete").fit(X, Y)


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(loss="hinge"), "loss"),
        (dict(head="partial"), "head"),
        (dict(max_rules=0), "max_rules"),
        (dict(shrinkage=0), "shrinkage"),
        (dict(l2=-1), "l2"),
        (dict(instance_sampling="x"), "instance_sampling"),
        (dict(feature_sampling=1.5), "feature_sampling"),
        (dict(predictor="x"), "predictor"),
        (dict(nominal_features=[9]), "nominal"),
        (dict(single_label="max"), "single_label"),
    ],
)
def test_bad_parameters(kw, msg):
    X, Y = _data()
    with pytest.raises(ValueError, match=msg):
        BoomerClassifier(**kw).fit(X, Y)


@pytest.mark.slow
def test_emotions_regression():
    data_dir = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
    data = pytest.importorskip("mlc_lit.data")
    if not os.path.isdir(os.path.join(data_dir, "emotions")):
        pytest.skip("no ../shared/data/emotions")
    X, Y, _ = data.load_dataset("emotions", data_dir, split="train")
    Xt, Yt, _ = data.load_dataset("emotions", data_dir, split="test")
    X, Xt = (x.toarray() if sp.issparse(x) else x for x in (X, Xt))
    clf = BoomerClassifier(max_rules=1000, instance_sampling=None, random_state=1).fit(X, Y)
    P = clf.predict(Xt)
    # mlrl-boomer 0.15.6, configuration a: subset 0/1 0.7376, Hamming 0.2129
    assert abs(np.mean(np.any(P != Yt, axis=1)) - 0.7376) < 0.03
    assert abs(np.mean(P != Yt) - 0.2129) < 0.02


PHASES = ("evaluation_s", "summation_s", "other_s")


@pytest.mark.parametrize("kw", [VARIANTS[0], VARIANTS[3], dict(VARIANTS[3], label_binning="equal_width")])
def test_diagnostics_do_not_change_the_model(kw):
    X, Y = _data(F=8, K=5, nan=0.05)
    off = BoomerClassifier(max_rules=30, random_state=2, **kw).fit(X, Y)
    on = BoomerClassifier(max_rules=30, random_state=2, diagnostics=True, **kw).fit(X, Y)
    _assert_same_model(off, on)
    assert off.fit_diagnostics_ is None
    d = on.fit_diagnostics_
    assert set(PHASES) | {
        "total_s",
        "update_s",
        "clock_overhead_s",
        "n_rules",
        "n_searches",
        "n_candidates",
        "n_candidates_inline",
        "n_candidates_timed",
    } == set(d)
    assert d["n_rules"] == on.n_rules_ and d["n_searches"] >= on.n_rules_ - 1
    assert d["n_candidates"] > d["n_candidates_timed"] > 0 or d["n_candidates_inline"] > 0


def test_diagnostics_add_up_to_the_wall_time():
    import time

    X, Y = _data(n=300, F=10, K=6)
    BoomerClassifier(max_rules=3, loss="logistic_example_wise", diagnostics=True).fit(X, Y)  # compiled
    t0 = time.perf_counter()
    clf = BoomerClassifier(max_rules=60, loss="logistic_example_wise", random_state=0, diagnostics=True).fit(X, Y)
    wall = time.perf_counter() - t0
    d = clf.fit_diagnostics_
    assert sum(d[p] for p in PHASES) == pytest.approx(d["total_s"], rel=1e-9)
    assert d["total_s"] <= wall < d["total_s"] + 0.05 + 0.1 * wall  # the same call, timed from outside
    assert all(d[p] >= 0 for p in PHASES)
    assert d["evaluation_s"] > 0 and d["summation_s"] > 0
    assert d["update_s"] + d["clock_overhead_s"] <= d["other_s"]


def test_diagnostics_n_jobs_invariance():
    X, Y = _data(F=12, K=5)
    kw = dict(max_rules=30, random_state=5, loss="logistic_example_wise", diagnostics=True)
    a = BoomerClassifier(n_jobs=1, **kw).fit(X, Y)
    b = BoomerClassifier(n_jobs=2, **kw).fit(X, Y)
    _assert_same_model(a, b)
    for k in ("n_rules", "n_searches", "n_candidates", "n_candidates_timed"):
        assert a.fit_diagnostics_[k] == b.fit_diagnostics_[k]
    assert sum(b.fit_diagnostics_[p] for p in PHASES) == pytest.approx(b.fit_diagnostics_["total_s"], rel=1e-9)


def test_verbose_2_reports_phase_shares(capsys):
    X, Y = _data()
    clf = BoomerClassifier(max_rules=20, random_state=0, verbose=2).fit(X, Y)
    assert clf.fit_diagnostics_ is not None
    assert "time: evaluation" in capsys.readouterr().err
