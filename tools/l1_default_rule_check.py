"""mlrl-boomer's L1 step on its default rule, against ours with either step (chapter 06i, "L1 with the reference's step").

    python tools/l1_default_rule_check.py ../shared/data

Fits the default rule alone (`max_rules=1`) on emotions with L1 weights 1, 20 and 50 on both sides, in the options
suite's `l1` configuration (label-wise logistic loss, single-label heads, shrinkage 0.3, L2 weight 1, one thread),
and prints the largest difference between the reference's scores on one test example and ours with `l1_step='soft_threshold'` and with `l1_step='mlrl_boomer'`.
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
    """The default rule's scores on the first test example of emotions, one list per L1 weight: the options suite's
    `l1` configuration of `impl` (`mlc_lit.bench.boomer_options.make`) with `max_rules=1` and the weight set."""
    from mlc_lit.bench import boomer_options as bo, load_split
    X, Y, Xt, _ = load_split("emotions", data_dir, exact_names=True)[:4]
    out = []
    for a in ALPHAS:
        c = bo.make(impl, "l1", 1, max_rules=1)
        c.set_params(**(dict(l1_regularization_weight=a) if impl == "mlrl-boomer" else dict(l1=a, l1_step=step)))
        out.append(np.asarray(c.fit(X, Y).decision_function(Xt[:1]), float).ravel().tolist())
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
