"""Numba's on-disk cache under the conditions of a real installation: two processes on an empty cache, a
package folder nobody may write, and a kernel edited in another module than its caller."""

import os
import shutil
import site
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # fresh processes compiling from an empty Numba cache

import mlc_lit

PKG = Path(mlc_lit.__file__).resolve().parent

# Fits the pairwise learner (kernels compiled in about a second) and prints its decision scores.
PAIRWISE = """
import numpy as np
from mlc_lit.data import make_boomer_synthetic
from mlc_lit.qweighted import CalibratedPairwiseClassifier
X, Y, _ = make_boomer_synthetic("marginal_dependence", n=200, seed=0)
print(np.array2string(CalibratedPairwiseClassifier().fit(X, Y).decision_function(X[:5]), precision=12, separator=","))
"""

# Statistics of one example under the label-wise logistic loss: boomer's `_refresh_stats` calls `losses`' kernel.
STATS = """
import numpy as np
from mlc_lit.boomer import _refresh_stats
Y, S, stats = np.array([[1, 0]], np.int8), np.zeros((1, 2)), np.zeros((1, 4))
_refresh_stats(0, Y, S, stats, np.zeros(1, np.int64))
print(stats[0].tolist())
"""


# Every loss's statistics and mean loss, the default rule's heads and the scalar sweeps, through boomer's kernels,
# which compile each row, head or quality kernel again inside them: that copy must compute the same bits as the one
# a process compiles on its own (which the caller may call instead: fast-math could regroup either).
LOSS_ROWS = """
import hashlib
import numpy as np
from mlc_lit.boomer import _refresh_stats
from mlc_lit.losses import LOSS_LOGISTIC_EXAMPLE_WISE_LOW_RANK, LOSSES, mean_loss, packed_layout
rng = np.random.default_rng(0)
n, K = 300, 9
Y = (rng.random((n, K)) < 0.3).astype(np.int8)
S = np.where(rng.random((n, K)) < 0.3, np.where(Y > 0, 1.5, -0.5), rng.normal(size=(n, K)))
h = hashlib.sha1()
for code in sorted({*LOSSES.values(), LOSS_LOGISTIC_EXAMPLE_WISE_LOW_RANK}):
    stats = np.zeros((n, K + (K * (K + 1) // 2 if packed_layout(code) else K)))
    _refresh_stats(code, Y, S, stats, np.arange(n, dtype=np.int64))
    h.update(stats.tobytes()); h.update(np.float64(mean_loss(code, Y, S)).tobytes())
from mlc_lit.boomer import _make_default_head
for mode, width in ((0, 2 * K), (2, K + K * (K + 1) // 2)):   # the default rule's head: label-wise, complete
    head_kernel = _make_default_head(mode)
    g = rng.normal(size=width); g[K:] = np.abs(g[K:]) if mode == 0 else 0.1 * g[K:]
    if mode == 2: g[[K + j * (j + 3) // 2 for j in range(K)]] = 2.0 + rng.random(K)
    for l2 in (1.0, (1.0, 0.3)):                                # without and with L1
        head = np.zeros(K)
        head_kernel(g, K, -1, l2, np.zeros(K * (K + 1) // 2 + K), head)
        h.update(head.tobytes())
from mlc_lit.boomer import _presort, _search_numeric_frozen, _search_numeric_frozen_beam, BeamOptions
X = np.round(rng.normal(size=(n, 3)), 1) * (rng.random((n, 3)) < 0.7)   # the scalar sweeps, with and without L1
ps, w, cov = _presort(X), np.ones(n, np.int64), np.zeros(n, np.int64)
G, H = rng.normal(size=(n, 1)), np.abs(rng.normal(size=(n, 1)))
st = np.hstack([G, H]); tg, th = float(G.sum()), float(H.sum())
for f in range(3):
    for l2 in (1.0, (1.0, 0.3)):
        best, best_v = np.zeros(5), np.zeros(2)
        _search_numeric_frozen(f, ps, st, 0, 1, (w, cov, 0), (tg, th, n), 0, l2, (best, best_v), None)
        h.update(best.tobytes()); h.update(best_v.tobytes())
    best, best_v = np.zeros((4, 5)), np.zeros((4, 2))
    opts = BeamOptions(min_coverage=1, width=4, max_head_refinements=1, recalculate_predictions=True, resample_features=False)
    _search_numeric_frozen_beam(f, ps, st, 0, 1, (w, cov, 0), (tg, th, n), 0, 1.0, (best, best_v), opts)
    h.update(best.tobytes()); h.update(best_v.tobytes())
from mlc_lit.boomer import BoomerClassifier                  # and called from the beam search's grow kernel: with
rng = np.random.default_rng(1)                               # reassociation, its 15th rule took another threshold
X = np.round(rng.normal(size=(300, 10)), 2); X[rng.random(X.shape) < 0.3] = 0.0   # when the kernel came from the cache
Y = ((X @ rng.normal(size=(10, 5)) + 0.3 * rng.normal(size=(300, 5))) > 0).astype(np.int8)
X[rng.random(X.shape) < 0.05] = np.nan
beam = BoomerClassifier(max_rules=60, random_state=3, rule_induction="top_down_beam_search").fit(X, Y)
h.update(beam.head_score_.tobytes()); h.update(beam.cond_threshold_.tobytes())
print(h.hexdigest())
"""


def _run(code, env, cwd=None, user=None):
    cmd = [sys.executable, *(["-S"] if "PYTHONPATH" in env else []), "-c", code]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip(), out.stderr


def _env(**kw):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
    env.update(kw)
    return env


def _package_copy(tmp_path):
    "A copy of the installed package (without its caches); `_copy_env` imports it instead of the installed one."
    root = tmp_path / "site"
    shutil.copytree(PKG, root / "mlc_lit", ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return root


def _copy_env(root, **kw):
    "Python without site hooks (an editable install's finder would win), the copy first, then the dependencies."
    return _env(PYTHONPATH=os.pathsep.join([str(root), *site.getsitepackages()]), **kw)


def test_two_processes_on_an_empty_cache(tmp_path):
    env = _env(NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PAIRWISE], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    outs = [(o.strip(), e) for o, e in outs]
    assert outs[0][0] == outs[1][0] and outs[0][0]
    assert _run(PAIRWISE, env)[0] == outs[0][0]  # and a third process, reading what they cached


@pytest.mark.skipif(shutil.which("setpriv") is None and os.geteuid() == 0, reason="needs setpriv to drop root")
def test_read_only_package_uses_a_per_user_cache():
    base = Path(tempfile.mkdtemp(dir="/tmp"))  # (pytest's tmp_path is private to its owner)
    try:
        root = _package_copy(base)
        home = base / "home"
        home.mkdir()
        user = None
        if os.geteuid() == 0:  # root writes anywhere: run as nobody instead
            user = 65534
            os.chmod(base, 0o755)
            shutil.chown(home, user, user)
        for p in [root, *root.rglob("*")]:
            os.chmod(p, 0o555 if p.is_dir() else 0o444)
        env = _copy_env(root, HOME=str(home))
        env.pop("XDG_CACHE_HOME", None)
        first, _ = _run(PAIRWISE, env, cwd=str(home), user=user)
        assert not list((root / "mlc_lit").rglob("*.nbi"))  # nothing written into the package
        assert list(home.rglob("*.nbi"))  # the kernels went to the user's cache
        assert _run(PAIRWISE, env, cwd=str(home), user=user)[0] == first
    finally:
        for p in [base, *base.rglob("*")]:
            os.chmod(p, 0o755 if p.is_dir() else 0o644)
        shutil.rmtree(base)


def test_kernel_edited_in_another_module_is_recompiled(tmp_path):
    root = _package_copy(tmp_path)
    env = _copy_env(root, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    before = eval(_run(STATS, env, cwd=str(tmp_path))[0])
    losses = root / "mlc_lit" / "losses.py"
    text = losses.read_text()
    assert text.count("def _label_wise_logistic_row(") == 1
    head, body = text.split("def _label_wise_logistic_row(", 1)
    sig, rest = body.split("\n", 1)
    losses.write_text(head + "def _label_wise_logistic_row(" + sig + "\n    g[:] = 7.0; h[:] = 7.0; return\n" + rest)
    after = eval(_run(STATS, env, cwd=str(tmp_path))[0])
    assert before != after and after == [7.0] * 4  # the caller in boomer/heads.py did not run its cached callee


def test_compiled_and_cached_kernels_compute_the_same_bits(tmp_path):
    env = _env(NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    compiled = _run(LOSS_ROWS, env)[0]  # compiles every kernel, and caches them
    assert list((tmp_path / "cache").rglob("*.nbi"))
    assert _run(LOSS_ROWS, env)[0] == compiled  # loads them
