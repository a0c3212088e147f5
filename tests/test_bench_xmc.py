"The xmc benchmark's pieces: the generator, the repository-format writer (read back by load_svmlight), the ranking padding, the suite's registration."

import numpy as np
import pytest
import scipy.sparse as sp

from mlc_lit.bench.suites import SUITES, run_suite
from mlc_lit.bench.xmc import _ranked, make_clustered_classes, run, xmc_metrics, xmc_split
from mlc_lit.data import load_svmlight, save_svmlight


def test_generator_is_seeded_and_shaped():
    X, y = make_clustered_classes(500, n_classes=40, seed=3)
    assert X.shape == (500, 128) and y.shape == (500,) and 0 <= y.min() and y.max() < 40
    np.testing.assert_array_equal(X, make_clustered_classes(500, n_classes=40, seed=3)[0])
    assert not np.array_equal(X, make_clustered_classes(500, n_classes=40, seed=4)[0])


def test_written_file_reads_back_and_splits(tmp_path):
    rng = np.random.default_rng(0)
    X = sp.random(60, 12, density=0.3, format="csr", random_state=1) + sp.eye(60, 12, format="csr")  # no blank line
    Y = (rng.random((60, 7)) < 0.3).astype(np.int8)
    path = save_svmlight(str(tmp_path / "d.txt"), X, Y)
    X2, Y2, _ = load_svmlight(path)
    np.testing.assert_allclose(sp.csr_matrix(X2).toarray(), X.toarray(), rtol=1e-8)
    np.testing.assert_array_equal(np.asarray(Y2), Y)
    Xa, Ya, Xb, Yb = xmc_split(path, str(tmp_path))
    assert Xa.shape[0] + Xb.shape[0] == 60 and Ya.shape[1] == Yb.shape[1] == 7


def test_ranking_padding_and_metrics():
    np.testing.assert_array_equal(_ranked([[4, 4, 1], []], 3, 5), [[4, 1, 0], [0, 1, 2]])
    Yt = np.array([[1, 0, 0, 1, 0, 0], [0, 0, 1, 0, 0, 0]], dtype=np.int8)
    m = xmc_metrics(Yt, np.array([[3, 0, 1, 2, 4], [0, 1, 2, 3, 4]]), np.vstack([Yt, Yt, Yt]))
    assert m["p@1"] == pytest.approx(0.5) and m["p@3"] == pytest.approx(0.5)


def test_suite_is_registered_and_refuses_threads(tmp_path):
    assert "xmc" in SUITES and SUITES["xmc"].data_may_be_file
    with pytest.raises(ValueError, match="one thread"):
        run(str(tmp_path), threads=(2,))
    with pytest.raises(ValueError, match="does not exist"):
        run_suite("xmc", str(tmp_path / "missing.txt"))


def test_lshtc_shaped_split_is_seeded_and_disjoint():
    X, Y, Xt, Yt = xmc_split("lshtc_quick", ".")
    assert X.shape == (2000, 800) and Xt.shape == (500, 800) and Y.shape == (2000, 162) and Y.dtype == np.int8
    assert 2.5 <= Y.sum(axis=1).mean() <= 4 and 80 <= X.getnnz(axis=1).mean() <= 110
    X2, Y2, _, _ = xmc_split("lshtc_quick", ".")
    np.testing.assert_array_equal(Y2, Y)
    assert (X2 != X).nnz == 0
