"""Property tests for mlc_lit.metrics: dense == sparse, agreement with scikit-learn on arbitrary shapes."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays
from sklearn import metrics as skm

from mlc_lit.metrics import (
    bootstrap_ci,
    example_f1,
    hamming_loss,
    label_propensities,
    macro_f1,
    micro_f1,
    n_labels_without_positives,
    ndcg_at_k,
    precision_at_k,
    psndcg_at_k,
    psp_at_k,
    subset_zero_one_loss,
    topk_scorer,
)


@st.composite
def pairs(draw):
    # K >= 2: scikit-learn reads a single column as a binary (not multi-label) target
    n, K = draw(st.integers(1, 25)), draw(st.integers(2, 8))
    T = draw(arrays(np.int8, (n, K), elements=st.integers(0, 1)))
    P = draw(arrays(np.int8, (n, K), elements=st.integers(0, 1)))
    return T, P


@settings(max_examples=60, deadline=None)
@given(pairs(), st.sampled_from([0.0, 1.0]))
def test_matches_sklearn_and_sparse(tp, zd):
    T, P = tp
    for t, p in [(T, P), (sp.csr_matrix(T), sp.csr_matrix(P)), (sp.csr_array(T), P)]:
        assert hamming_loss(t, p) == pytest.approx(skm.hamming_loss(T, P), abs=1e-12)
        assert subset_zero_one_loss(t, p) == pytest.approx(1 - skm.accuracy_score(T, P), abs=1e-12)
        assert example_f1(t, p, zero_division=zd) == pytest.approx(
            skm.f1_score(T, P, average="samples", zero_division=zd), abs=1e-12
        )
        assert micro_f1(t, p, zero_division=zd) == pytest.approx(
            skm.f1_score(T, P, average="micro", zero_division=zd), abs=1e-12
        )
        assert macro_f1(t, p, zero_division=zd) == pytest.approx(
            skm.f1_score(T, P, average="macro", zero_division=zd), abs=1e-12
        )
    assert macro_f1(T, P, return_n_empty=True)[1] == n_labels_without_positives(T) == int((T.sum(0) == 0).sum())


@settings(max_examples=40, deadline=None)
@given(pairs(), st.data())
def test_precision_at_k_bounds_and_sparse(tp, data):
    T, _ = tp
    k = data.draw(st.integers(1, T.shape[1]))
    S = data.draw(arrays(np.float64, T.shape, elements=st.floats(-3, 3)))
    v = precision_at_k(T, S, k)
    assert 0.0 <= v <= 1.0
    assert v == precision_at_k(sp.csr_matrix(T), S, k)
    # scoring the true labels highest is optimal: P@k = mean(min(|Y_i|, k)) / k
    best = np.mean(np.minimum(T.sum(1), k)) / k
    assert precision_at_k(T, T + 0.0, k) == pytest.approx(best)
    assert v <= best + 1e-12


def test_bootstrap_reproducible_and_covers_estimate():
    rng = np.random.default_rng(3)
    T = (rng.random((80, 5)) < 0.3).astype(int)
    P = (rng.random((80, 5)) < 0.3).astype(int)
    for m in (hamming_loss, subset_zero_one_loss, example_f1, micro_f1, macro_f1):
        a = bootstrap_ci(m, T, P, n_boot=100, seed=7)
        assert a == bootstrap_ci(m, T, P, n_boot=100, seed=7)
        assert a.low <= a.estimate <= a.high
        assert a.estimate == pytest.approx(m(T, P))
        b = bootstrap_ci(m, T, P, n_boot=100, seed=7, method="basic")
        assert b.high - b.estimate == pytest.approx(a.estimate - a.low)


def test_bad_input_messages():
    with pytest.raises(ValueError, match="different shapes"):
        hamming_loss(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="only 0 and 1"):
        example_f1([[0, 2]], [[0, 1]])
    with pytest.raises(ValueError, match="2-D"):
        micro_f1([0, 1], [0, 1])
    with pytest.raises(TypeError, match="numeric"):
        macro_f1([["a"]], [[1]])


def _slow_ranking(Y, S, k, w):
    "Loops: P@k, nDCG@k, PSP@k and PSnDCG@k (normalised by the totals of the best rankings); w = 1/propensity."
    n, K = Y.shape
    p = nd = psp = best_psp = psd = best_psd = 0.0
    for i in range(n):
        r = sorted(range(K), key=lambda l: -S[i, l])[:k]
        tw = sorted((w[l] for l in range(K) if Y[i, l]), reverse=True)[:k]
        disc = [1 / math.log2(j + 2) for j in range(k)]
        p += sum(Y[i, l] for l in r) / k
        ideal = sum(disc[: len(tw)])
        nd += sum(Y[i, l] * disc[j] for j, l in enumerate(r)) / ideal if ideal else 0.0
        psp += sum(Y[i, l] * w[l] for l in r) / k
        best_psp += sum(tw) / k
        psd += sum(Y[i, l] * w[l] * disc[j] for j, l in enumerate(r))
        best_psd += sum(v * d for v, d in zip(tw, disc))
    return p / n, nd / n, psp / best_psp if best_psp else 0.0, psd / best_psd if best_psd else 0.0


@st.composite
def ranked(draw):
    "True labels (some rows and labels empty), tied scores, and a k that may exceed the number of labels."
    n, K = draw(st.integers(1, 20)), draw(st.integers(1, 9))
    T = draw(arrays(np.int8, (n, K), elements=st.integers(0, 1)))
    S = draw(arrays(np.float64, (n, K), elements=st.sampled_from([0.0, 0.25, 0.5, 1.0, -2.0])))
    return T, S, draw(st.integers(1, K + 2))


@settings(max_examples=80, deadline=None)
@given(ranked())
def test_ranking_metrics_match_loops(tsk):
    T, S, k = tsk
    K = T.shape[1]
    p = label_propensities(np.vstack([T, np.ones((3, K), np.int8)]))  # >= 3 training rows
    metrics = (
        precision_at_k,
        ndcg_at_k,
        lambda *a, **kw: psp_at_k(*a, propensities=p, **kw),
        lambda *a, **kw: psndcg_at_k(*a, propensities=p, **kw),
    )
    if k > K:  # never clipped: the same error for every metric and form
        for m in metrics:
            for args, kw in (
                ((T, S, k), {}),
                ((T,), {"top_k": np.zeros((len(T), K), np.int64) + np.arange(K), "k": k}),
            ):
                with pytest.raises(
                    ValueError, match=f"k must be an integer between 1 and the number of labels \\({K}\\), got {k}"
                ):
                    m(*args, **kw)
        return
    ref = _slow_ranking(T, S, k, 1 / p)
    top = np.argsort(-S, axis=1, kind="stable")[:, :k]
    for m, r in zip(metrics, ref):
        for got in (m(T, S, k), m(sp.csr_matrix(T), sp.csr_matrix(S), k), m(sp.csr_array(T), top_k=top, k=k)):
            assert got == pytest.approx(r, abs=1e-12)


def test_topk_scorer_cross_validate_with_an_mlc_lit_estimator():
    from sklearn.model_selection import cross_validate
    from mlc_lit.qweighted import BinaryRelevancePerceptron

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 4))
    Y = (X[:, :3] + 0.3 * rng.normal(size=(90, 3)) > 0).astype(int)
    p = label_propensities(Y)
    res = cross_validate(
        BinaryRelevancePerceptron(),
        X,
        Y,
        cv=3,
        return_estimator=True,
        return_indices=True,
        scoring={"p": topk_scorer(precision_at_k, 2), "psp": topk_scorer(psp_at_k, 2, propensities=p)},
    )
    for f, (est, te) in enumerate(zip(res["estimator"], res["indices"]["test"])):
        S = est.decision_function(X[te])
        assert res["test_p"][f] == pytest.approx(precision_at_k(Y[te], S, 2))
        assert res["test_psp"][f] == pytest.approx(psp_at_k(Y[te], S, 2, propensities=p))
