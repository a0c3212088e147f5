"""predict_top_k on every estimator that scores labels: the first k columns of a full stable argsort of the scores
(decision_function where the model has one, else predict_proba), dense and CSR X, every k, and the refusals."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

import mlc_lit.core as core
from mlc_lit.boomer import BoomerClassifier
from mlc_lit.cli import MajorityBaseline
from mlc_lit.metrics import precision_at_k
from mlc_lit.qweighted import BinaryRelevancePerceptron, CalibratedPairwiseClassifier, full_votes
from mlc_lit.rembed import RandomizedEmbeddingClassifier, SmoothLinkClassifier
from mlc_lit.xdcc import MLXGBClassifier, XDCCClassifier

MAKERS = {
    "boomer": lambda: BoomerClassifier(max_rules=5, random_state=0),
    "mlxgb": lambda: MLXGBClassifier(n_estimators=3, max_depth=2),
    "xdcc": lambda: XDCCClassifier(n_estimators=3, max_depth=2, chain_length=2, cv=None),
    "pairwise": lambda: CalibratedPairwiseClassifier(epochs=2),
    "br_perceptron": lambda: BinaryRelevancePerceptron(epochs=2),
    "rembed": lambda: RandomizedEmbeddingClassifier(rank=2, n_random_features=32, random_state=0),
    "rembed_logistic": lambda: RandomizedEmbeddingClassifier(
        rank=2, n_random_features=32, loss="logistic", random_state=0
    ),
    "smooth_link": lambda: SmoothLinkClassifier(n_random_features=32, random_state=0),
    "majority": MajorityBaseline,
}


def _data(n=60, F=5, K=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    Y = (X @ rng.normal(size=(F, K)) + 0.5 * rng.normal(size=(n, K)) > 0.3).astype(int)
    Y[0], Y[1] = 1, 0
    return X, Y


X, Y = _data()


def _scores(m, X):
    return m.decision_function(X) if hasattr(m, "decision_function") else m.predict_proba(X)


@pytest.mark.parametrize("name", MAKERS)
def test_equals_full_argsort(name):
    m = MAKERS[name]().fit(X, Y)
    K = Y.shape[1]
    for Xq in (
        X,
        sp.csr_matrix(X),
    ):  # each against its own scores: sparse and dense products may differ in the last bit
        S = _scores(m, Xq)
        full = np.argsort(-S, axis=1, kind="stable")
        for k in (1, 2, K):
            top, s = m.predict_top_k(Xq, k, return_scores=True)
            np.testing.assert_array_equal(top, full[:, :k])
            np.testing.assert_array_equal(s, np.take_along_axis(S, top, axis=1))
    assert precision_at_k(Y, top_k=m.predict_top_k(X, 3), k=3) == precision_at_k(Y, _scores(m, X), 3)
    with pytest.raises(
        ValueError, match=f"k must be an integer between 1 and the number of labels \\({K}\\), got {K + 1}"
    ):
        m.predict_top_k(X, K + 1)
    with pytest.raises(ValueError, match="got 0"):
        m.predict_top_k(X, 0)
    with pytest.raises(NotFittedError):
        MAKERS[name]().predict_top_k(X, 1)


def test_blocks_do_not_change_the_result(monkeypatch):
    m = MAKERS["rembed"]().fit(X, Y)
    ref = m.predict_top_k(X, 3)
    monkeypatch.setattr(core, "_TOP_K_BLOCK_BYTES", 8 * Y.shape[1] * 7)  # 7 rows per block
    seen = []
    score = type(m)._ranking_scores
    monkeypatch.setattr(type(m), "_ranking_scores", lambda self, Xb: seen.append(Xb.shape[0]) or score(self, Xb))
    np.testing.assert_array_equal(m.predict_top_k(X, 3), ref)
    assert max(seen) == 7 and sum(seen) == len(X)


def test_pairwise_top_k_is_the_votes_ranking():
    "The calibrated max-wins ranking of predict_ranking with the artificial label λ0 (-1) left out, cut at k."
    m = CalibratedPairwiseClassifier(epochs=3).fit(X, Y)
    ranking = m.predict_ranking(X)
    labels_only = np.array([r[r >= 0] for r in ranking])
    np.testing.assert_array_equal(m.predict_top_k(X, Y.shape[1]), labels_only)
    K, Xv = Y.shape[1], m._validate_X(X)
    V = full_votes(m.coef_, Xv)
    beats_l0 = (Xv @ m.coef_[:K, :-1].T + m.coef_[:K, -1]) < 0  # predict_top (QWeighted) ignores λ0's games
    V_labels = V[:, 1:] - beats_l0
    assert np.all(V_labels[np.arange(len(X)), m.predict_top(X)] == V_labels.max(1))


@pytest.mark.parametrize("name", ["boomer", "pairwise", "rembed"])
def test_one_dimensional_targets_rank_classes(name):
    yc = np.argmax(X[:, :3], axis=1) * 10  # classes 0, 10, 20
    m = MAKERS[name]().fit(X, yc)
    top = m.predict_top_k(X, 3)
    np.testing.assert_array_equal(m.classes_[top[:, 0]], m.predict(X))
    if hasattr(m, "predict_proba"):
        np.testing.assert_array_equal(top, np.argsort(-m.predict_proba(X), axis=1, kind="stable"))
    with pytest.raises(ValueError, match="number of classes \\(3\\)"):
        m.predict_top_k(X, 4)
    mb = (
        MAKERS[name]()
        if name != "rembed"
        else RandomizedEmbeddingClassifier(rank=1, n_random_features=32, random_state=0)
    )
    mb.fit(X, X[:, 0] > 0)
    s = np.column_stack([-mb.decision_function(X), mb.decision_function(X)])
    np.testing.assert_array_equal(mb.predict_top_k(X, 2), np.argsort(-s, axis=1, kind="stable"))


class _Linear(core.MultiLabelClassifier):
    "Scores X @ W for a fixed random W: K labels without any fitting cost."

    def __init__(self, K=2000):
        self.K = K

    def _fit(self, X, Y):
        self.W_ = np.random.default_rng(0).normal(size=(X.shape[1], self.K))

    def _decision_function(self, X):
        return X @ self.W_

    def _predict(self, X):
        return (self._decision_function(X) > 0).astype(np.int8)


def test_memory_is_one_block_not_n_by_K(monkeypatch):
    "2,000 rows x 2,000 labels (32 MB of scores) ranked in blocks of 1 MiB: the peak stays a few blocks."
    import tracemalloc

    rng = np.random.default_rng(0)
    Xb = rng.normal(size=(2000, 4))
    m = _Linear().fit(Xb[:10], np.ones((10, 2000), int))
    ref = np.argsort(-m.decision_function(Xb[:300]), axis=1, kind="stable")[:, :5]
    monkeypatch.setattr(core, "_TOP_K_BLOCK_BYTES", 1 << 20)  # 65 rows of 2,000 scores
    tracemalloc.start()
    top = m.predict_top_k(Xb, 5)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    np.testing.assert_array_equal(top[:300], ref)
    assert peak < 6 * (1 << 20), f"peak {peak / 2**20:.1f} MiB for 1 MiB blocks (the full scores are 30.5 MiB)"
