"""Tests of mlc_lit.rembed that notebooks express badly: estimator checks, pickling, n_jobs
invariance, dense == CSR, the exact embedding on random problems, real-data regression checks."""

import os
import pickle

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.rembed import (
    RandomizedEmbeddingClassifier,
    SmoothLinkClassifier,
    f1_inference,
    randomized_embedding,
    _ridge_penalty,
)

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")


def _problem(n=240, d=15, c=12, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    A = X @ rng.standard_normal((d, k)) @ rng.standard_normal((k, c)) / np.sqrt(d)
    return X, (A + 0.5 * rng.standard_normal((n, c)) > 1.0).astype(np.int64)


@parametrize_with_checks(
    [
        RandomizedEmbeddingClassifier(n_random_features=50, random_state=0),
        RandomizedEmbeddingClassifier(n_random_features=50, loss="logistic", max_iter=20, random_state=0),
        SmoothLinkClassifier(n_random_features=50, random_state=0),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("sparse_x", [False, True])
def test_embedding_matches_exact_eigenvectors(seed, sparse_x):
    X, Y = _problem(seed=seed)
    lam = _ridge_penalty(X, 0.1)
    M = Y.T @ X @ np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ Y)
    w, E = np.linalg.eigh(M)
    Xin = sp.csr_matrix(X) if sparse_x else X
    for solver in ("cholesky", "cg"):
        emb = randomized_embedding(Xin, sp.csr_matrix(Y), 3, l2=0.1, random_state=seed, solver=solver)
        assert np.degrees(sla.subspace_angles(emb.U, E[:, ::-1][:, :3]).max()) < 1.0
        np.testing.assert_allclose(emb.singular_values, w[::-1][:3], rtol=1e-2)


def test_embedding_full_rank_is_exact():
    # with k + ℓ >= c the range finder spans everything: the answer is exact up to rounding
    X, Y = _problem(c=8)
    lam = _ridge_penalty(X, 0.1)
    M = Y.T @ X @ np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ Y)
    w, E = np.linalg.eigh(M)
    emb = randomized_embedding(X, Y, 4, l2=0.1, random_state=0)
    assert sla.subspace_angles(emb.U, E[:, ::-1][:, :4]).max() < 1e-8


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_dense_equals_csr(loss):
    X, Y = _problem()
    X[X < 0.3] = 0
    kw = dict(rank=3, n_random_features=100, loss=loss, max_iter=30, random_state=0)
    a = RandomizedEmbeddingClassifier(**kw).fit(X, Y)
    b = RandomizedEmbeddingClassifier(**kw).fit(sp.csr_matrix(X), sp.csr_matrix(Y).toarray())
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(sp.csr_matrix(X)), atol=1e-8)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_n_jobs_invariance(loss):
    X, Y = _problem(c=140)  # three blocks of classes in the logistic read-out
    kw = dict(rank=4, n_random_features=60, loss=loss, max_iter=20, random_state=0)
    a = RandomizedEmbeddingClassifier(n_jobs=1, **kw).fit(X, Y).decision_function(X)
    b = RandomizedEmbeddingClassifier(n_jobs=3, **kw).fit(X, Y).decision_function(X)
    np.testing.assert_array_equal(a, b)


def test_pickle_round_trip():
    X, Y = _problem()
    clf = RandomizedEmbeddingClassifier(rank=3, n_random_features=50, inference="class_f1", random_state=0).fit(X, Y)
    clone = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clf.predict(X), clone.predict(X))
    np.testing.assert_array_equal(clf.predict_proba(X), clone.predict_proba(X))


def test_real_data_quirks_work():
    # a label never positive, examples without labels, a constant feature
    X, Y = _problem()
    Y[:, 0] = 0
    Y[:20] = 0
    X[:, 1] = 3.0
    for loss in ("squared", "logistic"):
        clf = RandomizedEmbeddingClassifier(n_random_features=50, loss=loss, max_iter=20, random_state=0).fit(X, Y)
        assert clf.predict(X)[:, 0].sum() == 0
        assert np.isfinite(clf.predict_proba(X)).all()


@pytest.mark.parametrize("kernel", ["gaussian", "cauchy", "student"])
def test_kernels_fit(kernel):
    X, Y = _problem()
    clf = RandomizedEmbeddingClassifier(rank=3, n_random_features=100, kernel=kernel, random_state=0).fit(X, Y)
    assert np.mean(clf.predict(X) != Y) < Y.mean()


def test_clear_errors():
    X, Y = _problem()
    with pytest.raises(ValueError, match="between 1 and the number of labels"):
        RandomizedEmbeddingClassifier(rank=13).fit(X, Y)
    with pytest.raises(ValueError, match="'rank' parameter of RandomizedEmbeddingClassifier"):
        RandomizedEmbeddingClassifier(rank="spectral80").fit(X, Y)
    with pytest.raises(ValueError, match="n_random_features"):
        RandomizedEmbeddingClassifier(n_random_features=-1).fit(X, Y)
    with pytest.raises(
        ValueError, match="'l2' parameter of RandomizedEmbeddingClassifier must be a float in the range"
    ):
        RandomizedEmbeddingClassifier(l2=0).fit(X, Y)
    with pytest.raises(ValueError, match="0 and 1"):
        randomized_embedding(X, Y * 2, 2)
    with pytest.raises(ValueError, match="solver"):
        randomized_embedding(X, Y, 2, solver="qr")


def test_f1_inference_prefers_top_scores():
    rng = np.random.default_rng(0)
    P = rng.random((50, 4))
    pred = f1_inference(P, [0.1, 0.2, 0.5, 0.9])
    for j in range(4):  # the predicted set is a top-t set of each column
        assert P[pred[:, j] == 1, j].min() >= P[pred[:, j] == 0, j].max()
    assert pred.sum(0)[3] >= pred.sum(0)[0]


def _mulan(name):
    data = pytest.importorskip("mlc_lit.data")
    if not os.path.isdir(os.path.join(DATA, name)):
        pytest.skip(f"{name} not in {DATA}")
    return data.load_dataset(name, DATA, "train")[:2] + data.load_dataset(name, DATA, "test")[:2]


@pytest.mark.slow
def test_yeast_regression():
    Xtr, Ytr, Xte, Yte = _mulan("yeast")
    from mlc_lit.metrics import macro_f1

    clf = RandomizedEmbeddingClassifier(scale=False, random_state=0).fit(Xtr, Ytr)  # the paper's X as given
    Yte = Yte.toarray() if sp.issparse(Yte) else np.asarray(Yte)
    assert np.mean(clf.predict(Xte) != Yte) <= 0.226  # the paper's Table 2 interval
    assert macro_f1(Yte, clf.set_params(inference="class_f1").predict(Xte)) >= 0.428
