"""ML-XGB and XDCC on a dask.distributed LocalCluster (worker processes on loopback, small data): same trees as in
memory for any partitioning when the cuts are given, awkward partitions, a worker killed mid-fit, bytes per level,
and a cluster-trained model predicting in a process without Dask."""

import os
import pickle
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from mlc_lit.mlxgb import MLXGBClassifier  # noqa: E402
from mlc_lit.mlxgb_dask import single_process_cuts  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def problem(n=400, F=5, K=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    X[rng.random((n, F)) < 0.1] = np.nan
    Y = (rng.random((n, K)) < 0.3).astype(np.int8)
    Y[:, 0] = X[:, 0] > 0
    Y[:, 3] = 0  # a label that never occurs
    Y[: n // 2, 2] = 0  # ... and one absent from the first partitions
    return X, Y


def assert_same_trees(a, b, tol=1e-12):
    for k in ("tree_ptr_", "feature_", "default_left_", "left_", "right_"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)
    np.testing.assert_array_equal(a.threshold_, b.threshold_)  # NaN at leaves on both sides
    np.testing.assert_allclose(a.value_, b.value_, rtol=0, atol=tol)


KW = dict(n_estimators=4, max_depth=3, max_bins=16)


def test_same_trees_on_threads_of_one_process():
    "The fast tier's check of the module: two in-process workers, awkward partitions, cuts given."
    X, Y = problem()
    ref = MLXGBClassifier(**KW).fit(X, Y)
    chunks = (100, 0, 1, 199, 100)
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None):
        Xd, Yd = da.from_array(X, chunks=(chunks, 5)), da.from_array(Y, chunks=(chunks, 4))
        m = MLXGBClassifier(**KW).fit(Xd, Yd, cuts=single_process_cuts(X, 16))
        proba = m.predict_proba(Xd).compute()
    assert_same_trees(m, ref)
    np.testing.assert_allclose(proba, ref.predict_proba(X), rtol=0, atol=1e-12)


def test_absent_missing_from_on_dask_input():
    "A model that reads absent CSR entries as missing predicts Dask CSR chunks as in memory; a Dask fit refuses the option."
    X, Y = problem()
    Xs = sp.csr_matrix(np.where(np.isnan(X), 0.0, X))
    Xs.data[::7] = np.nan  # some stored NaN besides the absent entries
    m = MLXGBClassifier(**KW).fit(Xs, Y, absent_missing_from=3)
    Xd = da.from_array(Xs, chunks=(150, 5), asarray=False)
    np.testing.assert_array_equal(m.predict_proba(Xd).compute(scheduler="synchronous"), m.predict_proba(Xs))
    with pytest.raises(TypeError, match="absent_missing_from takes X in memory"):
        MLXGBClassifier(**KW).fit(Xd, Y, absent_missing_from=3)


@pytest.mark.slow  # a LocalCluster of worker processes
@pytest.mark.parametrize("chunks", [(400,), (100, 0, 1, 199, 100), (1,) * 7 + (393,)])
def test_same_trees_for_any_partitioning_with_cuts_given(client, chunks):
    X, Y = problem()
    ref = MLXGBClassifier(**KW).fit(X, Y)
    Xd, Yd = da.from_array(X, chunks=(chunks, 5)), da.from_array(Y, chunks=(chunks, 4))
    m = MLXGBClassifier(**KW).fit(Xd, Yd, cuts=single_process_cuts(X, 16))
    assert_same_trees(m, ref)
    if len(chunks) == 1:
        np.testing.assert_array_equal(m.value_, ref.value_)  # one partition: bit for bit
    np.testing.assert_allclose(m.predict_proba(Xd).compute(), ref.predict_proba(X), rtol=0, atol=1e-12)


@pytest.mark.slow  # a LocalCluster of worker processes
def test_csr_chunks_dataframe_weights_and_subsample(client):
    X, Y = problem()
    Xs = sp.random(400, 5, density=0.3, random_state=1, format="csr")
    kw = dict(KW, subsample=0.7, colsample=0.6, split="max_gain", random_state=3)
    W = np.random.default_rng(4).integers(0, 3, size=400).astype(float)
    ref = MLXGBClassifier(**kw).fit(Xs, Y, sample_weight=W)
    m = MLXGBClassifier(**kw).fit(
        da.from_array(Xs, chunks=(150, 5), asarray=False), Y, sample_weight=W, cuts=single_process_cuts(Xs, 16, W)
    )
    assert_same_trees(m, ref)
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    df = dd.from_pandas(pd.DataFrame(np.nan_to_num(X)), npartitions=3)
    kw = dict(KW, max_bins=64)  # summaries of 8 * 64 entries: 400 rows are never pruned, the merged cuts are exact
    assert_same_trees(MLXGBClassifier(**kw).fit(df, Y), MLXGBClassifier(**kw).fit(np.nan_to_num(X), Y))


@pytest.mark.slow  # a LocalCluster of worker processes
def test_merged_cuts_and_bytes_per_level(client):
    X, Y = problem(n=1000)
    Xd, Yd = da.from_array(X, chunks=(250, 5)), da.from_array(Y, chunks=(250, 4))
    m = MLXGBClassifier(n_estimators=2, max_depth=4, max_bins=128).fit(Xd, Yd, profile=True)
    for a, b in zip(m.cuts_, single_process_cuts(X, 128)):
        np.testing.assert_array_equal(a, b)  # summaries of 1024: exact
    nb = int(np.sum(np.diff(m.cuts_[0]) + 2))
    workers = len({w for ws in client.who_has().values() for w in ws}) or 2
    for r in m.dask_levels_:
        if r["depth"] < 4:  # split levels: the built nodes' histograms travel once per extra worker, at most dense
            formula = (
                (workers - 1) * (r["n_built"] * nb + workers * r["n_nodes"]) * (2 * 4 + 1) * 8
            )  # + node sums per range
            assert r["n_built"] == (1 if r["depth"] == 0 else r["n_nodes"] // 2), r  # the smaller children only
            assert 0 < r["payload"] <= formula and r["payload"] <= r["bytes"] <= r["payload"] + 20_000, (r, formula)
    assert any(
        r["payload"] < (workers - 1) * r["n_built"] * nb * 9 * 8 for r in m.dask_levels_ if r["depth"] == 3
    )  # sparse pays deep down


@pytest.mark.slow  # a LocalCluster of worker processes
def test_empty_and_bad_input(client):
    X, Y = problem()
    with pytest.raises(ValueError, match="only 0 and 1"):
        MLXGBClassifier(**KW).fit(da.from_array(X, chunks=(100, 5)), da.from_array(Y * 2, chunks=(100, 4)))
    with pytest.raises(ValueError, match="zero everywhere"):
        MLXGBClassifier(**KW).fit(da.from_array(X, chunks=(100, 5)), Y, sample_weight=np.zeros(400))
    with pytest.raises(ValueError, match="tree_method='exact'"):
        MLXGBClassifier(tree_method="exact").fit(da.from_array(X, chunks=(100, 5)), Y)
    with pytest.raises(TypeError, match="not a Dask array"):
        MLXGBClassifier(**KW).fit(X, Y, cuts=None)


def _kill_one_worker_later(client, after_s):
    "Kill one worker process after `after_s` seconds (from a thread); the thread's `.killed_at` is the time it did."
    pids = list(client.run(os.getpid).values())

    def kill():
        time.sleep(after_s)
        os.kill(pids[0], signal.SIGKILL)
        t.killed_at = time.perf_counter()

    t = threading.Thread(target=kill, daemon=True)
    t.start()
    return t


@pytest.mark.slow  # a LocalCluster of worker processes
def test_worker_killed_mid_fit_gives_the_same_model_or_a_clear_error(client):
    X, Y = problem(n=1000)
    Xd, Yd = da.from_array(X, chunks=(250, 5)), da.from_array(Y, chunks=(250, 4))
    kw = dict(n_estimators=10, max_depth=3, max_bins=32)
    ref = MLXGBClassifier(**kw).fit(Xd, Yd)
    t0 = time.perf_counter()
    MLXGBClassifier(**kw).fit(Xd, Yd)
    took = time.perf_counter() - t0
    killer = _kill_one_worker_later(client, took / 3)
    try:
        m = MLXGBClassifier(**kw).fit(Xd, Yd)
        ended = time.perf_counter()
    except distributed.scheduler.KilledWorker:  # the clear error: never a silently different model
        killer.join()
        print("worker killed mid-fit: KilledWorker")
        return
    killer.join()
    client.wait_for_workers(2, timeout=60)
    assert killer.killed_at < ended  # the worker died during the fit
    assert_same_trees(m, ref, tol=0)
    print("worker killed mid-fit: recomputed, same model")


@pytest.mark.slow  # a LocalCluster of worker processes
def test_pickled_cluster_model_predicts_without_dask(client, tmp_path):
    X, Y = problem()
    m = MLXGBClassifier(**KW).fit(da.from_array(X, chunks=(100, 5)), da.from_array(Y, chunks=(100, 4)))
    path = tmp_path / "m.pkl"
    path.write_bytes(pickle.dumps((m, X, m.predict_proba(X))))
    code = (
        "import sys, pickle, numpy as np\n"
        "sys.modules['dask'] = None; sys.modules['distributed'] = None   # any import of them fails\n"
        f"m, X, P = pickle.load(open({str(path)!r}, 'rb'))\n"
        "assert np.array_equal(m.predict_proba(X), P) and m.predict(X).shape == P.shape\n"
        "assert not any(k.startswith(('dask', 'distributed')) and sys.modules[k] is not None for k in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=os.getcwd())


@pytest.mark.slow  # a LocalCluster of worker processes
def test_xdcc_on_the_cluster(client):
    from mlc_lit.xdcc import XDCCClassifier

    X, Y = problem(n=200)
    kw = dict(n_estimators=2, max_depth=2, chain_length=3, cv=None, random_state=0)
    ref = XDCCClassifier(**kw).fit(X, Y)
    Xd = da.from_array(X, chunks=(60, 5))
    m = XDCCClassifier(**kw).fit(Xd, da.from_array(Y, chunks=(60, 4)))
    assert len(m.estimators_) == len(ref.estimators_)
    for a, b in zip(m.estimators_, ref.estimators_):
        np.testing.assert_array_equal(a.feature_, b.feature_)
    np.testing.assert_allclose(m.predict_proba(Xd).compute(), ref.predict_proba(X), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(m.train_rounds_.compute(), ref.train_rounds_)
