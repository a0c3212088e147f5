"""Why mlrl-boomer's `gfm_calibrated` is so much worse than its own GFM (chapter 06i, *Joint calibration with the GFM*).

    python tools/gfm_calibrated_check.py ../shared/data bench_results/gfm_calibrated_check.txt

On emotions, seeds 1-20, the options suite's `gfm_calibrated` configuration (a random hold-out third, isotonic marginal
and joint calibration on it, the GFM on the calibrated joint probabilities). Two parts:

- mlrl-boomer 0.15.6 (its own interpreter): test losses, the share of test examples it predicts no label for, and
  whether those are the examples where one of its calibrated marginal probabilities is exactly 0 or 1;
- our models with the joint calibration changed, step by step, to what mlrl-boomer's sources do (read in
  `probability_calibration_isotonic.cpp` of both its `common` and `boosting` parts and `probability_function_chain_rule.cpp`):
  1. `prefix`: an example counts for label vector v when its relevant labels begin with v's, not when they equal them
     (its `areLabelVectorsEqual` stops after v's labels; so the empty vector matches every example);
  2. `joint maps`: its isotonic construction for the joint maps (the mean per distinct score, pools of equal
     weight per distinct score, the first score of each pool, linear interpolation with (0, 0) and (1, 1) at the ends);
  3. `marginal maps`: the same construction for the marginal maps;
  4. `unclipped`: the chain rule on the calibrated marginals without keeping them off 0 and 1 (ours clips to
     [1e-12, 1 - 1e-12]), so that a joint probability can be exactly 0, and a GFM whose joint probabilities are not
     all finite and positive predicts the empty vector, as mlrl-boomer's does when its qualities are NaN.
The emulation is throw-away code for this check; the library keeps its own calibration.
"""
import json
import os
import subprocess
import sys

import numpy as np

from mlc_lit.bench import boomer_options as bo
from mlc_lit.bench import load_split
from mlc_lit.metrics import example_f1, hamming_loss, subset_zero_one_loss

SEEDS = range(1, 21)


def _dense(A): return np.asarray(A.toarray() if hasattr(A, "toarray") else A)


def _losses(Yt, P): return [subset_zero_one_loss(Yt, P), hamming_loss(Yt, P), example_f1(Yt, P), float((P.sum(1) == 0).mean())]


def reference_fits(name, config, data_dir, seeds):
    "In mlrl-boomer's interpreter: per seed, (seed, fitted reference model, test predictions, test probabilities, test Y)."
    X, Y, Xt, Yt, _ = load_split(name, data_dir, exact_names=True)
    for s in seeds:
        clf = bo.make("mlrl-boomer", config, s).fit(X, Y)
        yield s, clf, _dense(clf.predict(Xt)), np.asarray(clf.predict_proba(Xt)), Yt


def reference_side(data_dir):
    "Run in mlrl-boomer's interpreter: per seed, the losses, empty share and the rows with a marginal of exactly 0 or 1."
    out = []
    for _, _, P, M, Yt in reference_fits("emotions", "gfm_calibrated", data_dir, SEEDS):
        empty, extreme = P.sum(1) == 0, ((M == 0) | (M == 1)).any(1)
        out.append(_losses(Yt, P) + [float(extreme.mean()), int((empty & extreme).sum()), int(empty.sum()), int(extreme.sum())])
    return out


def _ref_bins(x, y):
    "(thresholds, probabilities) of one map as mlrl-boomer 0.15.6 builds it from scores x and 0/1 targets y."
    o = np.argsort(x, kind="stable"); x, y = x[o], y[o]
    t, p, c = [], [], []
    for xi, yi in zip(x, y):                         # the mean target per distinct score
        if t and xi == t[-1]: c[-1] += 1; p[-1] += (yi - p[-1]) / c[-1]
        else: t.append(xi); p.append(yi); c.append(1)
    n, pools, i = len(t), list(range(len(t))), 0
    while i < n:                                     # pool runs that do not increase, each distinct score one weight
        j = pools[i] + 1
        if j >= n: break
        if p[j] > p[i]: i = j; continue
        k, last = 2, p[j]; p[i] += (p[j] - p[i]) / k
        j = pools[j] + 1
        while j < n and not p[j] > last:
            k += 1; p[i] += (p[j] - p[i]) / k; last = p[j]; j = pools[j] + 1
        pools[i] = j - 1; pools[j - 1] = i
        if i > 0: i = pools[i - 1]
    keep, i = [], 0
    while i < n: keep.append(i); i = pools[i] + 1   # each pool keeps its first score
    return np.array(t)[keep], np.array(p)[keep]


class _RefMaps:
    def fit(self, P, T):
        self.maps = [_ref_bins(P[:, j], T[:, j]) for j in range(P.shape[1])]; return self

    def apply(self, P):
        cols = []
        for j, (th, pr) in enumerate(self.maps):
            q = P[:, j]; k = np.searchsorted(th, q, side="left")
            lo_t = np.where(k > 0, th[np.maximum(k - 1, 0)], 0.0); lo_p = np.where(k > 0, pr[np.maximum(k - 1, 0)], 0.0)
            hi_t = np.where(k < len(th), th[np.minimum(k, len(th) - 1)], 1.0)
            hi_p = np.where(k < len(th), pr[np.minimum(k, len(th) - 1)], 1.0)
            with np.errstate(invalid="ignore", divide="ignore"): cols.append(lo_p + (q - lo_t) / (hi_t - lo_t) * (hi_p - lo_p))
        return np.column_stack(cols)


def _chain(P, V, clip):
    import mlc_lit.calibration as cal
    if clip: return np.exp(cal.joint_log_probabilities(P, V))
    return np.prod(np.where(V[None] > 0, P[:, None, :], 1.0 - P[:, None, :]), axis=2)


def emulated(est, Xh, Yh, Xt, steps):
    "Test predictions of fitted `est` after its calibration is refitted on its hold-out set with `steps` of mlrl-boomer's."
    import mlc_lit.calibration as cal
    V = est.label_vectors_.astype(float)
    marg = lambda X: est._marginals(est._decision_function(X))
    mmap = (_RefMaps() if "marginal maps" in steps else cal.IsotonicMaps()).fit(marg(Xh), np.asarray(Yh, float))
    rel, vv = [tuple(np.flatnonzero(y)) for y in np.asarray(Yh)], [tuple(np.flatnonzero(v)) for v in V]
    match = (lambda r, v: r[:len(v)] == v) if "prefix" in steps else (lambda r, v: r == v)
    T = np.array([[float(match(r, v)) for v in vv] for r in rel])
    clip = "unclipped" not in steps
    jmap = (_RefMaps() if "joint maps" in steps else cal.IsotonicMaps()).fit(_chain(mmap.apply(marg(Xh)), V, clip), T)
    Mt = mmap.apply(marg(Xt))
    J = jmap.apply(_chain(Mt, V, clip))
    s = J.sum(1, keepdims=True)
    bad = ~(np.isfinite(s[:, 0]) & (s[:, 0] > 0))
    Q = np.divide(J, s, out=np.zeros_like(J), where=~bad[:, None])
    if clip: Q[bad] = cal.normalized_joint(np.log(np.clip(_chain(Mt, V, True), 1e-300, None)))[bad]
    P = cal.gfm_predict(Q, V)
    if not clip: P[bad] = 0                          # mlrl-boomer's GFM keeps the empty vector when its qualities are NaN
    return P


STEPS = [(), ("prefix",), ("joint maps",), ("prefix", "joint maps"), ("prefix", "joint maps", "marginal maps"),
         ("prefix", "joint maps", "marginal maps", "unclipped")]


def holdout_fits(name, config, data_dir, seeds):
    """Per seed, (seed, fitted model, its hold-out X and Y, test X and Y) of our `config` on `name`: the hold-out set is
    the one the fit calibrated on, recorded from its call of `fit_calibration`."""
    import mlc_lit.calibration as cal
    X, Y, Xt, Yt, _ = load_split(name, data_dir, exact_names=True)
    real, seen = cal.fit_calibration, []
    def recording(est, Xc, Yc): seen.append((Xc, Yc)); real(est, Xc, Yc)
    cal.fit_calibration = recording
    try:
        for s in seeds:
            seen.clear()
            est = bo.make("mlc_lit", config, s).fit(X, Y)
            (Xh, Yh), = seen
            yield s, est, Xh, Yh, Xt, Yt
    finally: cal.fit_calibration = real


def reference_rows(module, data_dir):
    "`<module>.reference_side(data_dir)` (a tool in this folder) run in mlrl-boomer's interpreter: its JSON answer."
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = (f"import json, sys; sys.path.insert(0, 'tools'); import {module} as m; "
            f"print(json.dumps(m.reference_side({os.path.abspath(data_dir)!r})))")
    done = subprocess.run([bo.reference_python(), "-c", code], capture_output=True, text=True, check=True, cwd=root,
                          env=dict(os.environ, PYTHONPATH=root))
    return json.loads(done.stdout.strip().splitlines()[-1])


def our_side(data_dir):
    rows = {steps: [] for steps in STEPS}
    for _, est, Xh, Yh, Xt, Yt in holdout_fits("emotions", "gfm_calibrated", data_dir, SEEDS):
        base = _dense(est.predict(Xt))
        for steps in STEPS:
            P = base if not steps else emulated(est, Xh, Yh, Xt, steps)
            rows[steps].append(_losses(Yt, P))
    return rows


def main(data_dir, out):
    ref = np.array(reference_rows("gfm_calibrated_check", data_dir))
    lines = [f"emotions, gfm_calibrated, seeds {SEEDS.start}-{SEEDS.stop - 1}: means of subset 0/1, Hamming loss, example F1",
             "and the share of test examples predicted without a label", ""]
    fmt = lambda v: "%.3f  %.4f  %.3f  %.3f" % tuple(v)
    lines.append(f"{'':54s} subset  Hamming  F1     empty")
    lines.append(f"{'mlrl-boomer 0.15.6':54s} {fmt(ref[:, :4].mean(0))}")
    lines += [f"  test rows with a calibrated marginal of exactly 0 or 1: {ref[:, 4].mean():.3f}; of its {int(ref[:, 6].sum())} empty",
              f"  predictions {int(ref[:, 5].sum())} are such rows, and of its {int(ref[:, 7].sum())} such rows "
              f"{int(ref[:, 5].sum())} are predicted empty"]
    for steps, v in our_side(data_dir).items():
        name = "ours" if not steps else "ours + " + " + ".join(steps)
        lines.append(f"{name:54s} {fmt(np.mean(v, 0))}")
    with open(out, "w") as fh: fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(*sys.argv[1:3])
