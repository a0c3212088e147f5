"""Dask input: the chunk-wise randomized embedding and the pairwise label blocks give the in-memory model, on the
threaded scheduler and on a LocalCluster (two worker processes on loopback); joblib's Dask backend runs
scikit-learn searches over mlc_lit estimators. Small data only (the large runs live in `bench_scale`)."""

import os
import signal
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

from mlc_lit.qweighted import BinaryRelevancePerceptron, CalibratedPairwiseClassifier
from mlc_lit.rembed import RandomizedEmbeddingClassifier, make_sparse_problem


def test_plain_install_never_imports_dask():
    code = (
        "import sys, numpy as np\n"
        "import mlc_lit, mlc_lit.data, mlc_lit.metrics\n"
        "from mlc_lit.rembed import RandomizedEmbeddingClassifier\n"
        "from mlc_lit.qweighted import CalibratedPairwiseClassifier\n"
        "from mlc_lit.data import make_extreme_multilabel\n"
        "X = np.random.default_rng(0).standard_normal((60, 4)); Y = (X[:, :3] > 0).astype(int)\n"
        "for est in (RandomizedEmbeddingClassifier(rank=2, n_random_features=20, random_state=0), CalibratedPairwiseClassifier()):\n"
        "    est.fit(X, Y).predict(X); est.predict_top_k(X, 2)\n"
        "make_extreme_multilabel('odp', 0.001, n=50)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def sparse_problem():
    X, Y = make_sparse_problem(900, d=250, c=30, n_topics=15, seed=1)
    Y = Y.tolil()
    Y[:, 7] = 0  # a label that is never positive
    return X, sp.csr_matrix(Y)


def _rel(a, b):
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


def _assert_same_model(a, b, eps=1e-8):
    for k in ("U", "W", "singular_values"):
        assert _rel(getattr(a.embedding_, k), getattr(b.embedding_, k)) < eps, k
    assert _rel(a.coef_, b.coef_) < eps and _rel(a.intercept_, b.intercept_) < eps
    assert abs(a.bandwidth_ - b.bandwidth_) <= eps * b.bandwidth_ and a.rank_ == b.rank_


def _with_empty_chunk(A, at):
    "A as a Dask array of row chunks of 300 with a chunk of zero rows after row `at` (a multiple of 300)."
    rows = [300] * (A.shape[0] // 300)
    return da.from_array(A, chunks=(tuple(rows[: at // 300] + [0] + rows[at // 300 :]), A.shape[1]), asarray=False)


@pytest.mark.parametrize("chunks", [900, 250, 97])
def test_rembed_threaded_equals_in_memory(sparse_problem, chunks):
    X, Y = sparse_problem
    kw = dict(rank=6, n_random_features=0, random_state=0)
    with dask.config.set(scheduler="threads"):
        a = RandomizedEmbeddingClassifier(**kw).fit(
            da.from_array(X, chunks=(chunks, 250), asarray=False), da.from_array(Y, chunks=(chunks, 30), asarray=False)
        )
    _assert_same_model(a, RandomizedEmbeddingClassifier(**kw).fit(X, Y))


def test_rembed_zero_row_chunks_and_different_chunkings(sparse_problem):
    X, Y = sparse_problem
    kw = dict(rank="spectral90", n_random_features=0, inference="class_f1", random_state=1)
    Xd = _with_empty_chunk(X, 300)
    assert 0 in Xd.chunks[0]
    Yd = da.from_array(Y.toarray(), chunks=(400, 30))  # dense Y, other chunks: rechunked to X's
    a = RandomizedEmbeddingClassifier(**kw).fit(Xd, Yd)
    b = RandomizedEmbeddingClassifier(**kw).fit(X, Y.toarray())
    _assert_same_model(a, b)
    np.testing.assert_array_equal(a.predict(Xd).compute(), b.predict(X))
    np.testing.assert_array_equal(a.predict_top_k(Xd, 3).compute(), b.predict_top_k(X, 3))


def test_rembed_random_features_embedding_exact_readout_float32(sparse_problem):
    X, Y = sparse_problem
    kw = dict(rank=6, n_random_features=100, random_state=0)
    a = RandomizedEmbeddingClassifier(**kw).fit(da.from_array(X, chunks=(200, 250), asarray=False), Y)
    b = RandomizedEmbeddingClassifier(**kw).fit(X, Y)
    for k in ("U", "W", "singular_values"):
        assert _rel(getattr(a.embedding_, k), getattr(b.embedding_, k)) < 1e-8
    np.testing.assert_allclose(a.frequencies_, b.frequencies_, rtol=1e-8)
    assert _rel(a.coef_, b.coef_) < 1e-3  # the in-memory read-out sums ΦᵀΦ in float32 BLAS


def test_rembed_bad_dask_input(sparse_problem):
    X, Y = sparse_problem
    Xd = da.from_array(X.toarray(), chunks=(300, 250))
    est = RandomizedEmbeddingClassifier(rank=3, n_random_features=0)
    with pytest.raises(TypeError, match="dtype complex128"):
        est.fit(Xd.astype(complex), Y.toarray())
    with pytest.raises(TypeError, match="labels must be 0/1"):
        est.fit(Xd, da.from_array(Y.toarray().astype(str), chunks=(300, 30)))
    with pytest.raises(ValueError, match="only 0 and 1; found \\[2"):
        est.fit(Xd, da.from_array(2 * Y.toarray(), chunks=(300, 30)))
    with pytest.raises(ValueError, match="NaN or infinity"):
        est.fit(da.where(Xd > 0.5, np.nan, Xd), Y.toarray())
    with pytest.raises(ValueError, match="2-D 0/1 indicator"):
        est.fit(Xd, da.from_array(Y.toarray()[:, 0], chunks=300))
    with pytest.raises(ValueError, match="loss='logistic' is not available"):
        RandomizedEmbeddingClassifier(loss="logistic").fit(Xd, Y.toarray())


def test_pairwise_threaded_equals_in_memory(sparse_problem):
    X, Y = sparse_problem
    X, Y = X[:300], Y[:300, :10]
    mem = CalibratedPairwiseClassifier().fit(X, Y)
    dsk = CalibratedPairwiseClassifier().fit(da.from_array(X, chunks=(100, 250), asarray=False), Y)
    np.testing.assert_array_equal(dsk.coef_, mem.coef_)
    np.testing.assert_array_equal(
        dsk.predict(da.from_array(X, chunks=(70, 250), asarray=False)).compute(), mem.predict(X)
    )


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.mark.slow  # a LocalCluster of worker processes
def test_local_cluster_rembed_and_pairwise(client, sparse_problem):
    X, Y = sparse_problem
    kw = dict(rank=6, n_random_features=0, random_state=0)
    Xd = da.from_array(X, chunks=(200, 250), asarray=False)
    a = RandomizedEmbeddingClassifier(**kw).fit(Xd, da.from_array(Y, chunks=(200, 30), asarray=False))
    b = RandomizedEmbeddingClassifier(**kw).fit(X, Y)
    _assert_same_model(a, b)
    np.testing.assert_array_equal(a.predict(Xd).compute(), b.predict(X))
    Xs, Ys = X[:300], Y[:300, :10]
    mem = CalibratedPairwiseClassifier().fit(Xs, Ys)
    dsk = CalibratedPairwiseClassifier().fit(da.from_array(Xs, chunks=(100, 250), asarray=False), Ys)
    np.testing.assert_array_equal(dsk.coef_, mem.coef_)
    np.testing.assert_array_equal(
        dsk.predict(da.from_array(Xs, chunks=(100, 250), asarray=False)).compute(), mem.predict(Xs)
    )


@pytest.mark.slow  # a LocalCluster of worker processes
def test_local_cluster_sums_like_the_thread_pool_of_as_many_threads(client, sparse_problem):
    # two one-thread workers and a pool of two threads sum every pass in the same two chains: the same bits,
    # conjugate gradients (40 passes here) and random features included
    import dask

    X, Y = sparse_problem
    kw = dict(rank=6, n_random_features=50, solver="cg", random_state=0)
    Xd, Yd = da.from_array(X, chunks=(150, 250), asarray=False), da.from_array(Y, chunks=(150, 30), asarray=False)
    a = RandomizedEmbeddingClassifier(**kw).fit(Xd, Yd)
    with dask.config.set(scheduler="threads", num_workers=2):
        b = RandomizedEmbeddingClassifier(**kw).fit(Xd, Yd)
    assert a.embedding_.n_cg_iter > 1
    for name in ("W", "U"):
        np.testing.assert_array_equal(getattr(a.embedding_, name), getattr(b.embedding_, name))
    np.testing.assert_array_equal(a.coef_, b.coef_)


@pytest.mark.slow  # a LocalCluster of worker processes
def test_joblib_dask_backend_grid_search_and_cross_validate(client):
    import joblib
    from sklearn.model_selection import GridSearchCV, cross_validate

    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 5))
    Y = (X[:, :3] + 0.3 * rng.standard_normal((120, 3)) > 0).astype(int)
    grid = lambda n_jobs: GridSearchCV(
        RandomizedEmbeddingClassifier(rank=2, n_random_features=30, random_state=0),
        {"l2": [0.1, 1.0], "bandwidth": [1.0, 2.0]},
        cv=3,
        n_jobs=n_jobs,
    )
    with joblib.parallel_config(backend="dask"):
        on_dask = grid(-1).fit(X, Y)
        cv_dask = [
            cross_validate(est, X, Y, cv=3, n_jobs=-1)["test_score"]
            for est in (CalibratedPairwiseClassifier(), BinaryRelevancePerceptron())
        ]
    local = grid(1).fit(X, Y)
    np.testing.assert_array_equal(on_dask.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"])
    assert on_dask.best_params_ == local.best_params_
    for got, est in zip(cv_dask, (CalibratedPairwiseClassifier(), BinaryRelevancePerceptron())):
        np.testing.assert_array_equal(got, cross_validate(est, X, Y, cv=3)["test_score"])


@pytest.mark.slow  # a LocalCluster of worker processes
def test_local_cluster_worker_killed_mid_fit_gives_the_same_model(client, monkeypatch):
    import mlc_lit.scale.embedding as embedding  # the module whose fit calls `_pass`

    X, Y = make_sparse_problem(1000, d=300, c=20, n_topics=10, seed=2)
    kw = dict(rank=4, n_iter=2, n_random_features=0, random_state=0)
    victim = sorted(client.scheduler_info()["workers"])[0]
    pid = client.run(os.getpid, workers=[victim])[victim]
    calls, original = [], embedding._pass

    def pass_that_kills_a_worker(*args):  # the third pass of the fit starts with a worker gone
        calls.append(1)
        if len(calls) == 3:
            os.kill(pid, signal.SIGKILL)  # the nanny starts a new one; its tasks are re-run
        return original(*args)

    monkeypatch.setattr(embedding, "_pass", pass_that_kills_a_worker)
    est = RandomizedEmbeddingClassifier(**kw).fit(
        da.from_array(X, chunks=(100, 300), asarray=False), da.from_array(Y, chunks=(100, 20), asarray=False)
    )
    assert len(calls) > 3 and pid not in client.run(os.getpid).values()  # the worker did die mid-fit
    _assert_same_model(est, RandomizedEmbeddingClassifier(**kw).fit(X, Y), eps=1e-8)


@pytest.fixture(scope="module")
def one_class_problem():
    "900 rows, 6 features, 5 classes (exactly one per row), cut by a noisy linear map."
    rng = np.random.default_rng(7)
    X = rng.standard_normal((900, 6))
    cls = np.argmax(X[:, :5] @ rng.standard_normal((5, 5)) + 0.3 * rng.standard_normal((900, 5)), axis=1)
    return X, np.eye(5, dtype=np.int8)[cls], cls


_SGD = dict(rank=4, n_epochs=3, batch_size=64, random_state=0)


@pytest.mark.parametrize(
    "params",
    [
        dict(loss="softmax", kernel="linear"),
        dict(loss="softmax", n_random_features=40),
        dict(loss="softmax", kernel="linear", inference="class_f1"),
        dict(loss="logistic", optimizer="sgd", n_random_features=40),
    ],
)
def test_rembed_sgd_readout_one_chunk_equals_in_memory(one_class_problem, params):
    X, Y, _ = one_class_problem
    with dask.config.set(scheduler="threads"):
        a = RandomizedEmbeddingClassifier(**_SGD, **params).fit(
            da.from_array(X, chunks=(900, 6)), da.from_array(Y, chunks=(900, 5))
        )
        b = RandomizedEmbeddingClassifier(**_SGD, **params).fit(X, Y)
        assert _rel(a.coef_, b.coef_) < 1e-8 and _rel(a.intercept_, b.intercept_) < 1e-8 and a.n_iter_ == b.n_iter_ == 3
        Xd = da.from_array(X, chunks=(250, 6))
        np.testing.assert_array_equal(a.predict(Xd).compute(), b.predict(X))
        np.testing.assert_allclose(a.predict_proba(Xd).compute(), b.predict_proba(X), rtol=1e-8, atol=1e-12)
        np.testing.assert_array_equal(a.predict_top_k(Xd, 2).compute(), b.predict_top_k(X, 2))


def test_rembed_softmax_chunks_equal_the_chunkwise_api_by_hand(one_class_problem):
    from mlc_lit import rembed
    from mlc_lit.core import spawn_seeds

    X, Y, cls = one_class_problem
    rows = (300, 250, 350)
    with dask.config.set(scheduler="threads"):
        a = RandomizedEmbeddingClassifier(**_SGD, loss="softmax", kernel="linear").fit(
            da.from_array(X, chunks=(rows, 6)), da.from_array(Y, chunks=(rows, 5))
        )
    cuts = np.cumsum([0, *rows])
    feats = lambda A: rembed._link_features(a, A)
    shift, moments = feats(X[:4096]).mean(axis=0), None
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        moments = rembed.readout_moments(feats(X[lo:hi]), moments, shift=shift)
    seed = int(
        np.random.default_rng(spawn_seeds(0, 2)[1]).integers(2**63 - 1)
    )  # ≤ 1000 rows, linear kernel: drawn first
    l2 = rembed._link_penalty(a.l2, a.l2_link, len(Y))  # the estimator's read-out penalty
    params, state = rembed.sgd_setup(
        moments, Y.sum(axis=0), loss="softmax", l2=l2, shift=shift, seed=seed, batch_size=64
    )
    for _ in range(3):
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            rembed.sgd_readout_chunk(feats(X[lo:hi]), cls[lo:hi], params, state)
    V = params.Q @ state.V
    assert _rel(a.coef_, V) < 1e-8 and _rel(a.intercept_, state.b - params.mu @ V) < 1e-8
    b = RandomizedEmbeddingClassifier(**_SGD, loss="softmax", kernel="linear").fit(X, Y)
    assert _rel(a.coef_, b.coef_) > 1e-6  # several chunks: another shuffle, another SGD run ...
    acc = [np.mean(e.predict(X).argmax(axis=1) == cls) for e in (a, b)]
    assert acc[1] > 0.7 > 2 * np.bincount(cls).max() / len(cls) and abs(acc[0] - acc[1]) < 0.03  # ... as good a one


@pytest.mark.parametrize(
    "params",
    [
        dict(kernel="linear"),
        dict(embedding="gaussian", n_random_features=0),
        dict(embedding="gaussian", kernel="linear", rank="spectral90", inference="class_f1"),
    ],
)
def test_rembed_linear_kernel_and_gaussian_embedding_equal_in_memory(sparse_problem, params):
    X, Y = sparse_problem
    kw = {"rank": 6, "random_state": 0, **params}
    with dask.config.set(scheduler="threads"):
        Xd = da.from_array(X, chunks=(250, 250), asarray=False)
        a = RandomizedEmbeddingClassifier(**kw).fit(Xd, da.from_array(Y, chunks=(250, 30), asarray=False))
        b = RandomizedEmbeddingClassifier(**kw).fit(X, Y)
        assert a.frequencies_ is None and b.frequencies_ is None and a.rank_ == b.rank_
        for k in ("U", "W"):
            assert _rel(getattr(a.embedding_, k), getattr(b.embedding_, k)) < 1e-8, k
        if params.get("embedding") == "gaussian":
            assert np.isnan(a.embedding_.singular_values).all()
        assert _rel(a.coef_, b.coef_) < 1e-8 and _rel(a.intercept_, b.intercept_) < 1e-8
        np.testing.assert_array_equal(a.predict(Xd).compute(), b.predict(X))


def test_rembed_sgd_bad_dask_input(one_class_problem):
    X, Y, _ = one_class_problem
    Xd, Y2 = da.from_array(X, chunks=(300, 6)), Y.copy()
    Y2[:4, 0] = 1 - Y2[:4, 0]  # rows with two labels or none
    with pytest.raises(ValueError, match="loss='softmax' needs exactly one label per example; 4 rows"):
        RandomizedEmbeddingClassifier(loss="softmax", rank=2).fit(Xd, da.from_array(Y2, chunks=(300, 5)))
    with pytest.raises(ValueError, match="optimizer='lbfgs'.*optimizer='sgd'"):
        RandomizedEmbeddingClassifier(loss="logistic", rank=2).fit(Xd, Y)
