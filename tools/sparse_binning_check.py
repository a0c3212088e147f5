"""What mlrl-boomer's binned search learns on sparse binary features (chapter 06i, *Every option with the reference's
rules*).

    python tools/sparse_binning_check.py ../shared/data bench_results/sparse_binning_check.txt

Every feature of medical and enron is a 0/1 word, so any binning keeps each feature's two groups of examples, and a
binned fit should learn what the exact fit learns (ours does: the binning chapter and `tests/test_feature_binning.py`).
mlrl-boomer 0.15.6's binned fits there are not its exact fits. This counts the conditions of its rules, "<=" (on 0/1
words: the word is absent) and ">" (present), exact and with equal-frequency binning, given CSR (as the suite runs it)
and dense arrays, in the suite's `plain` and `feature_binning_equal_frequency` configurations, seeds 1-3, 1000 rules;
beside them ours (CSR, our defaults and the reference's label rule), and each fit's test example F1.
"""
import sys

import numpy as np

from mlc_lit.bench import boomer_options as bo
from mlc_lit.bench import load_split
from mlc_lit.metrics import example_f1
from exact_search_check import _conditions
from gfm_calibrated_check import _dense, reference_rows

DATASETS, SEEDS = ("medical", "enron"), (1, 2, 3)
CONFIGS = {"exact": "plain", "equal-frequency": "feature_binning_equal_frequency"}


def _f1(Y, P): return example_f1(np.asarray(Y), _dense(P))


def _reference_ops(model):
    "(rules, '<=' conditions, '>' conditions) of a fitted mlrl-boomer model."
    rules = _conditions(model)
    ops = [op for conditions, _ in rules for _, op, _ in conditions]
    return len(rules), ops.count("<="), ops.count(">")


def reference_side(data_dir):
    "Run in mlrl-boomer's interpreter: per data set, input format, search and seed, (rules, '<=', '>', example F1)."
    out = {}
    for name in DATASETS:
        X, Y, Xt, Yt, _ = load_split(name, data_dir, exact_names=True)
        for fmt, A, At in (("csr", X, Xt), ("dense", X.toarray(), Xt.toarray())):
            for search, config in CONFIGS.items():
                for seed in SEEDS:
                    clf = bo.make("mlrl-boomer", config, seed).fit(A, Y)
                    out[f"{name} {fmt} {search} {seed}"] = [*_reference_ops(clf.model_), _f1(Yt, clf.predict(At))]
    return out


def our_side(data_dir):
    "The same counts for ours on CSR, with our defaults and with `single_label='abs_score'`."
    out = {}
    for name in DATASETS:
        X, Y, Xt, Yt, _ = load_split(name, data_dir, exact_names=True)
        for rule, extra in (("ours", {}), ("ours, abs_score", dict(single_label="abs_score"))):
            for search, config in CONFIGS.items():
                for seed in SEEDS:
                    clf = bo.make("mlc_lit", config, seed).set_params(**extra).fit(X, Y)
                    ops = np.asarray(clf.cond_op_)
                    out[f"{name} {rule} {search} {seed}"] = [clf.n_rules_, int(np.sum(ops == 0)), int(np.sum(ops == 1)),
                                                             _f1(Yt, clf.predict(Xt))]
    return out


def main(data_dir, out):
    rows = dict(reference_rows("sparse_binning_check", data_dir), **our_side(data_dir))
    lines = [f"Conditions of 1000 rules, means over seeds {SEEDS[0]}-{SEEDS[-1]} (on 0/1 words '<=' is 'absent', '>' 'present')",
             f"{'':44s} conditions/rule  '<='    '>'    example F1"]
    for name in DATASETS:
        for side in ("mlrl-boomer, csr", "mlrl-boomer, dense", "ours", "ours, abs_score"):
            key = side.replace("mlrl-boomer, ", "")
            for search in CONFIGS:
                v = np.mean([rows[f"{name} {key} {search} {s}"] for s in SEEDS], axis=0)
                per_rule = (v[1] + v[2]) / max(v[0] - 1, 1)          # the default rule has no conditions
                lines.append(f"{name:8s} {side:19s} {search:15s} {per_rule:10.2f} {v[1]:10.1f} {v[2]:6.1f} {v[3]:9.3f}")
    text = "\n".join(lines)
    with open(out, "w") as fh: fh.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main(*sys.argv[1:3])
