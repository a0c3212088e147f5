"""`statistic_type='float32'`: each example's gradients and Hessians stored in single precision (mlrl-boomer's
`statistic_type='32-bit'`), every sum, head and score in double precision."""

import functools
import pickle

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit import boomer
from mlc_lit.boomer import fit as boomer_fit  # where a fit calls `_refresh_stats`
from mlc_lit.boomer import BoomerClassifier
from _boomer_fixtures import data, dense_and_csr, one_and_two_jobs, same

_data = functools.partial(data, n=160, F=6, K=4, seed=3)
CONFIGS = {
    "label_wise": dict(),
    "complete": dict(loss="logistic_example_wise", head="complete"),
    "label_binning": dict(loss="logistic_example_wise", head="complete", label_binning="equal_width"),
    "feature_binning": dict(feature_binning="equal_frequency"),
    "irep": dict(instance_sampling="subsample", rule_pruning="irep"),
    "beam": dict(rule_induction="top_down_beam_search"),
    "partial": dict(head="partial_dynamic"),
}


def _make(cfg, **kw):
    return BoomerClassifier(max_rules=10, random_state=0, statistic_type="float32", **CONFIGS[cfg], **kw)


@pytest.mark.parametrize("cfg", list(CONFIGS))
def test_statistics_are_float32(cfg, monkeypatch):
    "The statistics array the kernels update is float32 (seen where the fit computes it), and the fit completes."
    seen, real = [], boomer._refresh_stats

    def refresh(loss, Y, S, stats, rows):
        seen.append(stats.dtype)
        real(loss, Y, S, stats, rows)

    monkeypatch.setattr(boomer_fit, "_refresh_stats", refresh)
    X, Y = _data()
    c = _make(cfg).fit(X, Y)
    assert seen and set(seen) == {np.dtype(np.float32)}
    assert c.n_rules_ > 1 and np.isfinite(c.head_score_).all() and c.head_score_.dtype == np.float64


@pytest.mark.parametrize("cfg", ["label_wise", "complete", "label_binning"])
def test_first_rule_as_float64(cfg):
    "On a problem without near-ties the first rule is the float64 fit's, its head equal to float32 precision."
    rng = np.random.default_rng(11)
    X = rng.normal(size=(300, 4))
    Y = (X[:, :3] + 0.3 * rng.normal(size=(300, 3)) > 0).astype(np.int8)
    a = BoomerClassifier(max_rules=2, random_state=0, **CONFIGS[cfg]).fit(X, Y)
    b = BoomerClassifier(max_rules=2, random_state=0, statistic_type="float32", **CONFIGS[cfg]).fit(X, Y)
    np.testing.assert_array_equal(a.cond_feature_, b.cond_feature_)
    np.testing.assert_array_equal(a.cond_threshold_, b.cond_threshold_)
    np.testing.assert_allclose(a.head_score_, b.head_score_, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cfg", ["label_wise", "complete", "feature_binning"])
def test_dense_csr_and_threads(cfg):
    X, Y = _data(nan=0.0)
    dense_and_csr(lambda: _make(cfg), X, Y)
    one_and_two_jobs(lambda n_jobs: _make(cfg, n_jobs=n_jobs), X, Y)


def test_pickle_and_memory_estimate():
    X, Y = _data()
    c = _make("complete").fit(X, Y)
    same(c, pickle.loads(pickle.dumps(c)))
    full = boomer._fit_bytes(10_000, 50, 8, boomer.LOSSES["logistic_example_wise"], 2, False, 0)
    half = boomer._fit_bytes(10_000, 50, 8, boomer.LOSSES["logistic_example_wise"], 2, False, 0, 4)
    assert full - half == 4.0 * 10_000 * (50 + 50 * 51 // 2)


@pytest.mark.parametrize("bad", ["32-bit", "float16", 32, None])
def test_bad_statistic_type(bad):
    X, Y = _data()
    with pytest.raises(ValueError, match="statistic_type"):
        BoomerClassifier(max_rules=3, statistic_type=bad).fit(X, Y)


@pytest.mark.slow  # further configurations' scikit-learn checks (the fast tier checks one per code path)
@parametrize_with_checks([BoomerClassifier(max_rules=8, random_state=0, statistic_type="float32")])
def test_sklearn_contract(estimator, check):
    check(estimator)
