"""BOOMER's rule grower compiles only the sweeps a fit can reach (`boomer.make_grow_rule`): which ones, and that
leaving the others out changes no model."""

import numpy as np
import pytest

from mlc_lit import boomer
from mlc_lit.boomer import fit as boomer_fit  # where a fit reads `make_grow_rule` and `_has_one_value`
from mlc_lit.boomer import BoomerClassifier


def _closed(f) -> dict:
    "What the function of kernel `f` closes over, by name."
    f = getattr(f, "py_func", f)
    return dict(zip(f.__code__.co_freevars, (cell.cell_contents for cell in f.__closure__ or ())))


def _sweeps(*args, **kw):
    slot = _closed(boomer.make_grow_rule(*args, **kw)[1])["search_slot"]  # the step that runs the sweeps
    closed = _closed(slot)
    return dict(SCALAR=closed["scalar"], GENERAL=closed["general"], FROZEN=closed["frozen"])


def test_which_sweeps_are_compiled():
    lone = dict(nominal=False, abs_score=False, one_output=False, one_value=False)
    assert _sweeps(1, False, **lone) == dict(SCALAR=True, GENERAL=False, FROZEN=False)  # label-wise single heads
    assert _sweeps(1, False, **{**lone, "one_value": True}) == dict(SCALAR=True, GENERAL=True, FROZEN=False)
    assert _sweeps(1, False, **{**lone, "nominal": True}) == dict(SCALAR=True, GENERAL=True, FROZEN=True)
    assert _sweeps(1, False, **{**lone, "abs_score": True}) == dict(SCALAR=True, GENERAL=True, FROZEN=False)
    assert _sweeps(1, False, False, False, False, False, True, **lone) == dict(
        SCALAR=True, GENERAL=False, FROZEN=False
    )  # l1: scalar too
    assert _sweeps(2, False, **lone) == dict(SCALAR=False, GENERAL=True, FROZEN=False)  # complete heads
    assert _sweeps(2, False, **{**lone, "one_output": True}) == dict(SCALAR=True, GENERAL=True, FROZEN=False)
    assert _sweeps(2, False, False, False, False, True, **lone) == dict(SCALAR=True, GENERAL=True, FROZEN=True)  # opts
    assert _sweeps(1, False) == dict(SCALAR=True, GENERAL=True, FROZEN=True)  # the defaults: all


def _data(n=150, F=5, K=4, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, F)), 1)
    X[:, 0] = rng.integers(0, 3, n)  # a feature that can be declared nominal
    Y = ((X @ rng.normal(size=(F, K)) + 0.5 * rng.normal(size=(n, K))) > 0).astype(np.int8)
    return X, Y


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(loss="logistic_example_wise", head="complete"),
        dict(loss="logistic_example_wise", head="complete", K=1),
    ],
)
def test_same_model_as_with_every_sweep(kw, monkeypatch):
    kw = dict(kw)
    K = kw.pop("K", 4)
    X, Y = _data()
    Y = Y[:, :K]
    pruned = BoomerClassifier(max_rules=30, random_state=1, **kw).fit(X, Y)
    full = boomer.make_grow_rule
    monkeypatch.setattr(boomer_fit, "make_grow_rule", lambda *a: full(*a[:8]))  # every sweep compiled in
    every = BoomerClassifier(max_rules=30, random_state=1, **kw).fit(X, Y)
    for a in ("cond_ptr_", "cond_feature_", "cond_threshold_", "cond_op_", "head_ptr_", "head_label_", "head_score_"):
        np.testing.assert_array_equal(getattr(pruned, a), getattr(every, a))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_one_valued_features_take_the_general_sweep_with_the_same_model(sparse, n_jobs, monkeypatch):
    """Binary features, an all-zero one and missing values: the first condition of a single-label rule is searched by
    the general sweep for features with at most one stored value (`_one_value`), by the scalar sweeps per label
    without that route (`_has_one_value` False); the models are identical."""
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    X = (rng.random((200, 12)) < 0.2).astype(float)
    X[:, 3] = 0.0  # no stored value
    X[:, 4] = np.round(rng.normal(size=200), 1)  # many values: the scalar sweeps either way
    X[rng.random(200) < 0.1, 5] = np.nan  # missing values on a binary feature
    Y = ((X[:, :6] @ rng.normal(size=(6, 5)) + 0.3 * rng.normal(size=(200, 5)) > 0.2) & ~np.isnan(X[:, [5]])).astype(
        np.int8
    )
    Xin = sp.csr_matrix(np.nan_to_num(X, nan=0.0)) if sparse else X
    kw = dict(max_rules=40, random_state=2, n_jobs=n_jobs, feature_sampling=None)
    routed = BoomerClassifier(**kw).fit(Xin, Y)
    assert boomer._has_one_value(*boomer._presort(Xin)[:2])
    # GENERAL compiled out: scalar sweeps only
    monkeypatch.setattr(boomer_fit, "_has_one_value", lambda ptr, val: False)
    scalar = BoomerClassifier(**kw).fit(Xin, Y)
    for a in ("cond_ptr_", "cond_feature_", "cond_threshold_", "cond_op_", "head_ptr_", "head_label_", "head_score_"):
        np.testing.assert_array_equal(getattr(routed, a), getattr(scalar, a), err_msg=a)
