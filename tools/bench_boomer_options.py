#!/usr/bin/env python3
"""Side by side: mlc_lit's BoomerClassifier and mlrl-boomer 0.15.6 with the options of issue 18 that mlc_lit has
(hold-out set, pre-/post-pruning, isotonic calibration, GFM, predictions from probabilities, marginalised
probabilities), on Mulan splits, 1 thread. One CSV row per data set x configuration x implementation.

Run once per implementation, each in an environment that has it (mlrl-boomer 0.15.6 needs Python >= 3.12;
the reference environment needs numba and scipy too, to import mlc_lit's loader and metrics from this checkout):

    python tools/bench_boomer_options.py --impl ours --out bench_results/boomer_options.csv
    REF_VENV/bin/python tools/bench_boomer_options.py --impl ref --out bench_results/boomer_options.csv --append

Both load the data with `mlc_lit.data.load_dataset` and score with the same functions (subset 0/1, Hamming,
example-based F1 on `predict`; expected calibration error, 10 bins, of `predict_proba` over all example-label pairs).
Shared settings: max_rules=1000, shrinkage=0.3, l2=1.0, no instance sampling, log2 feature sampling,
random_state 1..5 (one row each); mlrl-boomer's defaults otherwise (hold-out size 0.33, pruning options as in its documentation).
Times are wall seconds of one fit on a 2-core machine shared with other jobs: noisy, for orientation only."""
import argparse, csv, os, sys, time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1"); os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np

from mlc_lit.data import load_dataset
from mlc_lit.metrics import example_f1, hamming_loss, subset_zero_one_loss
from mlc_lit.calibration import expected_calibration_error

# name: (our parameters, mlrl-boomer's parameters), on top of the shared settings
CONFIGS = {
    "plain": ({}, {}),
    "pre_pruning": (dict(holdout="random", global_pruning="pre_pruning"), dict(holdout="random", global_pruning="pre-pruning")),
    "post_pruning": (dict(holdout="random", global_pruning="post_pruning"), dict(holdout="random", global_pruning="post-pruning")),
    "marginal_isotonic": (dict(holdout="random", marginal_calibration="isotonic"),
                          dict(holdout="random", marginal_probability_calibration="isotonic")),
    "gfm": (dict(predictor="gfm"), dict(binary_predictor="gfm")),
    "gfm_calibrated": (dict(holdout="random", marginal_calibration="isotonic", joint_calibration="isotonic", predictor="gfm"),
                       dict(holdout="random", marginal_probability_calibration="isotonic",
                            joint_probability_calibration="isotonic", binary_predictor="gfm")),
    "based_on_probabilities": (dict(holdout="random", marginal_calibration="isotonic", based_on_probabilities=True),
                               dict(holdout="random", marginal_probability_calibration="isotonic",
                                    binary_predictor="output-wise{based_on_probabilities=true}")),
    "marginalized": (dict(probability_predictor="marginalized"), dict(probability_predictor="marginalized")),
}
FIELDS = ["dataset", "config", "impl", "seed", "n_rules", "subset01", "hamming", "example_f1", "ece", "fit_s"]


def make(impl, extra, seed=1):
    if impl == "ours":
        from mlc_lit.boomer import BoomerClassifier
        return BoomerClassifier(max_rules=1000, shrinkage=0.3, l2=1.0, instance_sampling=None, feature_sampling="log2",
                                random_state=seed, n_jobs=1, **extra)
    from mlrl.boosting import BoomerClassifier
    one = "false"
    return BoomerClassifier(max_rules=1000, shrinkage=0.3, l2_regularization_weight=1.0, loss="logistic-decomposable",
                            head_type="single", random_state=seed, parallel_rule_refinement=one,
                            parallel_statistic_update=one, parallel_prediction=one, **extra)


def run(impl, name, data_dir, configs, seeds):
    X, Y, _ = load_dataset(name, data_dir, "train"); Xt, Yt, _ = load_dataset(name, data_dir, "test")
    for config, seed in ((c, s) for c in configs for s in seeds):
        ours, ref = CONFIGS[config]
        clf = make(impl, ours if impl == "ours" else ref, seed)
        t0 = time.perf_counter(); clf.fit(X, Y); fit_s = time.perf_counter() - t0
        P = clf.predict(Xt); P = np.asarray(P.todense() if hasattr(P, "todense") else P)
        Pr = clf.predict_proba(Xt); Pr = np.asarray(Pr.todense() if hasattr(Pr, "todense") else Pr)
        n_rules = clf.n_rules_ if impl == "ours" else clf.model_.get_num_used_rules()
        yield dict(dataset=name, config=config, impl=impl, seed=seed, n_rules=n_rules, subset01=f"{subset_zero_one_loss(Yt, P):.4f}",
                   hamming=f"{hamming_loss(Yt, P):.4f}", example_f1=f"{example_f1(Yt, P):.4f}",
                   ece=f"{expected_calibration_error(Yt, Pr):.4f}", fit_s=f"{fit_s:.2f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--impl", choices=["ours", "ref"], required=True)
    ap.add_argument("--data-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data"))
    ap.add_argument("--datasets", nargs="+", default=["emotions", "yeast"])
    ap.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3, 4, 5], help="random_state values (hold-out split, sampling)")
    ap.add_argument("--out", default="bench_results/boomer_options.csv")
    ap.add_argument("--append", action="store_true")
    a = ap.parse_args()
    with open(a.out, "a" if a.append else "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        if not a.append: w.writeheader()
        for name in a.datasets:
            for row in run(a.impl, name, a.data_dir, a.configs, a.seeds):
                w.writerow(row); fh.flush(); print(row, flush=True)
