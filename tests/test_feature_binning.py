"""BoomerClassifier(feature_binning=...) (mlc_lit.binning): dense = CSR, n_jobs invariance, pickle, thresholds on bin
boundaries, constant and missing features, other options alongside, scikit-learn's estimator checks."""

import functools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.binning import bin_features
from mlc_lit.boomer import BoomerClassifier

from _boomer_fixtures import data, dense_and_csr, one_and_two_jobs, same as _same

_data = functools.partial(data, n=200)  # this file's sizes

METHODS = ["equal_width", "equal_frequency"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "kw",
    [
        {},
        dict(loss="logistic_example_wise", label_binning="equal_width"),
        dict(
            holdout="random", global_pruning="pre_pruning", pruning_options=dict(min_rules=5, num_past=3, num_recent=3)
        ),
    ],
)
def test_dense_equals_csr(method, kw):
    X, Y = _data()
    a, b = dense_and_csr(
        functools.partial(
            BoomerClassifier, max_rules=30, random_state=3, feature_binning=method, feature_bin_ratio=0.05, **kw
        ),
        X,
        Y,
    )
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(sp.csr_matrix(X)))


@pytest.mark.parametrize("method", METHODS)
def test_n_jobs_invariance_and_pickle(method):
    X, Y = _data(F=12)
    a, b = one_and_two_jobs(
        functools.partial(BoomerClassifier, max_rules=30, random_state=5, feature_binning=method, feature_max_bins=8),
        X,
        Y,
    )
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.predict_proba(X), c.predict_proba(X))


@pytest.mark.parametrize("method", METHODS)
def test_thresholds_are_bin_boundaries(method):
    X, Y = _data(seed=1)
    m = BoomerClassifier(max_rules=40, random_state=0, feature_binning=method, feature_max_bins=6).fit(X, Y)
    bins, _ = bin_features(X, method, 0.33, 2, 6)
    assert len(m.cond_threshold_) > 0
    for f, t in zip(m.cond_feature_, m.cond_threshold_):
        assert t in bins.bounds[bins.ptr[f] : bins.ptr[f + 1]]
    assert all(np.diff(bins.ptr) <= 5)  # at most 6 bins: at most 5 boundaries


def test_constant_and_missing_features_get_no_condition():
    X, Y = _data(seed=2)
    X[:, 0] = 1.5
    X[:, 3] = np.nan
    X[:, 5] = 0.0
    for method in METHODS:
        m = BoomerClassifier(max_rules=30, random_state=0, feature_binning=method, feature_sampling=None).fit(X, Y)
        assert not set(m.cond_feature_.tolist()) & {0, 3, 5}


def test_default_is_unchanged():
    X, Y = _data(seed=3)
    a = BoomerClassifier(max_rules=20, random_state=0).fit(X, Y)
    b = BoomerClassifier(max_rules=20, random_state=0, feature_binning=None, feature_bin_ratio=0.5).fit(X, Y)
    _same(a, b)


@pytest.mark.parametrize(
    "bad, msg",
    [
        (dict(feature_binning="equal-width"), "feature_binning"),
        (dict(feature_binning="equal_width", feature_bin_ratio=0.0), "feature_bin_ratio"),
        (dict(feature_binning="equal_width", feature_min_bins=1), "feature_min_bins"),
        (dict(feature_binning="equal_width", feature_min_bins=5, feature_max_bins=3), "feature_max_bins"),
    ],
)
def test_bad_options(bad, msg):
    X, Y = _data(n=30)
    with pytest.raises(ValueError, match=msg):
        BoomerClassifier(**bad).fit(X, Y)


@parametrize_with_checks(
    [
        BoomerClassifier(max_rules=10, random_state=0, feature_binning="equal_width"),
    ]
)
def test_sklearn_contract(estimator, check):
    check(estimator)


@pytest.mark.slow  # further configurations' scikit-learn checks (the fast tier checks one per code path)
@parametrize_with_checks(
    [
        BoomerClassifier(max_rules=10, random_state=0, feature_binning="equal_frequency", feature_max_bins=4),
    ]
)
def test_sklearn_contract_more(estimator, check):
    check(estimator)


@pytest.mark.parametrize("kw", [{}, dict(loss="logistic_example_wise")])
def test_histogram_search_equals_sweep_fallback(monkeypatch, kw):
    # histograms too large for `_HISTOGRAM_BYTES` leave the binned fit on the sweeps of the presorted codes; on this
    # problem (no tie decided by rounding) both searches give the same model, dense and CSR, one thread or two
    from mlc_lit.boomer import binned  # where the setting is read

    X, Y = _data(seed=4)
    est = dict(max_rules=25, random_state=2, feature_binning="equal_frequency", feature_max_bins=16, **kw)
    a = BoomerClassifier(**est).fit(X, Y)
    b = BoomerClassifier(n_jobs=2, **est).fit(sp.csr_matrix(X), Y)
    monkeypatch.setattr(binned, "_HISTOGRAM_BYTES", 0)
    c = BoomerClassifier(**est).fit(X, Y)
    _same(a, b)
    _same(a, c)


@pytest.mark.parametrize("method", METHODS)
def test_pruning_monitor_sees_feature_values(method):
    """The rule loop keeps conditions as bin codes until the model is stored; the pruning monitor gets each new rule
    in feature values: its losses (on the training set, holdout=None) are those of the stored model's prefixes."""
    import copy
    from mlc_lit.losses import LOSSES, mean_loss
    from mlc_lit.pruning import truncate_model

    X, Y = _data(seed=4)
    m = BoomerClassifier(
        max_rules=25,
        random_state=0,
        feature_binning=method,
        feature_max_bins=5,
        global_pruning="post_pruning",
        pruning_options=dict(min_rules=1),
    ).fit(X, Y)
    assert m.n_rules_ > 5 and len(m.cond_threshold_) > 0
    for r, loss in m.holdout_losses_[: m.n_rules_]:
        prefix = copy.deepcopy(m)
        truncate_model(prefix, int(r))
        np.testing.assert_allclose(
            loss, mean_loss(LOSSES["logistic_label_wise"], Y, prefix.decision_function(X)), rtol=1e-12
        )


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("csr", [False, True])
def test_binary_features_take_the_exact_search(monkeypatch, method, csr):
    # no feature with more than two bins: binning changes nothing, so the fit runs the exact search on the codes (no
    # histograms): the model of the fit without binning, thresholds aside (bin boundaries there, midpoints of 0 and 1 here); one
    # feature of three values brings the histograms back
    from mlc_lit.boomer import binned, fit  # where the buffers are made, and where a fit asks for them

    asked = []
    real = binned._histogram_buffers
    monkeypatch.setattr(fit, "_histogram_buffers", lambda hc, n_feat, *a: asked.append(n_feat) or real(hc, n_feat, *a))
    X, Y = _data(seed=6)
    B = (X > np.nanmedian(X, axis=0)).astype(float)  # (NaN above no median: 0)
    B[:, 1] = 0.0  # a constant feature: one bin
    fit = lambda A, **kw: BoomerClassifier(max_rules=25, random_state=1, feature_sampling=None, **kw).fit(
        sp.csr_matrix(A) if csr else A, Y
    )
    a, b = fit(B, feature_binning=method), fit(B)
    assert asked == [] and a.n_rules_ == b.n_rules_ == 25
    for attr in ("cond_ptr_", "cond_feature_", "cond_op_", "head_ptr_", "head_label_", "head_score_"):
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
    bins, _ = bin_features(B, method, 0.33, 2, None)  # the thresholds: bin boundaries, between 0 and 1
    assert all(
        t in bins.bounds[bins.ptr[f] : bins.ptr[f + 1]] and 0 < t < 1
        for f, t in zip(a.cond_feature_, a.cond_threshold_)
    )
    np.testing.assert_array_equal(a.predict_proba(B), b.predict_proba(B))
    B[:, 0] = np.arange(len(B)) % 3
    fit(B, feature_binning=method)
    assert asked == [X.shape[1]]
