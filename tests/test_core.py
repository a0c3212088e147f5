"""The estimator base and the parallel helpers, under scikit-learn's own checks and several joblib backends; and the
kernel cache across processes for kernels built by factories."""

import os
import pickle
import subprocess
import sys

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.core import MultiLabelClassifier, parallel_map, spawn_seeds
from mlc_lit.cli import MajorityBaseline


class LinearScores(MultiLabelClassifier):
    "Least-squares scores per label: the smallest real subclass of the base."

    def __init__(self, *, shift=0.0):
        self.shift = shift

    def _design(self, X):
        X = X.toarray() if sp.issparse(X) else X
        return np.c_[X, np.ones(len(X))]

    def _fit(self, X, Y):
        self.w_ = np.linalg.lstsq(self._design(X), 2.0 * Y - 1, rcond=None)[0]

    def _decision_function(self, X):
        return self._design(X) @ self.w_ + self.shift

    def _predict_proba(self, X):
        return 1 / (1 + np.exp(-self._decision_function(X)))

    def _predict(self, X):
        return (self._decision_function(X) > 0).astype(np.int8)


@parametrize_with_checks([LinearScores()])
def test_sklearn_contract(estimator, check):
    check(estimator)


def test_multilabel_outputs_and_pickle():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    Y = (X[:, :3] > 0).astype(np.int8)
    m = LinearScores().fit(X, Y)
    assert m.predict(X).shape == (60, 3) and set(np.unique(m.predict(X))) <= {0, 1}
    assert m.predict_proba(X).shape == (60, 3) and m.decision_function(X).shape == (60, 3)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(m)).predict(X), m.predict(X))
    np.testing.assert_array_equal(LinearScores().fit(sp.csr_matrix(X), Y).predict(X), m.predict(X))


def test_labels_never_positive_and_empty_rows_are_data():
    X = np.arange(20.0).reshape(10, 2)
    Y = np.zeros((10, 3), dtype=int)
    Y[:5, 0] = 1
    m = MajorityBaseline().fit(X, Y)
    assert m.predict(X).sum() == 0 and m.n_labels_ == 3


@pytest.mark.parametrize("backend", ["sequential", "threading", "loky"])
def test_parallel_map_backends_keep_order(backend):
    with joblib.parallel_backend(backend):
        assert parallel_map(abs, range(-5, 5), n_jobs=2) == [abs(i) for i in range(-5, 5)]


def test_parallel_map_on_dask():
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2):
        with joblib.parallel_backend("dask"):
            assert parallel_map(abs, range(-3, 3), n_jobs=2) == [3, 2, 1, 0, 1, 2]


def test_seeds_do_not_depend_on_the_worker():
    seeds = spawn_seeds(42, 8)
    per_task = parallel_map(lambda i: np.random.default_rng(seeds[i]).random(), range(8), n_jobs=2)
    assert per_task == [np.random.default_rng(s).random() for s in seeds]


def test_numba_is_a_tested_release():
    "`core.numba_internals` reaches into Numba's internals; it has been run on the releases `_NUMBA_TESTED` names only."
    import numba

    from mlc_lit.core import _NUMBA_TESTED, _numba_tested

    low, high = _NUMBA_TESTED
    assert _numba_tested(numba.__version__), (
        f"Numba {numba.__version__} is installed, but mlc_lit's use of Numba's internals (`mlc_lit.core.numba_internals`, "
        f"nbs/0002_core_numba_internals.ipynb: its dispatcher, kernel cache and intrinsics) was tested with Numba >={low},<{high} only. Install a "
        f"tested release, or run tests/test_core.py, tests/test_losses.py and one BOOMER fit under this one and then "
        f"widen _NUMBA_TESTED and the pin in pyproject.toml together."
    )


def test_pyproject_pins_the_tested_numba():
    "pyproject.toml asks pip for exactly the range `_NUMBA_TESTED` names."
    import tomllib
    from pathlib import Path

    from mlc_lit.core import _NUMBA_TESTED

    deps = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"][
        "dependencies"
    ]
    low, high = _NUMBA_TESTED
    assert f"numba>={low},<{high}" in deps, f"pyproject.toml's numba requirement should be numba>={low},<{high}: {deps}"


# Kernels built by factories, each closing over its options and over another kernel (the loss row, `_make_gains`' kernel
# inside `_make_settle`'s): what each one's cache entries were found (hits) and not found (misses) in this process.
FACTORY_KERNELS = """
import numpy as np
from mlc_lit.losses import _make_mean_loss, label_wise_logistic
from mlc_lit.mlxgb import GainParams, _buffer, _make_settle
from mlc_lit.scale import _csc_matmat_add
Y, S, G, H = np.array([[1, 0]], np.int8), np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2))
label_wise_logistic(Y, S, G, H)
_make_mean_loss(0)(Y, S)
_csc_matmat_add(np.array([0, 1]), np.array([0]), np.array([2.0]), np.ones((1, 2)), np.zeros((1, 2)))
sums, miss = np.array([[-1.0, 0.5, 2.0, 2.0]]), np.zeros((1, 4))
_make_settle(0, False)(_buffer(1, 4, 16), 0, miss, np.zeros(1, np.int64), np.zeros((1, 4)), np.zeros(1), GainParams(1.0, 0.0, 0, False))
kernels = (label_wise_logistic, _make_mean_loss(0), _csc_matmat_add, _make_settle(0, False))
print(sum(len(k.stats.cache_hits) for k in kernels), sum(len(k.stats.cache_misses) for k in kernels))
"""


def test_factory_kernels_load_from_the_cache_in_a_new_process(tmp_path):
    "What a kernel closes over is keyed by name and value (`core._closure_key`), so a second process compiles none of them."
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    counts = []
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", FACTORY_KERNELS], env=env, capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 0, out.stderr[-3000:]
        counts.append(out.stdout.split())
    assert counts == [["0", "4"], ["4", "0"]]  # compiled by the first process, loaded by the second
