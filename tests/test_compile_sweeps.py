"""BOOMER's rule grower compiles only the sweeps a fit can reach (`boomer._grow_rule_kernel`): which ones, and that
leaving the others out changes no model."""
import numpy as np
import pytest

from mlc_lit import boomer
from mlc_lit.boomer import BoomerClassifier


def _sweeps(*args, **kw):
    g = boomer._grow_rule_kernel(*args, **kw)[1]
    g = getattr(g, "py_func", g)
    return {k: g.__globals__[k] for k in ("SCALAR", "GENERAL", "FROZEN")}


def test_which_sweeps_are_compiled():
    lone = dict(nominal=False, abs_score=False, one_output=False)
    assert _sweeps(1, False, **lone) == dict(SCALAR=True, GENERAL=False, FROZEN=False)        # label-wise single heads
    assert _sweeps(1, False, **{**lone, "nominal": True}) == dict(SCALAR=True, GENERAL=True, FROZEN=True)
    assert _sweeps(1, False, **{**lone, "abs_score": True}) == dict(SCALAR=True, GENERAL=True, FROZEN=False)
    assert _sweeps(1, False, False, False, False, False, True, **lone) == dict(SCALAR=True, GENERAL=True, FROZEN=True)  # l1
    assert _sweeps(2, False, **lone) == dict(SCALAR=False, GENERAL=True, FROZEN=False)        # complete heads
    assert _sweeps(2, False, **{**lone, "one_output": True}) == dict(SCALAR=True, GENERAL=True, FROZEN=False)
    assert _sweeps(2, False, False, False, False, True, **lone) == dict(SCALAR=True, GENERAL=True, FROZEN=True)  # opts
    assert _sweeps(1, False) == dict(SCALAR=True, GENERAL=True, FROZEN=True)                  # the defaults: all


def _data(n=150, F=5, K=4, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, F)), 1)
    X[:, 0] = rng.integers(0, 3, n)                  # a feature that can be declared nominal
    Y = ((X @ rng.normal(size=(F, K)) + 0.5 * rng.normal(size=(n, K))) > 0).astype(np.int8)
    return X, Y


@pytest.mark.parametrize("kw", [dict(), dict(loss="logistic_example_wise", head="complete"),
                                dict(loss="logistic_example_wise", head="complete", K=1)])
def test_same_model_as_with_every_sweep(kw, monkeypatch):
    kw = dict(kw); K = kw.pop("K", 4)
    X, Y = _data(); Y = Y[:, :K]
    pruned = BoomerClassifier(max_rules=30, random_state=1, **kw).fit(X, Y)
    full = boomer._grow_rule_kernel
    monkeypatch.setattr(boomer, "_grow_rule_kernel", lambda *a: full(*a[:8]))    # every sweep compiled in
    every = BoomerClassifier(max_rules=30, random_state=1, **kw).fit(X, Y)
    for a in ("cond_ptr_", "cond_feature_", "cond_threshold_", "cond_op_", "head_ptr_", "head_label_", "head_score_"):
        np.testing.assert_array_equal(getattr(pruned, a), getattr(every, a))
