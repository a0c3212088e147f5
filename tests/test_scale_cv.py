"""`RandomizedEmbeddingCV` on Dask input: the hold-out is taken chunk by chunk, every candidate is fitted and scored
chunk-wise, and the search equals the in-memory one (same candidates, scores, choice) on the threaded scheduler and
on a LocalCluster of two worker processes on loopback. Small data only."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

from mlc_lit.metrics import precision_at_k
from mlc_lit.rembed import RandomizedEmbeddingCV, make_sparse_problem

SPACE = {"rank": [3, 6, "spectral90"], "n_random_features": [0, 40], "l2": [0.01, 0.1, 1.0], "l2_link": [0.01, 0.1]}


@pytest.fixture(scope="module")
def problem():
    X, Y = make_sparse_problem(500, d=120, c=15, n_topics=6, seed=11)
    return X, Y


def _dask(X, Y, rows):
    return (
        da.from_array(X, chunks=(rows, X.shape[1]), asarray=False),
        da.from_array(Y, chunks=(rows, Y.shape[1]), asarray=False),
    )


def _rel(a, b):
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


def _assert_same_search(a, b):
    np.testing.assert_allclose(
        a.cv_results_["mean_test_score"], b.cv_results_["mean_test_score"], rtol=1e-12, atol=1e-12
    )
    assert a.best_params_ == b.best_params_ and a.cv_results_["params"] == b.cv_results_["params"]
    ea, eb = a.best_estimator_, b.best_estimator_
    assert _rel(ea.embedding_.W, eb.embedding_.W) < 1e-8
    assert _rel(ea.coef_, eb.coef_) < 1e-3  # the in-memory read-out sums the float32 features' Gram in float32


@pytest.mark.parametrize("scoring", ["precision@3", "macro_f1", "hamming"])
def test_threaded_search_equals_in_memory(problem, scoring):
    X, Y = problem
    kw = dict(n_iter=3, scoring=scoring, random_state=2)
    mem = RandomizedEmbeddingCV(SPACE, **kw).fit(X, Y)
    with dask.config.set(scheduler="threads"):
        dsk = RandomizedEmbeddingCV(SPACE, **kw).fit(*_dask(X, Y, (200, 0, 170, 130)))
    _assert_same_search(dsk, mem)


def test_kfold_and_logistic_candidates_one_chunk(problem):
    X, Y = problem
    space = {"loss": ["squared", "logistic"], "n_random_features": [30, 60], "l2": [0.1, 1.0]}
    kw = dict(n_iter=3, cv=2, random_state=4)
    mem = RandomizedEmbeddingCV(space, fixed_params={"optimizer": "sgd", "n_epochs": 2}, **kw).fit(X, Y)
    with dask.config.set(scheduler="threads"):
        dsk = RandomizedEmbeddingCV(space, fixed_params={"n_epochs": 2}, **kw).fit(*_dask(X, Y, 500))
    assert "logistic" in mem.cv_results_["param_loss"].tolist() and dsk.n_splits_ == 2
    _assert_same_search(dsk, mem)


def test_callable_scoring_gets_dask_rows_and_budget(problem):
    X, Y = problem
    seen = []

    def scorer(est, Xh, Yh):
        seen.append(type(Xh).__name__)
        return precision_at_k(Yh.compute(), top_k=est.predict_top_k(Xh, 1).compute(), k=1)

    with dask.config.set(scheduler="threads"), pytest.warns(UserWarning, match="shorter than the first candidate"):
        s = RandomizedEmbeddingCV(
            SPACE,
            n_iter=4,
            scoring=scorer,
            time_budget=1e-9,
            validation_fraction=0.5,  # one hold-out of 250
            random_state=0,
        ).fit(*_dask(X, Y, 250))
    assert seen == ["Array"] and s.n_candidates_ == 1
    top = s.predict_top_k(da.from_array(X, chunks=(250, 120), asarray=False), 2)
    np.testing.assert_array_equal(top.compute(), s.best_estimator_.predict_top_k(X, 2))


def test_bad_dask_input(problem):
    X, Y = problem
    Xd, _ = _dask(X, Y, 250)
    with pytest.raises(ValueError, match="different numbers of rows"):
        RandomizedEmbeddingCV(SPACE, n_iter=1).fit(Xd, da.from_array(Y[:400].toarray(), chunks=(200, 15)))
    with pytest.raises(ValueError, match="only 0 and 1"):
        RandomizedEmbeddingCV(SPACE, n_iter=1).fit(Xd, da.from_array(2 * Y.toarray(), chunks=(250, 15)))


@pytest.mark.slow  # a LocalCluster of worker processes
def test_local_cluster_search_equals_in_memory(problem):
    X, Y = problem
    kw = dict(n_iter=2, random_state=5)
    mem = RandomizedEmbeddingCV(SPACE, **kw).fit(X, Y)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        dsk = RandomizedEmbeddingCV(SPACE, **kw).fit(*_dask(X, Y, 250))
        labels = dsk.predict(da.from_array(X, chunks=(250, 120), asarray=False)).compute()
    _assert_same_search(dsk, mem)
    np.testing.assert_array_equal(labels, mem.predict(X))
