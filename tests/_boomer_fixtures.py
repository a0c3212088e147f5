"""What the BoomerClassifier option tests share: a small seeded data set, a fitted model's state, the assertion that two
fits built the same model, and the two fits most files compare (dense and CSR input; one and two threads). Each
test file binds its own sizes, e.g.
`_data = functools.partial(data, n=120, F=6)`, so its data stay what they were."""

import numpy as np
import scipy.sparse as sp

MODEL_ARRAYS = ("cond_ptr_", "cond_feature_", "cond_threshold_", "cond_op_", "head_ptr_", "head_label_", "head_score_")


def data(n=150, F=8, K=4, seed=0, nan=0.05, zeros=0.3):
    """(X, Y): n rounded normal features of which a share `zeros` are 0, K labels from a noisy linear model, and then a
    share `nan` of X missing (drawn after Y, so Y never sees a NaN)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, F)), 2)
    X[rng.random(X.shape) < zeros] = 0.0
    Y = ((X @ rng.normal(size=(F, K)) + 0.3 * rng.normal(size=(n, K))) > 0).astype(np.int8)
    X[rng.random(X.shape) < nan] = np.nan
    return X, Y


def state(c):
    "The arrays of fitted model `c`: its rules and, where it has them, its calibration maps."
    arrays = [getattr(c, a) for a in MODEL_ARRAYS]
    for cal in (getattr(c, "marginal_calibration_", None), getattr(c, "joint_calibration_", None)):
        if cal is not None:
            arrays += [cal.ptr_, cal.x_, cal.v_]
    return arrays


def same(a, b):
    "Assert that fitted models `a` and `b` are the same model, bit for bit."
    assert a.n_rules_ == b.n_rules_
    for x, y in zip(state(a), state(b)):
        np.testing.assert_array_equal(x, y)


def dense_and_csr(make, X, Y):
    "`make()` fitted on `X` and then on its CSR copy; asserts they built the same model and returns both."
    a, b = make().fit(X, Y), make().fit(sp.csr_matrix(X), Y)
    same(a, b)
    return a, b


def one_and_two_jobs(make, X, Y):
    "`make(n_jobs=1)` and then `make(n_jobs=2)` fitted on `X`; asserts they built the same model and returns both."
    a, b = make(n_jobs=1).fit(X, Y), make(n_jobs=2).fit(X, Y)
    same(a, b)
    return a, b
