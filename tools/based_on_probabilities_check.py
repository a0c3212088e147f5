"""Why mlrl-boomer's `based_on_probabilities` falls behind on yeast (chapter 06i, *Predictions from calibrated marginals*).

    python tools/based_on_probabilities_check.py ../shared/data bench_results/based_on_probabilities_check.txt

On yeast, seeds 1-3, the options suite's `based_on_probabilities` configuration (isotonic marginal calibration on a
random hold-out third, a label predicted where its calibrated probability exceeds 0.5). Per seed: mlrl-boomer 0.15.6's
example F1 and labels predicted per example (its own interpreter), with, for the label it predicts least often
relative to how often the label occurs, that label's calibration map; then ours, and ours with mlrl-boomer's map
construction emulated on our own hold-out scores (`gfm_calibrated_check._RefMaps`).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gfm_calibrated_check as g  # noqa: E402

from mlc_lit.metrics import example_f1  # noqa: E402

SEEDS = (1, 2, 3)


def reference_side(data_dir):
    "Run in mlrl-boomer's interpreter: per seed, F1, labels per example, and the most under-predicted label's map."
    out = []
    for s, clf, P, M, Yt in g.reference_fits("yeast", "based_on_probabilities", data_dir, SEEDS):
        bins = {}
        clf.marginal_probability_calibration_model_.visit(type("V", (), {"visit_bin": lambda self, i, t, p: bins.setdefault(i, []).append((t, p))})())
        k = int(np.argmin(P.mean(0) - Yt.mean(0)))
        out.append(dict(seed=s, f1=example_f1(Yt, P), per_example=float(P.sum(1).mean()), label=k, rate=float(Yt[:, k].mean()),
                        predicted=float(P[:, k].mean()), median_p=float(np.median(M[:, k])), map=bins[k]))
    return out


def our_side(data_dir):
    out = []
    for s, est, Xh, Yh, Xt, Yt in g.holdout_fits("yeast", "based_on_probabilities", data_dir, SEEDS):
        marg = lambda A: est._marginals(est._decision_function(A))
        M = g._RefMaps().fit(marg(Xh), np.asarray(Yh, float)).apply(marg(Xt))
        P0 = g._dense(est.predict(Xt))
        out.append((s, example_f1(Yt, P0), P0.sum(1).mean(), example_f1(Yt, (M > 0.5).astype(int)), (M > 0.5).sum(1).mean()))
    return out


def main(data_dir, out):
    ref = g.reference_rows("based_on_probabilities_check", data_dir)
    lines = ["yeast, based_on_probabilities: example F1 and labels predicted per test example", ""]
    for r in ref:
        pts = [f"({t:.3f}, {p:.3f})" for t, p in r["map"]]
        lines += [f"mlrl-boomer, seed {r['seed']}: example F1 {r['f1']:.3f}, {r['per_example']:.2f} labels per example",
                  f"  label {r['label']}: in {r['rate']:.2f} of the test examples, predicted for {r['predicted']:.2f}, "
                  f"median calibrated probability {r['median_p']:.3f}",
                  "  its map (score, probability):",
                  *("    " + ", ".join(pts[i:i + 6]) for i in range(0, len(pts), 6))]
    lines.append("")
    for s, f1, per, f1_ref, per_ref in our_side(data_dir):
        lines += [f"ours, seed {s}: example F1 {f1:.3f}, {per:.2f} labels per example",
                  f"  with mlrl-boomer's map construction on our hold-out scores: {f1_ref:.3f}, {per_ref:.2f}"]
    with open(out, "w") as fh: fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(*sys.argv[1:3])
