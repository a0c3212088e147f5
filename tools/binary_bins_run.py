"""Feature binning on binary features, before and after the fit took the exact search there (chapter 06i).

    python tools/binary_bins_run.py ../shared/data bench_results/boomer_options_binary_bins.csv

On medical and enron, whose features are all binary, the options suite's four configurations `plain`,
`feature_binning_equal_width`, `feature_binning_equal_frequency` and `equal_frequency_32`, seeds 1-3, one thread, each
fit timed 7 times (medians), in one process: ours as before (`boomer._at_most_two_bins` made to answer False, so the
histogram search runs as it did), ours as it is, and mlrl-boomer (`run_reference`, its own process). Ours-before rows
go to the output's `_before.csv` sibling; both files have the options suite's columns.
"""
import os
import sys

import numpy as np

import mlc_lit.boomer as boomer
from mlc_lit.bench import boomer_options as bo
from mlc_lit.bench import load_split, write_rows

CONFIGS = ("plain", "feature_binning_equal_width", "feature_binning_equal_frequency", "equal_frequency_32")
DATASETS, SEEDS, REPEATS = ("medical", "enron"), (1, 2, 3), 7


def main(data_dir, out):
    rows, before, real = [], [], boomer._at_most_two_bins
    for name in DATASETS:
        X, _, _, _, meta = load_split(name, data_dir, exact_names=True)
        nominal = np.isin(np.arange(X.shape[1]), bo.nominal_features(meta))
        bins, _ = boomer.bin_features(X, "equal_width", 0.33, 2, None, nominal)
        print(f"{name}: at most two bins per feature: {real(bins, nominal)}")
        boomer._at_most_two_bins = lambda bins, nominal: False          # before: the histograms, whatever the bins
        before += bo.run_side("mlc_lit", name, data_dir, CONFIGS, SEEDS, repeats=REPEATS)
        boomer._at_most_two_bins = real
        rows += bo.run_side("mlc_lit", name, data_dir, CONFIGS, SEEDS, repeats=REPEATS)
        rows += bo.run_reference(name, data_dir, CONFIGS, SEEDS, repeats=REPEATS)
    write_rows(rows, out); write_rows(before, os.path.splitext(out)[0] + "_before.csv")
    print(bo.summary(rows))


if __name__ == "__main__":
    main(*sys.argv[1:3])
