"""mlrl-boomer on medical and enron given the same data as a dense array instead of CSR (chapter 06i, *The reference
given dense arrays, in every configuration*).

    python tools/dense_reference_check.py ../shared/data bench_results/boomer_options_dense_reference.csv

(and the printed comparison in the same name with `.txt`).

mlrl-boomer 0.15.6's exact search leaves one example out of a sparse feature's "present" statistics
(`exact_search_check.py`). Given a dense array it stores every value, zeros included, and the example its walk leaves
out is then a lowest-valued one, which matters only where a single covered example holds a feature's lowest value
(on 0/1 words: a word that every covered example but one has). So the same estimator fitted on `X.toarray()` is, as
far as the search goes, mlrl-boomer without that defect.

Every configuration of the options suite but `time_limit_1s` (whose rules depend on the machine's speed), on medical
and enron, seeds 1-5, 1000 rules, and post-optimisation on medical with seeds 1-20: mlrl-boomer on CSR (as the suite
runs it) and on dense input, and ours on CSR (ours gives the same model on either, which tests/ check). Only the
quality columns are read: the dense fits are not the suite's timing.
"""
import sys

import numpy as np

from mlc_lit.bench import boomer_options as bo
from mlc_lit.bench import format_table, load_split, write_rows
from gfm_calibrated_check import reference_rows

DATASETS, SEEDS = ("medical", "enron"), (1, 2, 3, 4, 5)
MORE_SEEDS = {("medical", "post_optimization"): tuple(range(6, 21))}     # the one configuration read over twenty seeds
CONFIGS = tuple(c for c in bo.OPTIONS if c != "time_limit_1s")
MEASURES = ("subset01", "hamming", "example_f1")


def _rows(impl, data_dir, formats):
    "Rows of `impl` per data set, configuration, seed and input format (`x_format`: 'csr' or 'dense')."
    rows = []
    for name in DATASETS:
        X, Y, Xt, Yt, _ = load_split(name, data_dir, exact_names=True)
        for fmt in formats:
            A, At = (X, Xt) if fmt == "csr" else (X.toarray(), Xt.toarray())
            for config in CONFIGS:
                for seed in SEEDS + MORE_SEEDS.get((name, config), ()):
                    r = bo.fit_one(impl, config, seed, A, Y, At, Yt)
                    rows.append(dict(suite="boomer-options", dataset=name, **r, x_format=fmt))
    return rows


def reference_side(data_dir):
    "Run in mlrl-boomer's interpreter: its rows on CSR and on dense input."
    return _rows("mlrl-boomer", data_dir, ("csr", "dense"))


def comparison(rows, tolerance=0.02):
    "Per data set and configuration: ours, and ours minus the reference on CSR and on dense input (means over seeds)."
    mean = lambda sel, k: float(np.mean([float(r[k]) for r in sel]))
    everything, rows = rows, [r for r in rows if r["seed"] in SEEDS]
    table, counts = [], {"csr": 0, "dense": 0}
    for name in DATASETS:
        for config in CONFIGS:
            pick = lambda impl, fmt: [r for r in rows if (r["dataset"], r["config"], r["impl"]) == (name, config, impl)
                                      and r["x_format"] == fmt]
            ours, row = pick("mlc_lit", "csr"), dict(dataset=name, config=config)
            for k in MEASURES: row[k] = mean(ours, k)
            for fmt in ("csr", "dense"):
                ref = pick("mlrl-boomer", fmt)
                d = [row[k] - mean(ref, k) for k in MEASURES]
                for k, v in zip(MEASURES, d): row[f"d_{k}_{fmt}"] = v
                row[f"in_band_{fmt}"] = max(map(abs, d)) <= tolerance
                counts[fmt] += row[f"in_band_{fmt}"]
            table.append(row)
    n = len(table)
    lines = [f"mlrl-boomer 0.15.6 on CSR and on dense input, ours on CSR; means over seeds {SEEDS[0]}-{SEEDS[-1]}, "
             f"1000 rules (d_*_csr / d_*_dense: ours - mlrl-boomer on that input)", format_table(table), "",
             f"within +-{tolerance:g} on all three losses: {counts['csr']} of {n} against the reference on CSR, "
             f"{counts['dense']} of {n} against it on dense input"]
    for fmt in ("csr", "dense"):
        same = [r for r in rows if r["impl"] == "mlrl-boomer" and r["x_format"] == fmt]
        lines.append(f"  mean over all its rows on {fmt}: " + ", ".join(f"{k} {mean(same, k):.4f}" for k in MEASURES))
    for (name, config), more in MORE_SEEDS.items():
        pick = lambda impl, fmt: [r for r in everything if (r["dataset"], r["config"], r["impl"], r["x_format"]) ==
                                  (name, config, impl, fmt)]
        ours = pick("mlc_lit", "csr")
        lines.append(f"{name} {config}, seeds {SEEDS[0]}-{more[-1]}: ours " +
                     ", ".join(f"{k} {mean(ours, k):.4f}" for k in MEASURES))
        for fmt in ("csr", "dense"):
            ref = pick("mlrl-boomer", fmt)
            lines.append(f"  ours - mlrl-boomer on {fmt}: " + ", ".join(f"{k} {mean(ours, k) - mean(ref, k):+.4f}" for k in MEASURES)
                         + f" (standard error of its example F1 {np.std([r['example_f1'] for r in ref], ddof=1) / np.sqrt(len(ref)):.3f})")
    return "\n".join(lines)


def main(data_dir, out):
    rows = _rows("mlc_lit", data_dir, ("csr",)) + reference_rows("dense_reference_check", data_dir)
    write_rows(rows, out)
    text = comparison(rows)
    with open(out.rsplit(".", 1)[0] + ".txt", "w") as fh: fh.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main(*sys.argv[1:3])
