"""Where the time of the pairwise fit on a two-worker LocalCluster goes (issue 15, chapter 06h).

    python tools/pairwise_cluster_floor.py ../shared/data bench_results/scale_pairwise_floor.jsonl

For bibtex and corel5k, each in fresh processes with every library on one thread, five timed fits after an untimed
one that compiles the kernels:
- one process, one thread: the whole fit and its training kernel (`qweighted._train_serial`) alone;
- the same fit on `LocalCluster(n_workers=2, threads_per_worker=1)`: the whole fit, each task's training kernel
  (timed on its worker), the *lead* from the fit's start to the first task's kernel (validation, scaling,
  scattering the data, scheduling) and the *tail* from the last kernel's end to the fit's end (the last weights
  travelling back and being copied into the model);
- the cluster fit with its weights left on the workers (`_fit_keeping_weights`: the same tasks, waited for but
  never gathered), as if the model kept `coef_` on the cluster;
- the cluster fit once more with the training kernel replaced by a no-op on the workers: everything the cluster
  fit costs but the training itself.

One JSON line per data set and scheduler. The floor that 06h prints from them is (the one-thread kernel + the
no-training cluster fit) / 2: the cluster fit if all of its work were shared perfectly over two cores.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

ONE = {v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}


def _time_kernel():
    "In this process (or on a worker): wrap the training kernel so that each call's (start, end) wall-clock time is recorded."
    from mlc_lit import qweighted as q
    if not hasattr(q, "_floor_train"): q._floor_train, q._floor_log = q._train_serial, []
    def timed(*a):
        t = time.time(); r = q._floor_train(*a); q._floor_log.append((t, time.time())); return r
    q._train_serial = timed


def _take_log():
    from mlc_lit import qweighted as q
    out = list(q._floor_log); q._floor_log.clear(); return out


def _no_training():
    from mlc_lit import qweighted as q
    q._train_serial = lambda *a: None


def _fit_keeping_weights(est, X, Y, client):
    "`scale.fit_pairwise` up to its tasks, which are waited for; their weights stay on the workers."
    from distributed import wait
    from mlc_lit import scale as sc
    data, blocks, _, F = sc._pairwise_plan(est, X, Y, client)
    [shared] = client.scatter([data], broadcast=True)
    futures = [client.submit(sc._train_block, shared, F, bs, pure=False) for bs in blocks]
    wait(futures)
    client.cancel(futures)


def measure(name: str, data_dir: str, scheduler: str, reps: int = 5) -> dict:
    "The row of one data set and scheduler (run in its own process by `main`)."
    from mlc_lit.bench import load_split
    from mlc_lit.qweighted import CalibratedPairwiseClassifier
    X, Y, _, _, _ = load_split(name, data_dir)
    Y = np.asarray(Y)
    fit = lambda A: CalibratedPairwiseClassifier(n_jobs=1).fit(A, Y[:A.shape[0]])
    row = dict(dataset=name, scheduler=scheduler, n=X.shape[0], loadavg=os.getloadavg()[0])
    if scheduler == "one_thread":
        fit(X[:50])
        _time_kernel()
        fits = []
        for _ in range(reps):
            t = time.perf_counter(); fit(X); fits.append(time.perf_counter() - t)
        return dict(row, fit_s=fits, kernel_s=[b - a for a, b in _take_log()])
    import dask.array as da
    from distributed import Client, LocalCluster
    with Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                             dashboard_address=None)) as client:
        wrap = lambda A: da.from_array(A, chunks=(max(1, -(-A.shape[0] // 4)), A.shape[1]), asarray=False)
        fit(wrap(X[:50]))
        client.run(_time_kernel); client.run(_take_log)
        fits, lead, tail, per_worker = [], [], [], []
        for _ in range(reps):
            t0 = time.time(); fit(wrap(X)); t1 = time.time()
            spans = client.run(_take_log)
            every = [s for v in spans.values() for s in v]
            fits.append(t1 - t0); lead.append(min(a for a, _ in every) - t0); tail.append(t1 - max(b for _, b in every))
            per_worker.append(sorted(sum(b - a for a, b in v) for v in spans.values()))
        kept = []
        for _ in range(reps):
            t = time.perf_counter(); _fit_keeping_weights(CalibratedPairwiseClassifier(n_jobs=1), wrap(X), Y, client)
            kept.append(time.perf_counter() - t)
        client.run(_take_log)
        client.run(_no_training)
        fixed = []
        for _ in range(reps):
            t = time.perf_counter(); fit(wrap(X)); fixed.append(time.perf_counter() - t)
    return dict(row, fit_s=fits, lead_s=lead, tail_s=tail, kernel_per_worker_s=per_worker,
                weights_kept_fit_s=kept, no_training_fit_s=fixed)


def main(data_dir: str, out: str) -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    with open(out, "w") as fh:
        for name in ("bibtex", "corel5k"):
            for scheduler in ("one_thread", "local_cluster"):
                code = (f"import sys; sys.path.insert(0, {here!r}); import pairwise_cluster_floor as m, json; "
                        f"print(json.dumps(m.measure({name!r}, {data_dir!r}, {scheduler!r})))")
                done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                      env={**os.environ, **ONE}, check=True)
                line = done.stdout.strip().splitlines()[-1]
                fh.write(line + "\n"); fh.flush(); print(line)


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]), sys.argv[2])
