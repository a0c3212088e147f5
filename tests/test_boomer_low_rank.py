"""The low-rank statistics of the example-wise loss ([g, Hessian diagonal], 2K values per example) against the
packed ones (K + K(K+1)/2): identical models, on real data and on hypothesis-drawn problems."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import mlc_lit.boomer as boomer
import mlc_lit.boomer.fit as boomer_fit  # where `_LOW_RANK` is read
from mlc_lit.boomer import BoomerClassifier, _fit_bytes, _use_low_rank
from mlc_lit.losses import LOSS_LOGISTIC_EXAMPLE_WISE, LOSS_LOGISTIC_LABEL_WISE

ATTRS = ("cond_ptr_", "cond_feature_", "cond_threshold_", "cond_op_", "head_ptr_", "head_label_")
CONFIGS = {
    "b": dict(loss="logistic_example_wise", head="complete"),
    "c": dict(loss="logistic_example_wise", head="complete", label_binning="equal_width"),
    "single": dict(loss="logistic_example_wise", head="single"),
    "nominal": dict(loss="logistic_example_wise", head="complete", nominal_features=[0]),  # the nominal sweep
    "beam": dict(
        loss="logistic_example_wise",
        head="complete",
        rule_induction="top_down_beam_search",
        rule_induction_options={"beam_width": 3},
    ),
}


def _fit_both(monkeypatch, params, X, Y):
    out = []
    for low_rank in (False, True):
        monkeypatch.setattr(boomer_fit, "_LOW_RANK", low_rank)
        out.append(BoomerClassifier(**params).fit(X, Y))
    return out


def _assert_same(a, b, Xt):
    for attr in ATTRS:
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr), err_msg=attr)
    np.testing.assert_allclose(b.head_score_, a.head_score_, rtol=1e-9, atol=0)
    np.testing.assert_array_equal(a.predict(Xt), b.predict(Xt))
    np.testing.assert_allclose(b.decision_function(Xt), a.decision_function(Xt), rtol=1e-9, atol=1e-12)


def test_choice():
    assert not _use_low_rank(LOSS_LOGISTIC_LABEL_WISE, 500)
    assert _use_low_rank(LOSS_LOGISTIC_EXAMPLE_WISE, 983)
    assert not _use_low_rank(LOSS_LOGISTIC_EXAMPLE_WISE, boomer._LOW_RANK_FROM - 1)


def test_memory_estimate_delicious_shape():
    "Complete heads on 983 labels x 12 920 examples: about 47 GiB packed, well under 2 GiB low-rank (9 slots)."
    n, K, F = 12920, 983, 500
    packed = _fit_bytes(n, K, 9, LOSS_LOGISTIC_EXAMPLE_WISE, 2, False, n * F)
    low = _fit_bytes(n, K, 9, LOSS_LOGISTIC_EXAMPLE_WISE, 2, True, n * F)
    assert packed > 45 * 2**30 and low < 1.5 * 2**30


@pytest.mark.slow  # real data, 40 fits
@pytest.mark.parametrize("name, rules", [("emotions", 60), ("yeast", 8)])
@pytest.mark.parametrize("config", ["b", "c", "single", "nominal", "beam"])
@pytest.mark.parametrize("sampling", [None, "bootstrap"])
def test_real_data(monkeypatch, name, rules, config, sampling):
    data_dir = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
    if not os.path.isdir(os.path.join(data_dir, name)):
        pytest.skip(f"no ../shared/data/{name}")
    from mlc_lit.bench import load_split

    X, Y, Xt, _, _ = load_split(name, data_dir)
    params = dict(CONFIGS[config], max_rules=rules, random_state=1, instance_sampling=sampling)
    _assert_same(*_fit_both(monkeypatch, params, X, Y), Xt)


@st.composite
def problems(draw):
    n, F, K = draw(st.integers(2, 40)), draw(st.integers(1, 4)), draw(st.integers(1, 7))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, F)), 1)
    X[rng.random(X.shape) < draw(st.floats(0, 0.5))] = 0.0
    if draw(st.booleans()):
        X[rng.random(X.shape) < 0.1] = np.nan
    kind = draw(st.sampled_from(["random", "zeros", "ones", "mixed"]))
    Y = (rng.random((n, K)) < 0.4).astype(np.int8)
    if kind == "zeros":
        Y[:] = 0
    if kind == "ones":
        Y[:] = 1
    if kind == "mixed":
        Y[: n // 2] = 0
        Y[n // 2 :] = 1
    params = dict(
        draw(st.sampled_from(list(CONFIGS.values()))),
        max_rules=draw(st.integers(1, 12)),
        random_state=seed,
        instance_sampling=draw(st.sampled_from([None, "bootstrap", "subsample"])),
        shrinkage=draw(st.sampled_from([0.3, 1.0, 5.0])),  # 5: large scores, p near 0 or 1
        l2=draw(st.sampled_from([0.0, 1e-3, 1.0])),
        feature_sampling=None,
    )
    if params.get("label_binning"):
        params.update(bin_ratio=draw(st.sampled_from([0.04, 0.5, 1.0])), exact_binning=draw(st.booleans()))
    return X, Y, params


def _low_rank_is_packed(problem):
    "Fits with packed and with low-rank statistics on one drawn problem: the same model."
    X, Y, params = problem
    import warnings

    fits = []
    for low_rank in (False, True):
        boomer_fit._LOW_RANK = low_rank
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fits.append(BoomerClassifier(**params).fit(X, Y))
        finally:
            boomer_fit._LOW_RANK = None
    _assert_same(*fits, X)
    assert np.isfinite(fits[1].head_score_).all()


# most drawn problems take a configuration of their own, which compiles its own kernels: a few in the fast tier
@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(problems())
def test_hypothesis_problems(problem):
    _low_rank_is_packed(problem)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(problems())
def test_hypothesis_problems_more(problem):
    _low_rank_is_packed(problem)


@pytest.mark.parametrize("config", ["b", "c"])
def test_low_rank_n_jobs_csr_pickle(monkeypatch, config):
    "On low-rank statistics the model does not depend on n_jobs or on dense vs CSR input, and survives pickling."
    import pickle
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(150, 5)), 1)
    X[rng.random(X.shape) < 0.4] = 0.0
    Y = ((X @ rng.normal(size=(5, 6)) + 0.3 * rng.normal(size=(150, 6))) > 0).astype(np.int8)
    monkeypatch.setattr(boomer_fit, "_LOW_RANK", True)
    params = dict(CONFIGS[config], max_rules=15, random_state=0, feature_sampling=None)
    ref = BoomerClassifier(**params).fit(X, Y)
    for other in (
        BoomerClassifier(**params, n_jobs=2).fit(X, Y),
        BoomerClassifier(**params).fit(sp.csr_matrix(X), Y),
        pickle.loads(pickle.dumps(ref)),
    ):
        _assert_same(ref, other, X)
