"""Property tests of mlc_lit.losses: derivatives against finite differences, stability, head solvers."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from mlc_lit.losses import (example_wise_logistic, example_wise_logistic_loss, label_wise_logistic,
                            label_wise_logistic_loss, label_wise_squared_error, label_wise_squared_error_loss,
                            packed_index, _complete_head, _decomposable_head)

LOSSES = {
    "label_wise_logistic": (label_wise_logistic, label_wise_logistic_loss, False),
    "label_wise_squared_error": (label_wise_squared_error, label_wise_squared_error_loss, False),
    "example_wise_logistic": (example_wise_logistic, example_wise_logistic_loss, True),
}


def _fd(loss, y, s, eps=1e-4):
    K = len(s); E = np.eye(K) * eps
    f = lambda v: loss(y[None], v[None])
    g = np.array([(f(s + E[i]) - f(s - E[i])) / (2 * eps) for i in range(K)])
    H = np.array([[(f(s + E[i] + E[j]) - f(s + E[i] - E[j]) - f(s - E[i] + E[j]) + f(s - E[i] - E[j])) / (4 * eps**2)
                   for j in range(K)] for i in range(K)])
    return g, H


def _unpack(hp, K):
    M = np.empty((K, K))
    for i in range(K):
        for j in range(K): M[i, j] = hp[packed_index(i, j)]
    return M


@st.composite
def rows(draw, max_k=5, bound=6.0):
    K = draw(st.integers(1, max_k))
    y = draw(arrays(np.int8, K, elements=st.integers(0, 1)))
    s = draw(arrays(np.float64, K, elements=st.floats(-bound, bound)))
    return y, s


@pytest.mark.parametrize("name", list(LOSSES))
@settings(max_examples=60, deadline=None)
@given(rows())
def test_derivatives_match_finite_differences(name, row):
    kern, loss, packed = LOSSES[name]
    y, s = row; K = len(s)
    G = np.empty((1, K)); H = np.empty((1, K * (K + 1) // 2 if packed else K))
    kern(y[None], s[None], G, H)
    g_fd, H_fd = _fd(loss, y, s)
    np.testing.assert_allclose(G[0], g_fd, atol=1e-6)
    np.testing.assert_allclose(_unpack(H[0], K) if packed else np.diag(H[0]), H_fd, atol=2e-4)


@pytest.mark.parametrize("name", list(LOSSES))
@settings(max_examples=60, deadline=None)
@given(rows(bound=1e6))
def test_large_scores_stay_finite(name, row):
    kern, loss, packed = LOSSES[name]
    y, s = row; K = len(s)
    G = np.empty((1, K)); H = np.empty((1, K * (K + 1) // 2 if packed else K))
    kern(y[None], s[None], G, H)
    assert np.isfinite(G).all() and np.isfinite(H).all() and np.isfinite(loss(y[None], s[None]))
    if packed:  # the Hessian of a convex loss stays positive semi-definite
        assert np.linalg.eigvalsh(_unpack(H[0], K)).min() > -1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**31), st.floats(1e-3, 10.0))
def test_complete_head_matches_numpy_solve(K, seed, l2):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(K, K + 2)); M = A @ A.T
    g = rng.normal(size=K)
    hp = np.array([M[i, j] for j in range(K) for i in range(j + 1)])
    p = np.empty(K); work = np.empty(K * (K + 1) // 2)
    q = _complete_head(g, hp, l2, p, work)
    expected = np.linalg.solve(M + l2 * np.eye(K), -g)
    np.testing.assert_allclose(p, expected, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(q, g @ expected + 0.5 * expected @ (M + l2 * np.eye(K)) @ expected, rtol=1e-7, atol=1e-12)
    assert q <= 0


def test_decomposable_head_is_diagonal_complete_head():
    rng = np.random.default_rng(1)
    g = rng.normal(size=6); h = rng.uniform(0.1, 2, 6)
    hp = np.zeros(21)
    for k in range(6): hp[packed_index(k, k)] = h[k]
    p1, p2 = np.empty(6), np.empty(6)
    np.testing.assert_allclose(_decomposable_head(g, h, 0.3, p1), _complete_head(g, hp, 0.3, p2, np.empty(21)))
    np.testing.assert_allclose(p1, p2)
