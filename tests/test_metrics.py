"""Property tests for mlc_lit.metrics: dense == sparse, agreement with scikit-learn on arbitrary shapes."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays
from sklearn import metrics as skm

from mlc_lit.metrics import (bootstrap_ci, example_f1, hamming_loss, macro_f1, micro_f1,
                             n_labels_without_positives, precision_at_k, subset_zero_one_loss)


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
            skm.f1_score(T, P, average="samples", zero_division=zd), abs=1e-12)
        assert micro_f1(t, p, zero_division=zd) == pytest.approx(
            skm.f1_score(T, P, average="micro", zero_division=zd), abs=1e-12)
        assert macro_f1(t, p, zero_division=zd) == pytest.approx(
            skm.f1_score(T, P, average="macro", zero_division=zd), abs=1e-12)
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
