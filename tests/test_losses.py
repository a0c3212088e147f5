"""Property tests of mlc_lit.losses: derivatives against finite differences, stability, head solvers."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from mlc_lit.losses import (
    example_wise_logistic,
    example_wise_logistic_loss,
    label_wise_logistic,
    label_wise_logistic_loss,
    label_wise_squared_error,
    label_wise_squared_error_loss,
    packed_index,
    _complete_head,
    _decomposable_head,
)

LOSSES = {
    "label_wise_logistic": (label_wise_logistic, label_wise_logistic_loss, False),
    "label_wise_squared_error": (label_wise_squared_error, label_wise_squared_error_loss, False),
    "example_wise_logistic": (example_wise_logistic, example_wise_logistic_loss, True),
}


def _fd(loss, y, s, eps=1e-4):
    K = len(s)
    E = np.eye(K) * eps
    f = lambda v: loss(y[None], v[None])
    g = np.array([(f(s + E[i]) - f(s - E[i])) / (2 * eps) for i in range(K)])
    H = np.array(
        [
            [
                (f(s + E[i] + E[j]) - f(s + E[i] - E[j]) - f(s - E[i] + E[j]) + f(s - E[i] - E[j])) / (4 * eps**2)
                for j in range(K)
            ]
            for i in range(K)
        ]
    )
    return g, H


def _unpack(hp, K):
    M = np.empty((K, K))
    for i in range(K):
        for j in range(K):
            M[i, j] = hp[packed_index(i, j)]
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
    y, s = row
    K = len(s)
    G = np.empty((1, K))
    H = np.empty((1, K * (K + 1) // 2 if packed else K))
    kern(y[None], s[None], G, H)
    g_fd, H_fd = _fd(loss, y, s)
    np.testing.assert_allclose(G[0], g_fd, atol=1e-6)
    np.testing.assert_allclose(_unpack(H[0], K) if packed else np.diag(H[0]), H_fd, atol=2e-4)


@pytest.mark.parametrize("name", list(LOSSES))
@settings(max_examples=60, deadline=None)
@given(rows(bound=1e6))
def test_large_scores_stay_finite(name, row):
    kern, loss, packed = LOSSES[name]
    y, s = row
    K = len(s)
    G = np.empty((1, K))
    H = np.empty((1, K * (K + 1) // 2 if packed else K))
    kern(y[None], s[None], G, H)
    assert np.isfinite(G).all() and np.isfinite(H).all() and np.isfinite(loss(y[None], s[None]))
    if packed:  # the Hessian of a convex loss stays positive semi-definite
        assert np.linalg.eigvalsh(_unpack(H[0], K)).min() > -1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**31), st.floats(1e-3, 10.0))
def test_complete_head_matches_numpy_solve(K, seed, l2):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(K, K + 2))
    M = A @ A.T
    g = rng.normal(size=K)
    hp = np.array([M[i, j] for j in range(K) for i in range(j + 1)])
    p = np.empty(K)
    work = np.empty(K * (K + 1) // 2)
    q = _complete_head(g, hp, l2, p, work)
    expected = np.linalg.solve(M + l2 * np.eye(K), -g)
    np.testing.assert_allclose(p, expected, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(
        q, g @ expected + 0.5 * expected @ (M + l2 * np.eye(K)) @ expected, rtol=1e-7, atol=1e-12
    )
    assert q <= 0


def test_decomposable_head_is_diagonal_complete_head():
    rng = np.random.default_rng(1)
    g = rng.normal(size=6)
    h = rng.uniform(0.1, 2, 6)
    hp = np.zeros(21)
    for k in range(6):
        hp[packed_index(k, k)] = h[k]
    p1, p2 = np.empty(6), np.empty(6)
    np.testing.assert_allclose(_decomposable_head(g, h, 0.3, p1), _complete_head(g, hp, 0.3, p2, np.empty(21)))
    np.testing.assert_allclose(p1, p2)


# mlrl-boomer's other losses: squared hinge (label- and example-wise), example-wise squared error
from mlc_lit.losses import (
    example_wise_squared_error,
    example_wise_squared_error_loss,
    example_wise_squared_hinge,
    example_wise_squared_hinge_loss,
    l1_newton_quality,
    l1_newton_step,
    label_wise_squared_hinge,
    label_wise_squared_hinge_loss,
    reg_complete_head,
    reg_decomposable_head,
)

NORM_LOSSES = {
    "hinge": (example_wise_squared_hinge, example_wise_squared_hinge_loss, True),
    "error": (example_wise_squared_error, example_wise_squared_error_loss, False),
}


def _residuals(y, s, hinge):
    if not hinge:
        return s - (2.0 * y - 1.0)
    return np.where(y == 1, np.where(s < 1, s - 1, 0.0), np.where(s > 0, s, 0.0))


@pytest.mark.parametrize("name", list(NORM_LOSSES))
@settings(max_examples=60, deadline=None)
@given(rows(max_k=6))
def test_norm_losses_match_finite_differences_away_from_kinks(name, row):
    kern, loss, hinge = NORM_LOSSES[name]
    y, s = row
    K = len(s)
    r = _residuals(y, s, hinge)
    if r @ r < 1e-2 or (hinge and ((np.abs(s - 1) < 1e-3).any() or (np.abs(s) < 1e-3).any())):
        return
    G = np.empty((1, K))
    Hp = np.empty((1, K * (K + 1) // 2))
    kern(y[None], s[None], G, Hp)
    g_fd, H_fd = _fd(loss, y, s)
    act = r != 0
    np.testing.assert_allclose(G[0], g_fd, atol=1e-6)
    np.testing.assert_allclose(_unpack(Hp[0], K)[np.ix_(act, act)], H_fd[np.ix_(act, act)], atol=1e-3)
    if hinge:
        np.testing.assert_array_equal(np.diag(_unpack(Hp[0], K))[~act], 1.0)  # mlrl-boomer's inactive diagonal


@pytest.mark.parametrize("name", list(NORM_LOSSES))
@settings(max_examples=60, deadline=None)
@given(rows(bound=1e250))
def test_norm_losses_stay_finite_and_convex_for_huge_scores(name, row):
    kern, loss, _ = NORM_LOSSES[name]
    y, s = row
    K = len(s)
    G = np.empty((1, K))
    Hp = np.empty((1, K * (K + 1) // 2))
    kern(y[None], s[None], G, Hp)
    assert np.isfinite(G).all() and np.isfinite(Hp).all() and np.isfinite(loss(y[None], s[None]))
    assert np.abs(G).max() <= 1 + 1e-12  # g = r/‖r‖
    M = _unpack(Hp[0], K)
    assert np.linalg.eigvalsh(M).min() >= -1e-9 * max(1.0, np.abs(M).max())


@settings(max_examples=60, deadline=None)
@given(rows(bound=1e3))
def test_label_wise_squared_hinge_is_the_residual(row):
    y, s = row
    K = len(s)
    G, H = np.empty((1, K)), np.empty((1, K))
    label_wise_squared_hinge(y[None], s[None], G, H)
    r = _residuals(y, s, True)
    np.testing.assert_array_equal(G[0], r)
    np.testing.assert_array_equal(H[0], 1.0)
    np.testing.assert_allclose(label_wise_squared_hinge_loss(y[None], s[None]), 0.5 * r @ r, rtol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.floats(-20, 20), st.floats(0, 5), st.floats(0.01, 3), st.floats(0, 10))
def test_l1_step_minimises_the_regularised_quadratic(g, h, l2, l1):
    grid = np.linspace(-abs(g) / (h + l2) - 1, abs(g) / (h + l2) + 1, 200_001)
    obj = g * grid + 0.5 * (h + l2) * grid**2 + l1 * np.abs(grid)
    p, q = l1_newton_step(g, h, l2, l1), l1_newton_quality(g, h, l2, l1)
    assert abs(p - grid[obj.argmin()]) <= 2 * (grid[1] - grid[0]) and q <= obj.min() + 1e-9
    assert abs(q - (g * p + 0.5 * (h + l2) * p * p + l1 * abs(p))) <= 1e-9 * (1 + abs(q))
    if abs(g) <= l1:
        assert p == 0.0 and q == 0.0


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.integers(0, 2**31), st.floats(0.0, 2.0))
def test_l1_complete_head_brute_force_on_diagonal_and_objective(K, seed, l1):
    rng = np.random.default_rng(seed)
    g = rng.normal(size=K) * 2
    d = rng.uniform(0.1, 2, K)
    hp = np.zeros(K * (K + 1) // 2)
    for k in range(K):
        hp[packed_index(k, k)] = d[k]
    p, p2 = np.empty(K), np.empty(K)
    q = reg_complete_head(g, hp, (0.5, l1), p, np.empty(K * (K + 1) // 2 + K))
    np.testing.assert_allclose(q, reg_decomposable_head(g, d, (0.5, l1), p2), rtol=1e-12, atol=1e-14)
    # brute force over a low-dimensional grid: the diagonal problem is separable, its minimum is the head's
    axes = [np.linspace(-abs(g[k]) / (d[k] + 0.5) - 0.5, abs(g[k]) / (d[k] + 0.5) + 0.5, 2001) for k in range(K)]
    best = sum((g[k] * a + 0.5 * (d[k] + 0.5) * a**2 + l1 * np.abs(a)).min() for k, a in enumerate(axes))
    assert q <= best + 1e-9 and q >= best - 1e-5
