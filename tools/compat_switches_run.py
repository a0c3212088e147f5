"""Our side of the options suite with the reference's three rules switched on, on all six data sets (chapter 06i,
*Every option with the reference's rules*).

    python tools/compat_switches_run.py ../shared/data bench_results/boomer_options_compat.csv

(and the printed comparison in the same name with `.txt`), and the two configurations where ours with the switches is worse
than the reference by more than the band there, over twenty seeds against the committed twenty-seed reference rows:

    python tools/compat_switches_run.py ../shared/data bench_results/boomer_options_compat_seeds.csv --twenty

Three of our defaults differ from mlrl-boomer 0.15.6 by choice, and each has a switch that does what the reference
does (chapter 01a): `single_label='abs_score'` (a single-label head takes the label with the largest |score|, not
the best quality), `l1_step='mlrl_boomer'` (its L1 step, where `l1` > 0) and
`rule_induction_options=dict(irep_update='last_prefix')` (the examples a rule pruned by IREP updates, where
`rule_pruning='irep'`). This fits ours with our defaults and with all three in every configuration of the full run
(`bench_results/boomer_options_all.csv`) but the time limit (whose rules depend on the machine's speed), seeds 1-3,
1000 rules, and compares with that run's reference rows. mlrl-boomer is deterministic for a seed: its rows on medical
and enron in `boomer_options_dense_reference.csv` (run 2026-12-03) equal the full run's (2026-11-28) in every
quality column and rule count, 168 of 168. Quality only: this machine may be busy.
"""
import os
import sys
from contextlib import contextmanager

import numpy as np

from mlc_lit.bench import boomer_options as bo
from mlc_lit.bench import load_split, nominal_features, read_rows, write_rows

FULL_RUN = "bench_results/boomer_options_all.csv"
SEEDS, MEASURES, TOLERANCE = (1, 2, 3), ("subset01", "hamming", "example_f1"), 0.02


def switched(ours: dict) -> dict:
    "Our parameters of one configuration with the reference's rules: its label rule, and its L1 step and IREP update where they apply."
    p = dict(ours, single_label="abs_score")
    if p.get("l1"): p["l1_step"] = "mlrl_boomer"
    if p.get("rule_pruning") == "irep":
        p["rule_induction_options"] = dict(p.get("rule_induction_options") or {}, irep_update="last_prefix")
    return p


@contextmanager
def registered(params: dict, ref: dict):
    "A temporary configuration of `OPTIONS` with our `params` and the reference's `ref` (`make` reads OPTIONS): its name."
    bo.OPTIONS["_compat"] = (params, ref)
    try: yield "_compat"
    finally: bo.OPTIONS.pop("_compat", None)


def fit_both(name, config, seeds, X, Y, Xt, Yt, nominal=None):
    "Rows of ours in `config` on data set `name`, per seed with our defaults and with the switches (`switches`)."
    ours, ref = bo.OPTIONS[config]
    with registered(switched(ours), ref) as compat:
        return [dict(suite="boomer-options", dataset=name, **dict(bo.fit_one("mlc_lit", c, seed, X, Y, Xt, Yt, nominal=nominal),
                                                                  config=config), switches=on)
                for seed in seeds for on, c in ((False, config), (True, compat))]


def our_rows(data_dir, configs):
    "Our rows with our defaults and with the switches, per data set, configuration and seed."
    rows = []
    for name in bo.DATASETS:
        X, Y, Xt, Yt, meta = load_split(name, data_dir, exact_names=True)
        for config in configs:
            rows += fit_both(name, config, SEEDS, X, Y, Xt, Yt, nominal_features(meta))
    return rows


def largest_differences(ours, full, on) -> dict:
    """{(data set, config): the largest of the three quality differences} of ours with (`on`) or without the switches
    against the reference rows of `full`, by the suite's `side_by_side` (means over shared seeds; > 0: ours better)."""
    mine = [r for r in ours if str(r["switches"]) == str(on)]        # (a CSV gives the flag back as text)
    ref = [r for r in full if r["impl"] == "mlrl-boomer"]
    return {(d["dataset"], d["config"]): max((-d["d_subset01"], -d["d_hamming"], d["d_example_f1"]), key=abs)
            for d in bo.side_by_side(mine + ref)}


def comparison(ours, full):
    "Per data set: how many configurations are within the band with our defaults and with the switches, and which are not."
    worst = {side: largest_differences(ours, full, on) for side, on in (("defaults", False), ("switches", True))}
    lines = [f"Within ±{TOLERANCE:g} of mlrl-boomer on all three losses (means over seeds {SEEDS[0]}-{SEEDS[-1]}; "
             "> 0: ours better, the largest of the three)"]
    for name in bo.DATASETS:
        configs = [c for c in dict.fromkeys(r["config"] for r in ours if r["dataset"] == name) if (name, c) in worst["switches"]]
        counts = {side: sum(abs(w[name, c]) <= TOLERANCE for c in configs) for side, w in worst.items()}
        out = [f"{c} {worst['switches'][name, c]:+.3f} (defaults {worst['defaults'][name, c]:+.3f})"
               for c in configs if abs(worst["switches"][name, c]) > TOLERANCE]
        lines.append(f"{name}: {counts['defaults']} of {len(configs)} with our defaults, {counts['switches']} of "
                     f"{len(configs)} with the switches; outside with the switches: {', '.join(out) or 'none'}")
    return "\n".join(lines)


TWENTY = {("emotions", "based_on_probabilities"): "bench_results/boomer_options_isotonic_seeds.csv",
          ("medical", "post_optimization"): "bench_results/boomer_options_dense_reference.csv"}   # reference rows, seeds 1-20


def twenty_seeds(data_dir, out):
    "Ours with our defaults and with the switches, seeds 1-20, against the reference's CSR rows of `TWENTY`."
    rows, lines = [], ["Seeds 1-20: mean (standard error); difference: ours with the switches minus the reference"]
    for (name, config), ref_file in TWENTY.items():
        X, Y, Xt, Yt, meta = load_split(name, data_dir, exact_names=True)
        mine = fit_both(name, config, range(1, 21), X, Y, Xt, Yt, nominal_features(meta))
        rows += mine
        theirs = [r for r in read_rows(ref_file) if (r["dataset"], r["config"], r["impl"]) == (name, config, "mlrl-boomer")
                  and r.get("x_format", "csr") == "csr" and r["seed"] <= 20]
        sides = {"mlrl-boomer": theirs, "ours": [r for r in mine if not r["switches"]],
                 "ours, switches": [r for r in mine if r["switches"]]}
        lines += ["", f"{name}, {config}:", f"{'':12s}" + "".join(f"{s:>18s}" for s in sides) + f"{'difference':>18s}"]
        for k in MEASURES:
            v = {s: np.array([float(r[k]) for r in rs]) for s, rs in sides.items()}
            se = lambda a: a.std(ddof=1) / np.sqrt(len(a))
            diff = (v["ours, switches"].mean() - v["mlrl-boomer"].mean(), np.hypot(se(v["ours, switches"]), se(v["mlrl-boomer"])))
            lines.append(f"{k:12s}" + "".join(f"{a.mean():9.4f} ({se(a):.4f})" for a in v.values())
                         + f"{diff[0]:+9.4f} ({diff[1]:.4f})")
    write_rows(rows, out)
    return "\n".join(lines)


def map_construction(data_dir, seeds=range(1, 21)):
    """`based_on_probabilities` on emotions: our example F1 with our maps and with mlrl-boomer's map construction
    emulated on our own hold-out scores (`gfm_calibrated_check._RefMaps`, the yeast section's check), both label rules."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gfm_calibrated_check as g
    from mlc_lit.metrics import example_f1
    ours, ref = bo.OPTIONS["based_on_probabilities"]
    lines = ["", "emotions, based_on_probabilities, seeds 1-20: our example F1 (standard error), labels per test example"]
    for name, params in (("ours", ours), ("ours, switches", switched(ours))):
        f1 = []
        with registered(params, ref) as compat:
            fits = list(g.holdout_fits("emotions", compat, data_dir, seeds))
        for _, est, Xh, Yh, Xt, Yt in fits:
            marg = lambda A: est._marginals(est._decision_function(A))
            P = {"our maps": g._dense(est.predict(Xt)),
                 "its construction": (g._RefMaps().fit(marg(Xh), np.asarray(Yh, float)).apply(marg(Xt)) > 0.5).astype(int)}
            f1.append([(example_f1(Yt, A), A.sum(1).mean()) for A in P.values()])
        f1 = np.array(f1)                                   # seeds x (our maps, its construction) x (F1, labels)
        se = f1[:, :, 0].std(0, ddof=1) / np.sqrt(len(f1))
        lines.append(f"{name:16s}" + "  ".join(f"{k} {f1[:, j, 0].mean():.4f} ({se[j]:.4f}), {f1[:, j, 1].mean():.2f}"
                                            for j, k in enumerate(P)))
    return lines


def main(data_dir, out):
    if "--twenty" in sys.argv:
        text = "\n".join([twenty_seeds(data_dir, out), *map_construction(data_dir)])
    else:
        full = read_rows(FULL_RUN)
        rows = our_rows(data_dir, [c for c in dict.fromkeys(r["config"] for r in full) if c != "time_limit_1s"])
        write_rows(rows, out)
        text = comparison(rows, full)
    with open(out.rsplit(".", 1)[0] + ".txt", "w") as fh: fh.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main(*sys.argv[1:3])
