"""Why mlrl-boomer's `squared_error_example_wise` escapes its stuck fits on medical and ours does not (chapter 06i,
*The example-wise squared error on medical*).

    python tools/exact_search_check.py ../shared/data bench_results/exact_search_check.txt

(and the per-seed rows of part 3 in the same name with `_seeds.csv`).

mlrl-boomer 0.15.6's exact threshold search walks a feature's stored values < 0 upwards and those >= 0 downwards,
adding each example to the statistics of the examples passed so far. The downward walk stops one value early: the
covered example at the lowest position of the values >= 0 is never added. So a split just above that value is never
tried when one example holds it, and a sparse feature's "present" statistics (value > 0.5 for a word) miss one example
whenever two or more covered examples have the feature, while the rule's condition, applied afterwards, covers the
right examples: the head and quality are those of another set of examples than the rule covers. Given a dense array,
it stores the zeros too, and the example left out is then a lowest-valued one, which matters only where a single
covered example holds a feature's lowest value (for a 0/1 word, where every covered example but one has it).
Four parts:

0. medical, every feature searched, 20 rules: both libraries' rules side by side (the stuck fit both learn);
1. toy problems, one feature, where the best rule excludes exactly one example (mlrl-boomer only);
2. medical restricted to 30 random sets of 11 features, every feature searched (no sampling), 60 rules: mlrl-boomer,
   ours, and a slow Python BOOMER written out here, with and without that missing example: which reproduce whose rules;
   and whether mlrl-boomer given the same features as a dense array reproduces ours;
3. the suite's configuration (log2 feature sampling per refinement), seeds 1-20, 1000 rules: mlrl-boomer given dense
   arrays, and the slow BOOMER with and without the missing example, against the committed twenty-seed runs of both
   libraries (`bench_results/boomer_options_small_gaps_seeds.csv`).
The slow BOOMER is throw-away code for this check (medical's features are 0/1, which it assumes); the library keeps
its exact search.
"""
import json
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import scipy.sparse as sp

from mlc_lit.bench import boomer_options as bo
from mlc_lit.bench import load_split, read_rows, write_rows
from mlc_lit.metrics import example_f1
from gfm_calibrated_check import _dense, reference_rows

SUBSETS, SUBSET_SIZE, SUBSET_RULES, WHOLE_RULES = 30, 11, 60, 20
SEEDS, RULES, ESCAPED = range(1, 21), 1000, 0.25       # a fit "escapes" when its test example F1 exceeds 0.25
SHRINKAGE, L2 = 0.3, 1.0
LOSSES = ("subset01", "hamming", "example_f1")
TOYS = [("x = 1..20, y = 0 only at x = 1", np.arange(1, 21), np.arange(1, 21) >= 2, "x > 1.5"),
        ("x = 0..19, y = 0 only at x = 0", np.arange(0, 20), np.arange(0, 20) >= 1, "x > 0.5"),
        ("x = -10..9, y = 0 only at x = -10", np.arange(-10, 10), np.arange(-10, 10) >= -9, "x > -9.5"),
        ("x = 1..20, y = 0 only at x = 20", np.arange(1, 21), np.arange(1, 21) <= 19, "x <= 19.5"),
        ("x = ten 0s and ten 1s, y = x", np.repeat([0, 1], 10), np.repeat([0, 1], 10) == 1, "x > 0.5")]


def _subsets(F):
    rng = np.random.default_rng(0)
    return [np.sort(rng.choice(F, SUBSET_SIZE, replace=False)) for _ in range(SUBSETS)]


def _conditions(model):
    "A fitted mlrl-boomer model's rules as [(conditions, head)], conditions (feature, '<=' or '>', threshold)."
    rules = []
    class Visitor:
        def __getattr__(self, name):
            def visit(*a):
                if name == "visit_empty_body": rules.append([[], None])
                elif name == "visit_conjunctive_body":
                    rules.append([[(int(f), op, float(t)) for attr, op in (("numerical_leq", "<="), ("numerical_gr", ">"))
                                   if getattr(a[0], attr + "_indices") is not None
                                   for f, t in zip(np.asarray(getattr(a[0], attr + "_indices")),
                                                   np.asarray(getattr(a[0], attr + "_thresholds")))], None])
                elif name == "visit_complete_head": rules[-1][1] = [float(v) for v in np.asarray(a[0].scores)]
            return visit
    model.visit(Visitor())
    return rules


def _reference(X, Y, **options):
    from mlrl.boosting import BoomerClassifier
    p = dict(loss="squared-error-non-decomposable", head_type="complete", label_binning="none", shrinkage=SHRINKAGE,
             l2_regularization_weight=L2, random_state=1, feature_sampling="none", statistic_type="64-bit",
             parallel_rule_refinement="false", parallel_statistic_update="false", parallel_prediction="false")
    return BoomerClassifier(**dict(p, **options)).fit(X, Y)


def reference_side(data_dir):
    "Run in mlrl-boomer's interpreter: the toy problems' rule bodies and the restricted medical fits' rules."
    toys = []
    for _, x, y, _ in TOYS:
        X = np.c_[np.asarray(x, float), np.zeros(len(x))]          # (it refuses a single feature)
        clf = _reference(X, np.asarray(y, np.uint8)[:, None], loss="logistic-decomposable", head_type="single",
                         max_rules=1, default_rule="false", shrinkage=1.0)
        toys.append(_conditions(clf.model_)[0][0])
    X, Y, Xt, Yt, _ = load_split("medical", data_dir, exact_names=True)
    subsets = {fmt: [_conditions(_reference(A[:, f], Y, max_rules=SUBSET_RULES).model_) for f in _subsets(X.shape[1])]
               for fmt, A in (("csr", X), ("dense", X.toarray()))}
    dense = [{k: r[k] for k in LOSSES} for r in (bo.fit_one("mlrl-boomer", "squared_error_example_wise", s, X.toarray(), Y,
                                                            Xt.toarray(), Yt) for s in SEEDS)]
    return dict(toys=toys, subsets=subsets["csr"], dense_subsets=subsets["dense"], dense=dense,
                whole=_conditions(_reference(X, Y, max_rules=WHOLE_RULES).model_))


class SlowBoomer:
    """BOOMER with the example-wise squared error ‖s − ỹ‖ and complete heads on 0/1 features, written out: the default
    rule's Newton step, then per rule a greedy search over `n_feat` features drawn per refinement (or `features`,
    all of them each time), each offering "absent" (<= 0.5) and "present" (> 0.5); a sample that offers no first
    condition is drawn again. `missing_one`: the statistics of a
    feature's present examples leave out the lowest-numbered one whenever two or more are covered, as mlrl-boomer's."""

    def __init__(self, X, Y, missing_one, features=None):
        Xc = sp.csc_matrix(X); self.Y = _dense(Y).astype(float); self.n, self.K = self.Y.shape
        self.rows = [Xc.indices[Xc.indptr[f]:Xc.indptr[f + 1]] for f in range(Xc.shape[1])]
        self.missing_one, self.features, self.F = missing_one, features, Xc.shape[1]

    def _stats(self, S):
        R = S - (2 * self.Y - 1); norm = np.maximum(np.linalg.norm(R, axis=1), 1e-300)
        H = np.eye(self.K)[None] / norm[:, None, None] - R[:, :, None] * R[:, None, :] / norm[:, None, None] ** 3
        return R / norm[:, None], H

    def _head(self, g, h):
        w = -np.linalg.solve(h + L2 * np.eye(self.K), g)
        return w, g @ w + 0.5 * w @ h @ w + 0.5 * L2 * w @ w

    def _refine(self, G, H, covered, sample, best):
        "The best (quality, feature, present?, head) over `sample` better than `best`'s, or None."
        g_all, h_all, n_cov, found = G[covered].sum(0), H[covered].sum(0), covered.sum(), None
        for f in sample:
            present = self.rows[f][covered[self.rows[f]]]
            if len(present) == 0 or len(present) == n_cov: continue
            seen = present[1:] if self.missing_one and len(present) >= 2 else present
            g, h = G[seen].sum(0), H[seen].sum(0)
            for is_present, gs, hs in ((True, g, h), (False, g_all - g, h_all - h)):
                w, q = self._head(gs, hs)
                if (found is None or q < found[0]) and (best is None or q < best[0]): found = (q, f, is_present, w)
        return found

    def fit(self, seed, max_rules):
        rng, n_feat = np.random.default_rng(seed), int(np.log2(self.F - 1) + 1)
        G, H = self._stats(np.zeros((self.n, self.K)))
        self.default_ = self._head(G.sum(0), H.sum(0))[0]
        S, self.rules_ = np.tile(self.default_, (self.n, 1)), []
        for _ in range(max_rules):
            G, H = self._stats(S)
            covered, best, body = np.ones(self.n, bool), None, []
            while True:
                sample = self.features if self.features is not None else rng.choice(self.F, n_feat, replace=False)
                found = self._refine(G, H, covered, sample, best)
                if found is None and best is None and self.features is None: continue   # a sample without a first
                if found is None: break                                                 # condition: draw again, as ours
                best, (_, f, is_present, _) = found, found
                body.append((int(f), is_present))
                has = np.zeros(self.n, bool); has[self.rows[f]] = True
                covered &= has if is_present else ~has
            if best is None: break
            S[covered] += SHRINKAGE * best[3]; self.rules_.append((body, SHRINKAGE * best[3]))
        return self

    def predict(self, X):
        "The known label vector nearest to each example's scores (the example-wise predictor)."
        X = _dense(X); S = np.tile(self.default_, (X.shape[0], 1))
        for body, head in self.rules_:
            c = np.ones(X.shape[0], bool)
            for f, is_present in body: c &= (X[:, f] > 0.5) if is_present else (X[:, f] <= 0.5)
            S[c] += head
        V = np.unique(self.Y, axis=0)
        return V[((S[:, None, :] - (2 * V[None] - 1)) ** 2).sum(2).argmin(1)]


def _same_rules(heads, rules, tol=1e-4):
    "Whether two lists of heads agree to `tol` (default rule first in both)."
    return len(heads) == len(rules) and all(np.abs(np.asarray(a) - np.asarray(b)).max() <= tol for a, b in zip(heads, rules))


def _our_rules(X, Y, max_rules):
    "Our fit with every feature searched, as [(conditions, head)] (default rule first)."
    from mlc_lit.boomer import BoomerClassifier
    m = BoomerClassifier(loss="squared_error_example_wise", head="complete", max_rules=max_rules, shrinkage=SHRINKAGE, l2=L2,
                         instance_sampling=None, feature_sampling=None, random_state=1, n_jobs=1).fit(X, Y)
    out = []
    for r in range(m.n_rules_):
        h = np.zeros(Y.shape[1]); sl = slice(m.head_ptr_[r], m.head_ptr_[r + 1]); h[m.head_label_[sl]] = m.head_score_[sl]
        body = [(int(m.cond_feature_[c]), "<=" if m.cond_op_[c] == 0 else ">", float(m.cond_threshold_[c]))
                for c in range(m.cond_ptr_[r], m.cond_ptr_[r + 1])]
        out.append((body, h))
    return out


def whole_lines(X, Y, ref_rules, shown=6):
    "Part 0: both libraries' first rules on medical with every feature searched, and how far their heads are apart."
    ours, Xd = _our_rules(X, Y, WHOLE_RULES), _dense(X)
    cover = lambda body: int(np.all([(Xd[:, f] <= t) if op == "<=" else (Xd[:, f] > t) for f, op, t in body], axis=0).sum()) \
        if body else Xd.shape[0]
    lines = [f"0. medical, every feature searched, seed 1, {WHOLE_RULES} rules:",
             "   rule, condition, examples covered, first three head values (shrunk)"]
    for r, ((ob, oh), (rb, rh)) in enumerate(zip(ours[:shown], ref_rules[:shown])):
        show = lambda b, h: f"{' and '.join(f'x{f} {op} {t:g}' for f, op, t in b) or 'default':14s} {cover(b):4d}  " + \
            " ".join(f"{v:+7.3f}" for v in h[:3])
        lines += [f"  {r:2d} ours         {show(ob, oh)}", f"     mlrl-boomer  {show(rb, rh)}"]
    d = max(float(np.abs(np.asarray(oh) - np.asarray(rh)).max()) for (_, oh), (_, rh) in zip(ours, ref_rules))
    n_cond = [len(b) for b, _ in ours[1:]] + [len(b) for b, _ in ref_rules[1:]]
    return lines + [f"  over all {WHOLE_RULES} rules: largest head difference {d:.1e}; conditions per rule {min(n_cond)}-{max(n_cond)}",
                    f"  training examples: {Xd.shape[0]}", ""]


def restricted_side(X, Y, ref_subsets, dense_subsets):
    """Per feature subset: whether ours reproduces the reference; whether the slow BOOMER as written, then with the
    missing example, reproduces the reference and ours; the reference's conditions per rule; whether ours reproduces
    the reference fitted on the same features as a dense array."""
    out = []
    for feats, ref, dense in zip(_subsets(X.shape[1]), ref_subsets, dense_subsets):
        ref_heads = [h for _, h in ref]
        ours = [h for _, h in _our_rules(X[:, feats], Y, SUBSET_RULES)]
        row = [_same_rules(ours, ref_heads)]
        for missing_one in (False, True):
            slow = SlowBoomer(X[:, feats], Y, missing_one, features=np.arange(len(feats))).fit(1, SUBSET_RULES - 1)
            heads = [slow.default_] + [h for _, h in slow.rules_]
            row += [_same_rules(heads, ref_heads), _same_rules(heads, ours)]
        row.append(sum(len(b) for b, _ in ref[1:]) / (len(ref) - 1))
        row.append(_same_rules(ours, [h for _, h in dense]))
        out.append(row)
    return out


_MEDICAL = None                                          # a pool worker's copy of the split, loaded once per worker


def _load_medical(data_dir):
    global _MEDICAL
    _MEDICAL = load_split("medical", data_dir, exact_names=True)[:4]


def _sampled_fit(args):
    missing_one, seed = args
    X, Y, Xt, Yt = _MEDICAL
    slow = SlowBoomer(X, Y, missing_one).fit(seed, RULES - 1)             # max_rules counts the default rule
    present = sum(p for body, _ in slow.rules_ for _, p in body)
    return example_f1(_dense(Yt), slow.predict(Xt)), np.mean([len(b) for b, _ in slow.rules_]), present


def sampled_side(data_dir, workers=2):
    "Per variant (False: the search as written, True: with the missing example): per seed (F1, conditions/rule, '>')."
    jobs = [(m, s) for m in (False, True) for s in SEEDS]
    with ProcessPoolExecutor(workers, initializer=_load_medical, initargs=(data_dir,)) as pool: res = list(pool.map(_sampled_fit, jobs))   # each job seeded: any order
    return {m: res[i * len(SEEDS):(i + 1) * len(SEEDS)] for i, m in enumerate((False, True))}


def _library_runs(path="bench_results/boomer_options_small_gaps_seeds.csv", measure="example_f1"):
    "Per side, the committed twenty-seed `measure` of `squared_error_example_wise` on medical."
    rows = [r for r in read_rows(path) if r["dataset"] == "medical" and r["config"] == "squared_error_example_wise"]
    return {impl: [float(r[measure]) for r in rows if r["impl"] == impl] for impl in ("mlc_lit", "mlrl-boomer")}


def main(data_dir, out):
    ref = reference_rows("exact_search_check", data_dir)
    X, Y, _, _, _ = load_split("medical", data_dir, exact_names=True)
    lines = whole_lines(X, Y, ref["whole"]) + ["1. One feature, one rule, no default rule (logistic loss, single label):",
                                         "   what mlrl-boomer 0.15.6 picks", ""]
    for (name, _, _, best), body in zip(TOYS, ref["toys"]):
        got = " and ".join(f"x {op} {t:g}" for _, op, t in body)
        lines.append(f"  {name:36s} best {best:10s} mlrl-boomer: {got}")
    rows = np.array(restricted_side(X, Y, ref["subsets"], ref["dense_subsets"]), dtype=float)
    lines += ["", f"2. medical restricted to {SUBSETS} random sets of {SUBSET_SIZE} features, all searched, {SUBSET_RULES} rules",
              "   (heads equal to 1e-4):",
              f"  ours reproduces mlrl-boomer's rules on {int(rows[:, 0].sum())} of {SUBSETS} sets",
              f"  the slow BOOMER as written reproduces mlrl-boomer's on {int(rows[:, 1].sum())} and ours on {int(rows[:, 2].sum())}",
              f"  the slow BOOMER with mlrl-boomer's missing example reproduces mlrl-boomer's on {int(rows[:, 3].sum())} "
              f"and ours on {int(rows[:, 4].sum())}", f"  mlrl-boomer's conditions per rule: {rows[:, 5].mean():.3f}",
              f"  mlrl-boomer given the same features as a dense array reproduces ours on {int(rows[:, 6].sum())}"]
    lines += ["", f"3. The suite's configuration on medical, seeds {SEEDS.start}-{SEEDS.stop - 1}, {RULES} rules:",
              f"   test example F1 (mean; fits above {ESCAPED})"]
    show = lambda name, f1: lines.append(f"  {name:44s} {np.mean(f1):.3f}  ({sum(v > ESCAPED for v in f1)} of {len(f1)})")
    lib = _library_runs()
    show("mlrl-boomer 0.15.6 (committed runs)", lib["mlrl-boomer"]); show("ours (committed runs)", lib["mlc_lit"])
    show("mlrl-boomer 0.15.6 given dense arrays", [r["example_f1"] for r in ref["dense"]])
    d = [np.mean(_library_runs(measure=k)["mlc_lit"]) - np.mean([r[k] for r in ref["dense"]]) for k in LOSSES]
    lines.append(f"  {'':44s} ours minus it: subset 0/1 {d[0]:+.3f}, Hamming {d[1]:+.4f}, example F1 {d[2]:+.3f}")
    seeds = [dict(variant="mlrl-boomer on dense input", seed=s, **r) for s, r in zip(SEEDS, ref["dense"])]
    for missing_one, res in sampled_side(data_dir).items():
        seeds += [dict(variant="missing example" if missing_one else "as written", seed=s, example_f1=f1,
                       conditions_per_rule=c, present_conditions=int(p)) for s, (f1, c, p) in zip(SEEDS, res)]
        res = np.array(res)
        show("slow BOOMER" + (" with the missing example" if missing_one else " as written"), res[:, 0])
        lines.append(f"  {'':44s} conditions per rule {res[:, 1].mean():.2f}, rules' '>' conditions {res[:, 2].mean():.0f}")
    write_rows(seeds, out.rsplit(".", 1)[0] + "_seeds.csv")
    with open(out, "w") as fh: fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(*sys.argv[1:3])
