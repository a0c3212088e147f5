"""Kept sums without instance sampling, before and after (chapter 06i).

    python tools/kept_sums_run.py ../shared/data bench_results/boomer_options_kept_sums.csv /tmp/before

`/tmp/before` is a checkout of the commit before the change (`git worktree add /tmp/before <commit>`). On medical and
enron, the options suite's configurations `plain`, `feature_binning_equal_width`, `feature_binning_equal_frequency` and
`equal_frequency_32`, seeds 1-3, one thread, each fit timed 7 times (medians). The three sides take turns per
configuration and seed, each in a process of its own, so that they run within seconds of each other (on a machine
whose speed drifts over minutes): ours before (the checkout given), ours now (this checkout) and mlrl-boomer.
Ours-before rows go to the output's `_before.csv` sibling; both files have the options suite's columns.
"""
import json
import os
import subprocess
import sys
import tempfile

from mlc_lit.bench import boomer_options as bo
from mlc_lit.bench import write_rows

CONFIGS = ("plain", "feature_binning_equal_width", "feature_binning_equal_frequency", "equal_frequency_32")
DATASETS, SEEDS, REPEATS = ("medical", "enron"), (1, 2, 3), 7


def side_of(checkout, name, data_dir, config, seed):
    "Our row on `name` for one configuration and seed from the mlc_lit of `checkout`, in a process of its own."
    env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rows.jsonl")
        arg = json.dumps(dict(impl="mlc_lit", name=name, data_dir=os.path.abspath(data_dir), configs=[config],
                              seeds=[seed], threads=1, max_rules=None, repeats=REPEATS, out=out))
        code = "from mlc_lit.bench.boomer_options import reference_main; reference_main()"
        subprocess.run([sys.executable, "-c", code, arg], check=True, env=env, cwd=tmp)
        with open(out) as fh: return [json.loads(line) for line in fh]


def main(data_dir, out, before):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rows, old = [], []
    for name in DATASETS:
        for config in CONFIGS:
            for seed in SEEDS:
                old += side_of(before, name, data_dir, config, seed)
                rows += side_of(here, name, data_dir, config, seed)
                rows += bo.run_reference(name, data_dir, (config,), (seed,), repeats=REPEATS)
    write_rows(rows, out); write_rows(old, os.path.splitext(out)[0] + "_before.csv")
    print(bo.summary(rows))
    print(bo.summary(old + [r for r in rows if r["impl"] == "mlrl-boomer"]))


if __name__ == "__main__":
    main(*sys.argv[1:4])
