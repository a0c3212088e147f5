"""mlrl-boomer's L1 step on its default rule, against ours with either step (chapter 06i, "L1 with the reference's step").

    python tools/l1_default_rule_check.py ../shared/data

Fits the default rule alone (`max_rules=1`) on emotions with L1 weights 1, 20 and 50 (label-wise logistic loss,
single-label heads, shrinkage 0.3, L2 weight 1, one thread) on both sides, and prints the largest difference between
the reference's scores on one test example and ours with `l1_step='soft_threshold'` and with `l1_step='mlrl_boomer'`.
The reference side runs in mlrl-boomer's interpreter (`mlc_lit.bench.boomer_options.reference_python`), this file
with `--reference` and this checkout on its path.
"""
import json
import os
import subprocess
import sys

import numpy as np

ALPHAS = (1.0, 20.0, 50.0)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def scores(impl, data_dir, step="soft_threshold"):
    "The default rule's scores on the first test example of emotions, one list per L1 weight."
    from mlc_lit.bench import load_split
    X, Y, Xt, _ = load_split("emotions", data_dir, exact_names=True)[:4]
    out = []
    for a in ALPHAS:
        if impl == "mlrl-boomer":
            from mlrl.boosting import BoomerClassifier
            c = BoomerClassifier(max_rules=1, l1_regularization_weight=a, l2_regularization_weight=1.0, shrinkage=0.3,
                                 loss="logistic-decomposable", head_type="single", parallel_rule_refinement="false",
                                 parallel_statistic_update="false", parallel_prediction="false").fit(X, Y)
            out.append(np.asarray(c.decision_function(Xt[:1]), float).ravel().tolist())
        else:
            from mlc_lit.boomer import BoomerClassifier
            c = BoomerClassifier(max_rules=1, l1=a, l1_step=step, l2=1.0, shrinkage=0.3, head="single",
                                 instance_sampling=None, n_jobs=1).fit(X, Y)
            out.append(c.decision_function(Xt[:1]).ravel().tolist())
    return out


def main(data_dir):
    from mlc_lit.bench.boomer_options import reference_python
    python = reference_python()
    if python is None: sys.exit("mlrl-boomer's interpreter was not found (set MLC_LIT_BOOMER_PYTHON).")
    env = dict(os.environ, PYTHONPATH=ROOT)
    ref = json.loads(subprocess.run([python, __file__, "--reference", data_dir], env=env, check=True,
                                    capture_output=True, text=True).stdout)
    for step in ("soft_threshold", "mlrl_boomer"):
        ours = scores("mlc_lit", data_dir, step)
        gaps = ", ".join(f"alpha {a:g}: {np.abs(np.subtract(o, r)).max():.2g}" for a, o, r in zip(ALPHAS, ours, ref))
        print(f"l1_step={step!r}: largest |ours - mlrl-boomer| over the 6 default scores, {gaps}")


if __name__ == "__main__":
    if sys.argv[1] == "--reference": print(json.dumps(scores("mlrl-boomer", sys.argv[2])))
    else: main(sys.argv[1])
