"""Tests for mlc_lit.xdcc (the chain) that notebooks express badly: propagation invariants, out-of-fold
label-features, n_jobs invariance, dense == CSR, pickle, scikit-learn's checks; and the re-export of the trees."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

import mlc_lit.mlxgb
import mlc_lit.xdcc
from mlc_lit.xdcc import MLXGBClassifier, XDCCClassifier, SPLITS
from test_mlxgb import _toy  # the trees' toy problem and small forest, shared with the chain's tests


def test_trees_are_re_exported():
    "`from mlc_lit.xdcc import MLXGBClassifier` keeps working after the split into mlxgb and xdcc."
    assert MLXGBClassifier is mlc_lit.mlxgb.MLXGBClassifier and SPLITS is mlc_lit.mlxgb.SPLITS
    assert {"MLXGBClassifier", "SPLITS", "XDCCClassifier"} <= set(mlc_lit.xdcc.__all__)


# ------------------------------------------------------------------ XDCC
@pytest.mark.parametrize("select", ["unpropagated", "all"])
@pytest.mark.parametrize("cumulate", ["paper", "reference"])
def test_xdcc_chain(select, cumulate):
    X, Y = _toy(n=120, K=4, seed=6, nans=0.05, grid=False)
    kw = dict(
        n_estimators=5, max_depth=3, select=select, cumulate=cumulate, chain_length=4, cv=None
    )  # the paper's in-sample chain
    m = XDCCClassifier(**kw).fit(X, Y)
    rounds, P = m.propagation_rounds(X)
    assert (np.bincount(rounds[rounds >= 0]) <= len(X)).all()  # at most one label per example and round
    assert ((rounds >= 0) == ~np.isnan(P)).all()
    if select == "unpropagated":
        assert ((rounds >= 0).sum(1) == 4).all()
    stages = list(m.staged_predict(X))
    assert len(stages) == 4 and np.array_equal(stages[-1], m.predict(X))
    proba = m.predict_proba(X)
    prop = rounds >= 0
    if cumulate == "paper":
        np.testing.assert_allclose(proba[prop], P[prop])
    c = XDCCClassifier(**kw).fit(sp.csr_matrix(np.nan_to_num(X)), Y)
    d = XDCCClassifier(**kw).fit(np.nan_to_num(X), Y)
    np.testing.assert_allclose(
        c.predict_proba(sp.csr_matrix(np.nan_to_num(X))), d.predict_proba(np.nan_to_num(X)), atol=1e-9
    )
    e = XDCCClassifier(n_jobs=2, **kw).fit(X, Y)
    np.testing.assert_array_equal(e.predict_proba(X), proba)


def test_xdcc_out_of_fold_label_features_are_reproducible():
    "cv=k: the same chain for any n_jobs, dense or CSR, and for the same random_state; another seed, other folds."
    X, Y = _toy(n=90, K=3, seed=8, grid=False)
    kw = dict(n_estimators=4, max_depth=3, chain_length=3, cv=3, random_state=1)
    m = XDCCClassifier(**kw).fit(X, Y)
    np.testing.assert_array_equal(XDCCClassifier(n_jobs=2, **kw).fit(X, Y).predict_proba(X), m.predict_proba(X))
    np.testing.assert_array_equal(XDCCClassifier(**kw).fit(X, Y).train_rounds_, m.train_rounds_)
    Xd = np.nan_to_num(X)
    c, d = XDCCClassifier(**kw).fit(sp.csr_matrix(Xd), Y), XDCCClassifier(**kw).fit(Xd, Y)
    np.testing.assert_allclose(c.predict_proba(sp.csr_matrix(Xd)), d.predict_proba(Xd), atol=1e-9)
    assert not np.array_equal(XDCCClassifier(**dict(kw, random_state=2)).fit(X, Y).train_folds_, m.train_folds_)


@pytest.mark.parametrize("tm", ["hist", "exact"])
def test_xdcc_csr_stores_known_label_features_and_equals_dense(tm):
    "On CSR input a step's label-features store only the known values; the chain is the dense chain, bit for bit."
    X, Y = _toy(n=120, K=4, seed=6, zeros=0.3, grid=False)
    Xs = sp.csr_matrix(X)
    kw = dict(n_estimators=4, max_depth=3, chain_length=3, cv=3, tree_method=tm, random_state=0)
    d, c = XDCCClassifier(**kw).fit(X, Y), XDCCClassifier(**kw).fit(Xs, Y)
    assert any(np.isin(m.feature_, range(4, 8)).any() for m in c.estimators_)  # label-features are split on
    for a, b in zip(c.estimators_, d.estimators_):
        assert a.absent_missing_from_ == b.absent_missing_from_ == 4
        for attr in ("feature_", "threshold_", "default_left_", "value_", "cover_"):
            np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr), err_msg=attr)
    np.testing.assert_array_equal(c.train_rounds_, d.train_rounds_)
    for m in (c, d):
        np.testing.assert_array_equal(m.predict_proba(Xs), d.predict_proba(X))
    np.testing.assert_array_equal(XDCCClassifier(n_jobs=2, **kw).fit(Xs, Y).predict_proba(Xs), c.predict_proba(Xs))
    _, P = c.propagation_rounds(Xs)
    Xa = mlc_lit.xdcc._step_input(c.estimators_[-1], Xs, P)
    assert Xa.nnz == Xs.nnz + (~np.isnan(P)).sum() and not np.isnan(Xa.data).any()


def test_xdcc_out_of_fold_with_a_fold_of_zero_weights():
    "A fold whose other folds carry no weight takes the full model's probabilities instead of failing."
    X, Y = _toy(n=60, K=2, seed=9, grid=False)
    m0 = XDCCClassifier(n_estimators=2, max_depth=2, chain_length=2, cv=2, random_state=0).fit(X, Y)
    w = (m0.train_folds_ == 0).astype(float)  # only fold 0 has weight: fold 0's model has none
    m = XDCCClassifier(n_estimators=2, max_depth=2, chain_length=2, cv=2, random_state=0).fit(X, Y, sample_weight=w)
    assert m.predict(X).shape == Y.shape and len(m.estimators_) == 2


def test_xdcc_out_of_fold_skips_the_last_round():
    "The last round's label-features feed no round: a one-round chain with cv is ML-XGB, folds or not."
    X, Y = _toy(n=60, K=2, seed=10, grid=False)
    a = XDCCClassifier(n_estimators=3, max_depth=2, chain_length=1, cv=3, random_state=0).fit(X, Y)
    b = XDCCClassifier(n_estimators=3, max_depth=2, chain_length=1, cv=None, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(a.train_rounds_, b.train_rounds_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_xdcc_separate_and_conquer_zeroes_propagated_labels():
    X, Y = _toy(n=100, K=3, seed=7, grid=False)
    m = XDCCClassifier(n_estimators=3, max_depth=2, chain_length=2, cv=None).fit(X, Y)
    # round 2's model was trained with weight 0 on the labels propagated in round 1
    assert len(m.estimators_) == 2 and m.estimators_[1].n_features_in_ == X.shape[1] + 3
    assert len(m.fit_times_) == 2 and m.fit_times_[1] >= m.fit_times_[0]


# ------------------------------------------------------------------ pickle and scikit-learn
def test_xdcc_verbose_reports_each_round(capsys):
    "The paper's chain (chain_length=None) has K rounds; verbose=1 says where it is and how long the rest will take."
    X, Y = _toy(n=60, K=3)
    XDCCClassifier(n_estimators=2, max_depth=2, chain_length=None, verbose=1).fit(X, Y)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("[XDCC] round 1/3:") and all("s left" in l for l in lines), lines


@pytest.mark.parametrize("Est", [XDCCClassifier])
def test_xdcc_pickle(Est):
    X, Y = _toy(n=60)
    m = Est(n_estimators=3, max_depth=2).fit(X, Y)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m.predict_proba(X), m2.predict_proba(X))


@parametrize_with_checks(
    [
        XDCCClassifier(n_estimators=3, max_depth=2, chain_length=2, cv=None),
        XDCCClassifier(n_estimators=3, max_depth=2, chain_length=2, cv=2),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_xdcc_defaults_are_the_out_of_fold_cardinality_chain():
    "XDCCClassifier() is the cv=3 chain of cardinality length; the paper's settings are chain_length=None, cv=None."
    X, Y = _toy(n=90, K=4, seed=11, grid=False)
    d = XDCCClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, Y)
    e = XDCCClassifier(n_estimators=3, max_depth=2, chain_length="cardinality", cv=3, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(d.predict_proba(X), e.predict_proba(X))
    assert len(d.estimators_) == min(4, int(np.ceil(Y.sum(1).mean())) + 1) and np.bincount(d.train_folds_).tolist() == [
        30,
        30,
        30,
    ]
    p = XDCCClassifier(n_estimators=3, max_depth=2, chain_length=None, cv=None).fit(X, Y)
    assert len(p.estimators_) == 4 and p.train_folds_ is None
