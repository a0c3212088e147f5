"The SGD read-outs of rembed (softmax, SGD logistic), the linear kernel and CS + LR: seeded, n_jobs- and format-invariant."

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from mlc_lit.core import InsufficientMemoryError
from mlc_lit.rembed import (
    RandomizedEmbeddingClassifier,
    SmoothLinkClassifier,
    gaussian_embedding,
    make_sparse_problem,
    readout_moments,
    sgd_readout_chunk,
    sgd_setup,
)


def _multiclass(n=400, d=8, c=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.argmax(X @ rng.standard_normal((d, c)) + 0.5 * rng.standard_normal((n, c)), axis=1)
    return X, y


@pytest.mark.parametrize("loss,optimizer", [("softmax", "sgd"), ("logistic", "sgd")])
def test_sgd_seeded_and_invariant(loss, optimizer):
    X, Y = make_sparse_problem(500, d=300, c=20, n_topics=10, seed=2)
    if loss == "softmax":
        Y = sp.csr_matrix(np.eye(20)[np.asarray(Y.argmax(axis=1)).ravel()])
    kw = dict(rank=6, n_random_features=80, loss=loss, optimizer=optimizer, n_epochs=3, random_state=1)
    a = RandomizedEmbeddingClassifier(**kw).fit(X, Y.toarray())
    b = RandomizedEmbeddingClassifier(**kw, n_jobs=2).fit(X, Y.toarray())
    c = RandomizedEmbeddingClassifier(**kw).fit(X.toarray(), Y.toarray())
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_allclose(a.coef_, c.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(
        a.predict(X[:20]), RandomizedEmbeddingClassifier(**kw).fit(X, Y.toarray()).predict(X[:20])
    )


def test_softmax_reaches_sklearn_multinomial_optimum():
    X, y = _multiclass()
    prm, st = sgd_setup(
        readout_moments(X),
        np.bincount(y, minlength=5),
        loss="softmax",
        l2=0.02,
        batch_size=len(y),
        learning_rate=0.5,
        momentum=0.5,
        learning_rate_decay=0.0,
    )
    for _ in range(300):
        sgd_readout_chunk(X, y, prm, st)
    ref = LogisticRegression(C=1 / prm.penalty, tol=1e-12, max_iter=10000).fit(X, y)
    np.testing.assert_allclose(prm.Q @ st.V, ref.coef_.T, atol=1e-5)


def test_chunks_in_any_split_train_the_same_setup():
    X, y = _multiclass(seed=1)
    whole = readout_moments(X)
    parts = readout_moments(X[250:], readout_moments(X[:250], shift=X[0]), shift=X[0])
    p1, _ = sgd_setup(whole, np.bincount(y), l2=0.1)
    p2, _ = sgd_setup(parts, np.bincount(y), l2=0.1, shift=X[0])
    np.testing.assert_allclose(p1.mu, p2.mu, atol=1e-12)
    np.testing.assert_allclose(p1.penalty, p2.penalty, rtol=1e-10)


def test_softmax_errors_and_memory_refusal(monkeypatch):
    X, y = _multiclass()
    Y2 = np.eye(5)[y]
    Y2[7, (y[7] + 1) % 5] = 1
    with pytest.raises(ValueError, match="exactly one label per example; row 7 has 2"):
        RandomizedEmbeddingClassifier(rank=2, n_random_features=20, loss="softmax").fit(X, Y2)
    monkeypatch.setenv("MLC_LIT_MEMORY_LIMIT", "1e6")
    with pytest.raises(InsufficientMemoryError, match="SGD read-out"):
        sgd_setup(readout_moments(X), np.ones(50_000), l2=0.1)


def test_linear_kernel_and_cs_lr():
    X, y = _multiclass()
    lin = RandomizedEmbeddingClassifier(rank=3, kernel="linear", loss="softmax", random_state=0).fit(X, y)
    assert lin.coef_.shape == (3, 5) and lin.frequencies_ is None and (lin.predict(X) == y).mean() > 0.6
    cs = RandomizedEmbeddingClassifier(rank=3, embedding="gaussian", n_random_features=50, random_state=0).fit(X, y)
    assert np.isnan(cs.embedding_.singular_values).all()
    emb = gaussian_embedding(X, np.eye(5)[y], 3, random_state=0)
    np.testing.assert_array_equal(emb.U, gaussian_embedding(X, np.eye(5)[y], 3, random_state=0).U)
    sm = SmoothLinkClassifier(n_random_features=30, loss="softmax", random_state=0).fit(X, y)
    np.testing.assert_allclose(sm.predict_proba(X).sum(axis=1), 1.0)
