"""Property tests of the GBLB kernels against slow NumPy references (hypothesis)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mlc_lit.losses import _complete_head
from mlc_lit.binning import (
    _aggregate,
    _aggregate_scratch,
    _aggregate_two,
    _assign_bins,
    _assign_two_bins,
    _criteria,
    BinSettings,
    bins_per_sign,
    binned_complete_head,
    binned_head,
    binning_workspace,
    pack_upper,
    unpack_upper,
)
from mlc_lit.core import kernel

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True)


# ---- slow references ---------------------------------------------------------------------------


def naive_bins(c, bin_ratio, min_bins, max_bins):
    "Bin per label (-1 for c = 0), empty bins removed; also the number of raw bins (before removal)."
    raw, offset = np.full(len(c), -1), 0
    for mask in (c < 0, c > 0):
        n = int(mask.sum())
        if n == 0:
            continue
        B = max(min(min_bins, n), math.ceil(bin_ratio * n))
        B = min(B, max_bins) if max_bins > 0 else B
        lo, hi = c[mask].min(), c[mask].max()
        w = (hi - lo) / B
        q = (c[mask] - lo) / w if w > 0 else np.zeros(n)
        raw[mask] = offset + np.minimum(q, B - 1).astype(int)
        offset += B
    used = np.unique(raw[raw >= 0])
    return np.where(raw >= 0, np.searchsorted(used, raw), -1), offset


def indicator(bin_of):
    Z = np.zeros((len(bin_of), bin_of.max() + 1))
    Z[bin_of >= 0, bin_of[bin_of >= 0]] = 1.0
    return Z


def naive_aggregate(g, H, bin_of, l2, exact):
    K = len(g)
    Hf = unpack_upper(H, K)
    if not exact:
        Hf = np.where((bin_of[:, None] == bin_of[None, :]) & ~np.eye(K, dtype=bool), 0.0, Hf)
    Z = indicator(bin_of)
    return Z.T @ g, Z.T @ (Hf + l2 * np.eye(K)) @ Z


def naive_solve(M, r):
    "M⁻¹r when M is positive definite, else the diagonal solution r_k / m_kk (0 where m_kk <= 0)."
    if np.linalg.eigvalsh(M).min() > 0:
        return np.linalg.solve(M, r)
    d = np.diag(M)
    return np.where(d > 0, r / np.where(d > 0, d, 1.0), 0.0)


def naive_head(g, H, l2, bin_ratio, min_bins, max_bins, exact):
    c = -g / (np.diag(unpack_upper(H, len(g))) + l2)
    b, _ = naive_bins(c, bin_ratio, min_bins, max_bins)
    if (b < 0).all():
        return np.zeros(len(g)), 0.0, b
    gb, Hb = naive_aggregate(g, H, b, l2, exact)
    s = naive_solve(Hb, -gb)
    return np.where(b >= 0, s[np.maximum(b, 0)], 0.0), 0.5 * gb @ s, b


def example_wise_stats(n, K, seed, scale=1.0):
    "Summed g and packed H of the example-wise logistic loss (PSD Hessian) for random labels and scores."
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], size=(n, K))
    z = np.exp(-y * rng.normal(scale=scale, size=(n, K)))
    S = 1.0 + z.sum(1, keepdims=True)
    G = -y * z / S
    return G.sum(0), pack_upper(np.diag((z / S).sum(0)) - G.T @ G)


def objective(g, H, l2, p):
    return g @ p + 0.5 * p @ (unpack_upper(H, len(g)) + l2 * np.eye(len(g))) @ p


def run_bins(c, bin_ratio, min_bins, max_bins):
    K = len(c)
    bin_of, counts, remap = (np.empty(K, np.int64) for _ in range(3))
    n = _assign_bins(np.asarray(c, np.float64), bin_ratio, min_bins, max_bins, bin_of, counts, remap)
    return bin_of, counts[:n].copy()


# ---- strategies ---------------------------------------------------------------------------------

criteria = st.lists(
    st.sampled_from([-2.0, -1.0, -0.3, 0.0, 0.2, 1.5]) | st.floats(-1e3, 1e3, width=32), min_size=1, max_size=60
).map(np.array)
ratios = st.sampled_from([0.04, 0.08, 0.16, 0.32, 0.5, 1.0])
max_bins_st = st.sampled_from([0, 1, 2, 3, 7])


# ---- bins ---------------------------------------------------------------------------------------


@SETTINGS
@given(criteria, ratios, st.integers(1, 4), max_bins_st)
def test_bins_match_numpy(c, bin_ratio, min_bins, max_bins):
    bin_of, counts = run_bins(c, bin_ratio, min_bins, max_bins)
    ref, _ = naive_bins(c, bin_ratio, min_bins, max_bins)
    np.testing.assert_array_equal(bin_of, ref)
    np.testing.assert_array_equal(counts, np.bincount(ref[ref >= 0], minlength=len(counts)))
    assert (counts > 0).all()  # empty bins removed
    assert (bin_of[c == 0] == -1).all() and (bin_of[c != 0] >= 0).all()
    if (c < 0).any() and (c > 0).any():  # signs never share a bin
        assert bin_of[c < 0].max() < bin_of[c > 0].min()
    order = np.argsort(c[c != 0], kind="stable")  # bins are monotone in the criterion
    assert (np.diff(bin_of[c != 0][order]) >= 0).all()


@SETTINGS
@given(criteria, ratios, st.integers(1, 4), max_bins_st)
def test_ties_share_a_bin(c, bin_ratio, min_bins, max_bins):
    c = np.concatenate([c, c[:3]])
    bin_of, _ = run_bins(c, bin_ratio, min_bins, max_bins)
    for v in np.unique(c):
        assert len(np.unique(bin_of[c == v])) == 1


@SETTINGS
@given(st.integers(0, 300), st.integers(0, 300), ratios, st.integers(1, 5), max_bins_st)
def test_bins_per_sign_and_workspace_size(n_neg, n_pos, bin_ratio, min_bins, max_bins):
    for n in (n_neg, n_pos):
        b = bins_per_sign(n, bin_ratio, min_bins, max_bins)
        expected = 0 if n == 0 else max(min(min_bins, n), math.ceil(bin_ratio * n))
        if max_bins and n:
            expected = min(expected, max_bins)
        assert b == expected and b <= n
    K = n_neg + n_pos
    if K == 0:
        return
    c = np.concatenate([-np.linspace(1, 2, n_neg), np.linspace(1, 2, n_pos)])  # spread: every raw bin used
    ws = binning_workspace(K, bin_ratio, min_bins, max_bins if max_bins >= min_bins else None)
    _, raw = naive_bins(c, bin_ratio, min_bins, max_bins if max_bins >= min_bins else 0)
    assert raw <= len(ws[2]) and len(ws[5]) == len(ws[2]) * (len(ws[2]) + 1) // 2


def test_max_bins_caps_and_one_sign_only():
    c = np.linspace(0.1, 5.0, 100)
    assert run_bins(c, 0.32, 1, 0)[1].size == 32
    assert run_bins(c, 0.32, 1, 5)[1].size == 5
    assert run_bins(-c, 0.32, 1, 5)[1].size == 5
    assert run_bins(c, 0.04, 1, 0)[1].tolist() == [25, 25, 25, 25]


@SETTINGS
@given(st.integers(1, 45), st.integers(0, 2**16), st.sampled_from(["mixed", "positive", "negative", "none"]))
def test_two_bins_are_the_signs_of_the_criteria(K, seed, signs):
    "With one bin per sign, `_assign_two_bins` = `_criteria` + `_assign_bins`; its masks mark each bin's labels."
    rng = np.random.default_rng(seed)
    g = rng.normal(size=K) * (rng.random(K) < 0.8) * 10.0 ** rng.uniform(-300, 300, K)
    g = {"mixed": g, "positive": np.abs(g), "negative": -np.abs(g), "none": 0.0 * g}[signs]
    H = rng.normal(size=K * (K + 1) // 2)
    H[[k + k * (k + 1) // 2 for k in range(K)]] = rng.uniform(-2.0, 2.0, K)  # h_kk + 1 <= 0: criterion 0
    bin_of, masks = np.empty(K, np.int64), np.empty(2 * K)
    n, n0, n1 = _assign_two_bins(g, H, 1.0, bin_of, masks)
    c = np.empty(K)
    _criteria(g, H, 1.0, c)
    b_ref, counts_ref = run_bins(c, 0.001, 1, 0)
    np.testing.assert_array_equal(bin_of, b_ref)
    assert [n0, n1][:n] == counts_ref.tolist()
    np.testing.assert_array_equal(masks, np.concatenate([bin_of == 0, bin_of == 1]).astype(float))


# ---- aggregation --------------------------------------------------------------------------------


@SETTINGS
@given(
    st.one_of(st.integers(1, 30), st.integers(48, 90)), st.integers(1, 20), ratios, st.booleans(), st.integers(0, 2**16)
)
def test_aggregation_matches_numpy_and_eq18_drops_within_bin_cross_terms(K, n, bin_ratio, exact, seed):
    "Rows per bin (any bins) and, with at most two bins, the sums through masks; labels without a bin."
    g, H = example_wise_stats(n, K, seed)
    g[np.random.default_rng(seed).random(K) < 0.2] = 0.0
    c = np.empty(K)
    _criteria(g, H, 1.0, c)
    np.testing.assert_array_equal(c, -g / (np.diag(unpack_upper(H, K)) + 1.0))
    b, counts = run_bins(c, bin_ratio, 1, 0)
    B = len(counts)
    out = {}
    for ex in (False, True):
        g_bin, H_bin = np.empty(B), np.empty(B * (B + 1) // 2)
        _aggregate(g, H, b, counts, B, 1.0, ex, np.empty(_aggregate_scratch(B, len(g))), g_bin, H_bin)
        gb, Hb = naive_aggregate(g, H, b, 1.0, ex)
        np.testing.assert_allclose(g_bin, gb, atol=1e-12)
        np.testing.assert_allclose(unpack_upper(H_bin, B), Hb, atol=1e-12)
        out[ex] = unpack_upper(H_bin, B)
        if 1 <= B <= 2:
            g2, H2 = np.empty(2), np.empty(3)
            _aggregate_two(g, H, b, ex, np.concatenate([b == 0, b == 1]).astype(float), g2, H2)
            H2[0] += counts[0]
            if B == 2:
                H2[2] += counts[1]
            np.testing.assert_allclose(g2[:B], gb, atol=1e-12)
            np.testing.assert_allclose(unpack_upper(H2, 2)[:B, :B], Hb, atol=1e-12)
    Hf = unpack_upper(H, K)
    within = [Hf[np.ix_(b == q, b == q)].sum() - np.diag(Hf)[b == q].sum() for q in range(B)]
    np.testing.assert_allclose(out[True] - out[False], np.diag(within), atol=1e-12)


# ---- solver -------------------------------------------------------------------------------------


def solve_like_binned_head(M, r):
    "M x = r by `_complete_head` called as `binned_head` calls it (ω = 0, factor in a separate work array)."
    n = len(r)
    x = np.empty(n)
    Mp = pack_upper(M)
    q = _complete_head(-r, Mp, 0.0, x, np.empty(n * (n + 1) // 2))
    np.testing.assert_array_equal(Mp, pack_upper(M))  # the matrix itself is left alone
    assert q == pytest.approx(-0.5 * r @ x, rel=1e-9, abs=1e-12)
    return x


@SETTINGS
@given(st.integers(1, 40), st.integers(0, 2**16), st.sampled_from([1e-3, 0.1, 10.0]))
def test_bin_solver_matches_numpy_solve(n, seed, ridge):
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, n))
    M, b = F @ F.T + ridge * np.eye(n), rng.normal(size=n)
    x = solve_like_binned_head(M, b)
    np.testing.assert_allclose(M @ x, b, atol=1e-7 * max(1.0, np.abs(b).max()) * np.linalg.cond(M) ** 0.5)
    np.testing.assert_allclose(x, np.linalg.solve(M, b), rtol=1e-6, atol=1e-8 * np.linalg.cond(M))


@SETTINGS
@given(st.integers(2, 12), st.integers(0, 2**16))
def test_bin_solver_falls_back_to_the_diagonal_when_not_positive_definite(n, seed):
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.normal(size=(n, n)))[0]
    ev = rng.uniform(0.1, 2.0, n)
    ev[rng.integers(n)] = -rng.uniform(0.1, 1.0)  # one eigenvalue < 0
    M, b = Q @ np.diag(ev) @ Q.T, rng.normal(size=n)
    np.testing.assert_allclose(solve_like_binned_head(M, b), naive_solve(M, b), rtol=1e-12, atol=1e-12)


def test_bin_solver_indefinite_and_singular():
    for M, b, x in [
        (np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([1.0, 0.0]), [1.0, 0.0]),
        (np.array([[2.0, 1.0, 0.0], [1.0, -3.0, 1.0], [0.0, 1.0, 4.0]]), np.array([1.0, 2.0, 3.0]), [0.5, 0.0, 0.75]),
        (np.ones((3, 3)), np.ones(3), [1.0, 1.0, 1.0]),
        (np.zeros((1, 1)), np.ones(1), [0.0]),
    ]:
        np.testing.assert_allclose(solve_like_binned_head(M, b), x)
        np.testing.assert_allclose(naive_solve(M, b), x)


def test_indefinite_eq18_system_gets_the_diagonal_head():
    # two labels in one bin, a third in the other; eq. 18 drops the strong within-bin coupling,
    # leaving a binned matrix [[2, 1.8], [1.8, 1]] (l2 = 0) that is indefinite
    M = np.array([[1.0, -0.9, 0.9], [-0.9, 1.0, 0.9], [0.9, 0.9, 1.0]])
    g = np.array([-1.0, -1.1, 1.0])
    p, q, b = binned_complete_head(g, pack_upper(M), 0.0)
    assert b[0] == b[1] != b[2] and (b >= 0).all()
    gb, Hb = naive_aggregate(g, pack_upper(M), b, 0.0, False)
    assert np.linalg.eigvalsh(Hb).min() < 0
    s = -gb / np.diag(Hb)
    np.testing.assert_allclose(p, s[b])
    assert q == pytest.approx(0.5 * gb @ s)


# ---- the binned head ----------------------------------------------------------------------------


@SETTINGS
@given(
    st.one_of(st.integers(1, 30), st.integers(48, 90)),
    st.integers(1, 25),
    st.sampled_from([0.1, 1.0, 5.0]),
    st.sampled_from([0.0, 0.3, 1.0]),
    ratios,
    st.integers(1, 3),
    max_bins_st,
    st.booleans(),
    st.integers(0, 2**16),
)
def test_binned_head_matches_brute_force(K, n, scale, l2, bin_ratio, min_bins, max_bins, exact, seed):
    g, H = example_wise_stats(n, K, seed, scale)
    g[np.random.default_rng(seed + 1).random(K) < 0.25] = 0.0
    if l2 == 0.0:
        H = H + pack_upper(0.05 * np.eye(K))
    max_bins = max_bins if max_bins >= min_bins else None
    p, q, b = binned_complete_head(g, H, l2, bin_ratio=bin_ratio, min_bins=min_bins, max_bins=max_bins, exact=exact)
    p0, q0, b0 = naive_head(g, H, l2, bin_ratio, min_bins, max_bins or 0, exact)
    np.testing.assert_array_equal(b, b0)
    np.testing.assert_allclose(p, p0, atol=1e-8)
    assert q == pytest.approx(q0, abs=1e-9) and q <= 1e-12
    assert (p[g == 0] == 0).all()


@SETTINGS
@given(st.integers(2, 24), st.integers(2, 25), st.sampled_from([0.5, 2.0]), ratios, st.integers(0, 2**16))
def test_exact_binning_is_the_objective_restricted_to_bin_constant_heads(K, n, scale, bin_ratio, seed):
    g, H = example_wise_stats(n, K, seed, scale)
    p, q, b = binned_complete_head(g, H, 1.0, bin_ratio=bin_ratio, exact=True)
    if (b < 0).all():
        return
    # (i) the quality is the original objective at the scattered head
    assert objective(g, H, 1.0, p) == pytest.approx(q, abs=1e-10)
    # (ii) the bin scores minimise the original objective over all bin-constant heads (least squares)
    Z = indicator(b)
    L = np.linalg.cholesky(unpack_upper(H, K) + np.eye(K))
    s = np.linalg.lstsq(L.T @ Z, -np.linalg.solve(L, g), rcond=None)[0]
    np.testing.assert_allclose(Z @ s, p, atol=1e-8)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        assert objective(g, H, 1.0, Z @ (s + rng.normal(scale=0.05, size=Z.shape[1]))) >= q - 1e-12
    # eq. 18 uses the same bins and is never better on the original objective
    p18, _, b18 = binned_complete_head(g, H, 1.0, bin_ratio=bin_ratio)
    np.testing.assert_array_equal(b18, b)
    assert objective(g, H, 1.0, p18) >= q - 1e-12


def test_edge_cases():
    p, q, b = binned_complete_head(np.array([-2.0]), np.array([3.0]), 1.0)  # K = 1
    assert p.tolist() == [0.5] and q == -0.5 and b.tolist() == [0]
    p, q, b = binned_complete_head(np.zeros(5), pack_upper(np.eye(5)), 1.0)  # no gradient at all
    assert (p == 0).all() and q == 0.0 and (b == -1).all()
    g, H = example_wise_stats(10, 6, 0)
    g = -np.abs(g) - 0.1  # all criteria positive
    p, q, b = binned_complete_head(g, H, 1.0, bin_ratio=0.04)
    assert (b == 0).all() and np.allclose(p, p[0]) and p[0] > 0
    p, q, b = binned_complete_head(np.array([1.0, -1.0]), pack_upper(np.zeros((2, 2))), 0.0)  # h + l2 = 0
    assert (p == 0).all() and q == 0.0 and (b == -1).all()


def test_singular_binned_system_gives_zero_head():
    # l2 = 0 and a Hessian whose single bin has zero curvature with the exact reduction: the diagonal
    # fallback divides by h̃_bb = 0, so the score is 0
    H = pack_upper(np.array([[1.0, -1.0], [-1.0, 1.0]]))
    p, q, b = binned_complete_head(np.array([-1.0, -1.0]), H, 0.0, exact=True)
    assert (b == 0).all() and (p == 0).all() and q == 0.0


def test_bad_parameters():
    with pytest.raises(ValueError, match="bin_ratio"):
        binning_workspace(5, bin_ratio=1.5)
    with pytest.raises(ValueError, match="min_bins"):
        binning_workspace(5, min_bins=0)
    with pytest.raises(ValueError, match="max_bins"):
        binning_workspace(5, min_bins=2, max_bins=1)
    with pytest.raises(ValueError, match="packed H"):
        binned_complete_head(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="l2"):
        binned_complete_head(np.zeros(2), np.zeros(3), l2=-1.0)


@kernel()
def _search(g, H, n_candidates, ws, head):
    "A stand-in for a rule search: many candidates (scaled statistics), one workspace, best quality."
    best = 0.0
    for r in range(n_candidates):
        w = (r + 1.0) / n_candidates
        q = binned_head(g * w, H * w, 1.0, BinSettings(bin_ratio=0.04, min_bins=1, max_bins=0, exact=False), ws, head)
        best = min(best, q)
    return best


def test_callable_from_another_kernel_with_one_workspace():
    g, H = example_wise_stats(30, 40, 3)
    best = _search(g, H, 50, binning_workspace(40), np.empty(40))
    assert best == pytest.approx(min(binned_complete_head(g * w, H * w, 1.0)[1] for w in np.arange(1, 51) / 50))


# ---- wired into BoomerClassifier ----------------------------------------------------------------


def _boomer_data(n=120, F=5, K=9, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    Y = ((X @ rng.normal(size=(F, K)) + rng.normal(scale=0.5, size=(n, K))) > 0.3).astype(np.int8)
    return X, Y


def _heads(m):
    return [m.head_score_[m.head_ptr_[r] : m.head_ptr_[r + 1]] for r in range(m.n_rules_)]


@pytest.mark.parametrize("bin_ratio, max_bins, per_sign", [(0.04, None, 1), (0.5, 2, 2)])
def test_boomer_binned_heads_share_scores_per_bin(bin_ratio, max_bins, per_sign):
    from mlc_lit.boomer import BoomerClassifier

    X, Y = _boomer_data()
    m = BoomerClassifier(
        loss="logistic_example_wise",
        head="complete",
        max_rules=15,
        label_binning="equal_width",
        bin_ratio=bin_ratio,
        max_bins=max_bins,
        random_state=0,
    ).fit(X, Y)
    assert m.n_rules_ > 1
    for h in _heads(m):  # the default rule too: at most `per_sign` distinct scores of each sign
        assert len(np.unique(h[h > 0])) <= per_sign and len(np.unique(h[h < 0])) <= per_sign
    # the default rule's head is the binned head of the summed statistics (no shrinkage)
    z = np.exp(-(2.0 * Y - 1) * 0.0)
    S = 1.0 + z.sum(1, keepdims=True)
    G = -(2.0 * Y - 1) * z / S
    H = pack_upper(np.diag((z / S).sum(0)) - G.T @ G)
    p, _, _ = binned_complete_head(G.sum(0), H, 1.0, bin_ratio=bin_ratio, max_bins=max_bins)
    np.testing.assert_allclose(_heads(m)[0], p, atol=1e-12)
    assert m.predict(X).shape == Y.shape


def test_boomer_binning_is_n_jobs_invariant_and_ignored_where_it_does_not_apply():
    from mlc_lit.boomer import BoomerClassifier

    X, Y = _boomer_data(seed=1)
    kw = dict(loss="logistic_example_wise", head="complete", max_rules=12, label_binning="equal_width", random_state=3)
    a, b = BoomerClassifier(**kw).fit(X, Y), BoomerClassifier(**kw, n_jobs=2).fit(X, Y)
    np.testing.assert_array_equal(a.head_score_, b.head_score_)
    np.testing.assert_array_equal(a.cond_threshold_, b.cond_threshold_)
    kw = dict(loss="logistic_label_wise", max_rules=12, random_state=3)
    a, b = BoomerClassifier(**kw).fit(X, Y), BoomerClassifier(**kw, label_binning="equal_width").fit(X, Y)
    np.testing.assert_array_equal(a.head_score_, b.head_score_)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(label_binning="equal_frequency"), "label_binning"),
        (dict(label_binning="equal_width", bin_ratio=0.0), "bin_ratio"),
        (dict(label_binning="equal_width", min_bins=2, max_bins=1), "max_bins"),
    ],
)
def test_boomer_bad_binning_parameters(params, match):
    from mlc_lit.boomer import BoomerClassifier

    X, Y = _boomer_data(n=20)
    with pytest.raises(ValueError, match=match):
        BoomerClassifier(loss="logistic_example_wise", max_rules=2, **params).fit(X, Y)
