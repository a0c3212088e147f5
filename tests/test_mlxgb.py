"""Tests for mlc_lit.mlxgb that notebooks express badly: the independent check against XGBoost, kernels
against the slow versions shown in 0301_mlxgb_gains and 0306_mlxgb_trees (`_naive_best`, `_naive_leaf`), edge
cases, n_jobs invariance, dense == CSR, pickle, scikit-learn's checks."""

import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.mlxgb import (
    SPLITS,
    GainParams,
    MLXGBClassifier,
    Nodes,
    _columns,
    _bin_features,
    _binned,
    _exact_splits,
    _hist_splits,
    _known_csr,
    _no_splits,
    _node_sums,
    _score,
    _naive_best,
    _naive_leaf,
)

SMALL = dict(n_estimators=4, max_depth=3)


def _toy(n=120, F=4, K=3, seed=0, zeros=0.0, nans=0.0, grid=True):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 64, (n, F)) / 8.0 if grid else rng.normal(size=(n, F))
    if zeros:
        X[rng.random((n, F)) < zeros] = 0.0
    if nans:
        X[rng.random((n, F)) < nans] = np.nan
    Y = (rng.random((n, K)) < 0.35).astype(int)
    Y[:, 0] |= np.nan_to_num(X[:, 0]) > 4 if grid else np.nan_to_num(X[:, 0]) > 0.3
    return X, Y


# ------------------------------------------------------------------ independent check against XGBoost
@pytest.mark.parametrize("mcw,depth", [(0.0, 2), (1.0, 4), (3.0, 3)])
def test_matches_xgboost_multi_output_tree(mcw, depth):
    xgb = pytest.importorskip("xgboost")
    X, Y = _toy(n=150, F=4, K=3, seed=1)
    X = X.astype(np.float32).astype(np.float64)  # XGBoost reads float32; these values are exact
    kw = dict(n_estimators=8, max_depth=depth, learning_rate=0.3, reg_lambda=1.0, min_child_weight=mcw, gamma=0.0)
    ref = xgb.XGBClassifier(
        multi_strategy="multi_output_tree",
        tree_method="hist",
        max_bin=256,
        base_score=0.5,
        subsample=1.0,
        colsample_bytree=1.0,
        n_jobs=1,
        objective="binary:logistic",
        **kw,
    ).fit(X, Y)
    ours = MLXGBClassifier(
        split="sum_gain", mcw_mode="per_label", tree_method="hist", max_bins=256, base_score=0.5, **kw
    ).fit(X, Y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


@pytest.mark.parametrize("gamma", [0.5, 2.0])
def test_gamma_is_xgboosts_min_split_loss(gamma):
    "gamma is compared with the gain without eq. (5)'s 1/2, as XGBoost's min_split_loss is (0301_mlxgb_gains, the Newton section)."
    xgb = pytest.importorskip("xgboost")
    X, Y = _toy(n=150, F=4, K=3, seed=1)
    kw = dict(n_estimators=8, max_depth=4, learning_rate=0.3, reg_lambda=1.0, min_child_weight=1.0, gamma=gamma)
    ref = xgb.XGBClassifier(
        multi_strategy="multi_output_tree",
        tree_method="hist",
        max_bin=256,
        base_score=0.5,
        n_jobs=1,
        objective="binary:logistic",
        **kw,
    ).fit(X, Y)
    ours = MLXGBClassifier(base_score=0.5, **kw).fit(X, Y)
    assert len(ours.feature_) < len(MLXGBClassifier(base_score=0.5, **(kw | dict(gamma=0.0))).fit(X, Y).feature_)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


def test_exact_matches_xgboost_single_label():
    xgb = pytest.importorskip("xgboost")
    X, Y = _toy(n=150, F=4, K=1, seed=2, grid=False)
    X = X.astype(np.float32).astype(np.float64)
    kw = dict(n_estimators=6, max_depth=3, learning_rate=0.3, reg_lambda=1.0, min_child_weight=0.0, gamma=0.0)
    ref = xgb.XGBClassifier(tree_method="exact", base_score=0.5, n_jobs=1, **kw).fit(X, Y[:, 0])
    ours = MLXGBClassifier(tree_method="exact", base_score=0.5, **kw).fit(X, Y)
    np.testing.assert_allclose(ours.predict_proba(X)[:, 0], ref.predict_proba(X)[:, 1], atol=1e-6)


# ------------------------------------------------------------------ kernels against slow NumPy versions
def _check_split_kernels(kind, sparse, K):
    X, _ = _toy(n=60, F=3, K=3, seed=kind, zeros=0.3, nans=0.15)
    rng = np.random.default_rng(kind)
    gh = np.c_[rng.normal(size=(60, K)), rng.random((60, K))]
    slot = rng.integers(-1, 3, 60).astype(np.int64)
    ns = 3
    sums, counts = np.zeros((ns, 2 * K)), np.zeros(ns, np.int64)
    _node_sums(gh, slot, sums, counts)
    nodes = Nodes(sums, counts, np.array([_score(sums[s], K, 1.0, 0.2, kind) for s in range(ns)]))
    gp = GainParams(1.0, 0.2, kind, False)
    feats = np.arange(3, dtype=np.int64)
    Xk = sp.csr_matrix(X) if sparse else X
    naive = _naive_best(X, gh, slot, ns, 1.0, 0.2, kind, False)
    for method in ("exact", "hist"):
        out = _no_splits(3, ns)
        if method == "exact":
            _exact_splits(_columns(Xk), feats, gh, slot, nodes, gp, out)
        else:
            binned = _binned(Xk, 256)
            for group in (0, 1, 2, 3):  # 0: the kernel's own choice; 2: a group and a remainder
                out = _no_splits(3, ns)
                _hist_splits(*binned, feats, gh, slot, nodes, gp, out, group)
                np.testing.assert_allclose(out.gain, naive, rtol=1e-9, atol=1e-12, err_msg=f"{method} group {group}")
        np.testing.assert_allclose(out.gain, naive, rtol=1e-9, atol=1e-12, err_msg=method)


@pytest.mark.parametrize("kind", range(6))
@pytest.mark.parametrize("sparse", [False, True])
def test_split_kernels_against_naive(kind, sparse):
    _check_split_kernels(kind, sparse, K=3)


@pytest.mark.parametrize("kind", [0, 1])
@pytest.mark.parametrize("sparse", [False, True])
def test_split_kernels_flush_full_candidate_buffers(kind, sparse):
    "With 2048 labels the candidate buffer holds 16 candidates, so every feature flushes it several times."
    _check_split_kernels(kind, sparse, K=2048)


def _leaf(m, x, t):
    "Leaf reached by row x in tree t of model m (the chapter's slow walk, `_naive_leaf`)."
    return _naive_leaf(m.feature_, m.threshold_, m.default_left_, m.left_, m.right_, m.tree_ptr_[t], x)


def test_predict_kernel_against_naive():
    X, Y = _toy(n=80, nans=0.1)
    m = MLXGBClassifier(**SMALL).fit(X, Y)
    S = np.repeat(m.base_margin_[None], len(X), 0)
    for i in range(len(X)):
        for t in range(len(m.tree_ptr_) - 1):
            S[i] += m.value_[_leaf(m, X[i], t)]
    np.testing.assert_allclose(m.decision_function(X), S)


# ------------------------------------------------------------------ edge cases
@pytest.mark.parametrize("tm", ["hist", "exact"])
def test_edge_cases(tm):
    X, Y = _toy(n=40)
    Y[:, 1] = 0  # a label never positive
    X[:, 2] = 3.0  # a constant feature
    m = MLXGBClassifier(tree_method=tm, min_child_weight=0.0, max_depth=8, **{"n_estimators": 3}).fit(X, Y)
    assert (m.predict(X)[:, 1] == 0).all()
    assert not (m.feature_ == 2).any()
    leaf_of = [_leaf(m, x, 0) for x in X]  # one-example leaves (mcw=0, depth 8)
    assert min(np.unique(leaf_of, return_counts=True)[1]) == 1
    assert np.isfinite(m.value_).all()
    XN = np.c_[X, np.full((40, 3), np.nan)]  # all-unknown label-features (round 1 of XDCC)
    m2 = MLXGBClassifier(tree_method=tm, **SMALL).fit(XN, Y)
    assert not np.isin(m2.feature_, [4, 5, 6]).any()
    m3 = MLXGBClassifier(tree_method=tm, **SMALL).fit(sp.csr_matrix(XN), Y)
    np.testing.assert_allclose(m2.decision_function(XN), m3.decision_function(sp.csr_matrix(XN)))
    one = MLXGBClassifier(tree_method=tm, **SMALL).fit(X[:1], Y[:1])  # a single example
    assert one.predict(X[:1]).shape == (1, 3)


@pytest.mark.parametrize("tm", ["hist", "exact"])
@pytest.mark.parametrize("split", SPLITS)
def test_dense_equals_csr_and_n_jobs(tm, split):
    X, Y = _toy(n=150, F=5, K=3, seed=3, zeros=0.4, nans=0.1, grid=False)
    kw = dict(tree_method=tm, split=split, max_bins=32, **SMALL)
    d = MLXGBClassifier(**kw).fit(X, Y)
    c = MLXGBClassifier(**kw).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(d.decision_function(X), c.decision_function(sp.csr_matrix(X)), atol=1e-9)
    for nj in (2, 3):
        p = MLXGBClassifier(n_jobs=nj, **kw).fit(X, Y)
        np.testing.assert_array_equal(p.value_, d.value_)
        np.testing.assert_array_equal(p.threshold_, d.threshold_)
        np.testing.assert_array_equal(p.decision_function(X), d.decision_function(X))


def _label_features(seed):
    "A toy X (zeros implicit in CSR), its labels Y and label-features P: rounded noisy labels, many exactly 0 or 1, half unknown."
    X, Y = _toy(n=150, F=4, K=3, seed=seed, zeros=0.3, grid=False)
    rng = np.random.default_rng(seed)
    P = np.round(np.clip(Y + rng.normal(0, 0.4, Y.shape), 0, 1), 1)
    P[rng.random(P.shape) < 0.5] = np.nan
    return X, Y, P


@pytest.mark.parametrize("tm", ["hist", "exact"])
@pytest.mark.parametrize("split", ["sum_gain", "max_weight"])
def test_absent_missing_equals_stored_nan(tm, split):
    "CSR label-features storing only their known values, absent read as missing: the trees of NaN stored, bit for bit."
    X, Y, P = _label_features(seed=5)
    stored = sp.hstack([sp.csr_matrix(X), sp.csr_matrix(P)], format="csr")  # NaN stored, P's zeros implicit
    known = sp.hstack([sp.csr_matrix(X), _known_csr(P)], format="csr")  # known values only, zeros stored
    assert (known.data[known.indices >= 4] == 0).sum() > 30
    W = np.random.default_rng(6).integers(0, 3, 150).astype(float)  # rows of weight 0 take no part in the cuts
    kw = dict(tree_method=tm, split=split, max_bins=8, **SMALL)  # 8 bins: X's cuts are pruned quantiles
    ref = MLXGBClassifier(**kw).fit(stored, Y, sample_weight=W)
    assert np.isin(ref.feature_, [4, 5, 6]).any()  # the trees split on label-features
    fits = [
        (MLXGBClassifier(**kw).fit(known, Y, sample_weight=W, absent_missing_from=4), known),
        (MLXGBClassifier(n_jobs=2, **kw).fit(known, Y, sample_weight=W, absent_missing_from=4), known),
        (MLXGBClassifier(**kw).fit(np.c_[X, P], Y, sample_weight=W), np.c_[X, P]),
    ]
    for m, Xin in fits:
        for attr in ("feature_", "threshold_", "default_left_", "left_", "right_", "value_", "cover_"):
            np.testing.assert_array_equal(getattr(m, attr), getattr(ref, attr), err_msg=attr)
        np.testing.assert_array_equal(m.decision_function(Xin), ref.decision_function(stored))
        np.testing.assert_array_equal(m.explain(Xin[:5]).values, ref.explain(stored[:5]).values)
    assert [m.absent_missing_from_ for m, _ in fits] == [4, 4, 7]


def test_absent_missing_from_is_checked_and_kept():
    X, Y = _toy(n=60)
    Xs = sp.csr_matrix(X)
    for bad in (-1, 5, 1.5, True, "2"):
        with pytest.raises(ValueError, match="absent_missing_from must be None or an integer from 0 to n_features = 4"):
            MLXGBClassifier(**SMALL).fit(Xs, Y, absent_missing_from=bad)
    m = MLXGBClassifier(**SMALL).fit(Xs, Y, absent_missing_from=2)
    assert m.absent_missing_from_ == 2 and pickle.loads(pickle.dumps(m)).absent_missing_from_ == 2
    assert m.fit(Xs, Y).absent_missing_from_ == 4  # each fit sets it: without the option, no column
    del (
        m.absent_missing_from_
    )  # as pickled before the attribute existed: unpickled, it reads no absent entry as missing
    old = pickle.loads(pickle.dumps(m))
    assert old.absent_missing_from_ == 4 and not hasattr(
        pickle.loads(pickle.dumps(MLXGBClassifier())), "absent_missing_from_"
    )
    np.testing.assert_array_equal(old.predict_proba(Xs), MLXGBClassifier(**SMALL).fit(Xs, Y).predict_proba(Xs))
    everywhere = MLXGBClassifier(**SMALL).fit(Xs, Y, absent_missing_from=0)  # every absent entry missing
    np.testing.assert_array_equal(
        everywhere.decision_function(Xs), everywhere.decision_function(np.where(X == 0, np.nan, X))
    )


def test_weights_and_sampling():
    X, Y = _toy(n=100, seed=4, grid=False)
    a = MLXGBClassifier(tree_method="exact", **SMALL).fit(X, Y, sample_weight=np.full(100, 2.0))
    b = MLXGBClassifier(tree_method="exact", **SMALL).fit(np.r_[X, X], np.r_[Y, Y])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-10)
    W = np.ones((100, 3))
    W[:, 2] = 0.0  # label 2 switched off: its leaves stay 0
    m = MLXGBClassifier(**SMALL).fit(X, Y, sample_weight=W)
    assert np.all(m.value_[:, 2] == 0.0)
    s1 = MLXGBClassifier(subsample=0.5, colsample=0.5, random_state=0, **SMALL).fit(X, Y)
    s2 = MLXGBClassifier(subsample=0.5, colsample=0.5, random_state=0, n_jobs=2, **SMALL).fit(X, Y)
    np.testing.assert_array_equal(s1.value_, s2.value_)
    with pytest.raises(ValueError, match="'split' parameter of MLXGBClassifier must be a str among"):
        MLXGBClassifier(split="nope").fit(X, Y)
    with pytest.raises(ValueError, match="sample_weight must have shape"):
        MLXGBClassifier().fit(X, Y, sample_weight=np.ones(3))


def test_min_label_mode_is_stricter():
    X, Y = _toy(n=100, seed=5, grid=False)
    pl = MLXGBClassifier(mcw_mode="per_label", min_child_weight=2.0, **SMALL).fit(X, Y)
    ml = MLXGBClassifier(mcw_mode="min_label", min_child_weight=2.0, **SMALL).fit(X, Y)
    assert (ml.feature_ >= 0).sum() <= (pl.feature_ >= 0).sum()


# ------------------------------------------------------------------ pickle and scikit-learn
@pytest.mark.parametrize("Est", [MLXGBClassifier])
def test_pickle(Est):
    X, Y = _toy(n=60)
    m = Est(n_estimators=3, max_depth=2).fit(X, Y)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m.predict_proba(X), m2.predict_proba(X))


@parametrize_with_checks(
    [MLXGBClassifier(n_estimators=5, max_depth=3), MLXGBClassifier(n_estimators=5, max_depth=3, tree_method="exact")]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ real data (skipped when absent)
DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")


def _shared(name):
    data = pytest.importorskip("mlc_lit.data")
    if not os.path.isdir(os.path.join(DATA, name)):
        pytest.skip("no ../shared/data")
    return data.load_dataset(name, DATA, "train"), data.load_dataset(name, DATA, "test")


@pytest.mark.slow
def test_emotions_regression():
    (Xtr, Ytr, _), (Xte, Yte, _) = _shared("emotions")
    m = MLXGBClassifier(n_estimators=20, max_depth=3).fit(Xtr, Ytr)
    assert (m.predict(Xte) == Yte).mean() > 0.75  # Hamming accuracy (XGBoost: about 0.80)


@pytest.mark.parametrize("name", ["yeast", "scene"])
def test_hist_cuts_are_xgboosts(name):
    "More distinct values than bins: the cuts are those of XGBoost's quantile sketch (float32 there)."
    xgb = pytest.importorskip("xgboost")
    (X, Y, _), _ = _shared(name)
    ptr, ref = xgb.QuantileDMatrix(X, label=Y, max_bin=256).get_quantile_cut()
    *_, cut_ptr, cuts = _bin_features(X, 256)
    assert max(np.diff(cut_ptr)) == 255  # pruning did happen
    for f in range(X.shape[1]):  # XGBoost adds a sentinel at each end
        np.testing.assert_allclose(cuts[cut_ptr[f] : cut_ptr[f + 1]], ref[ptr[f] + 1 : ptr[f + 1] - 1], rtol=1e-6)


def test_hist_reproduces_xgboost_on_emotions():
    "Real data, default settings of both: the same multi-output trees, so the same probabilities."
    xgb = pytest.importorskip("xgboost")
    (X, Y, _), (Xt, _, _) = _shared("emotions")
    kw = dict(n_estimators=20, max_depth=6, learning_rate=0.3)
    ref = xgb.XGBClassifier(multi_strategy="multi_output_tree", tree_method="hist", n_jobs=1, **kw).fit(X, Y)
    ours = MLXGBClassifier(split="sum_gain", tree_method="hist", **kw).fit(X, Y)
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-5)
