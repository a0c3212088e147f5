"""Every public estimator under bad input: a matrix of (estimator configuration x case) cells, each asserting
its outcome class — the call works, or it raises a ValueError/TypeError (or sklearn's NotFittedError) whose
message holds a phrase naming the parameter or the input. A new estimator or option family joins by one line
in CONFIGS; a new case by one line in CASES (or in a configuration's parameter families)."""

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

from mlc_lit.boomer import BoomerClassifier
from mlc_lit.qweighted import BinaryRelevancePerceptron, CalibratedPairwiseClassifier
from mlc_lit.rembed import RandomizedEmbeddingClassifier, RandomizedEmbeddingCV, SmoothLinkClassifier
from mlc_lit.xdcc import MLXGBClassifier, XDCCClassifier


@dataclass
class Cfg:
    "How to build a tiny configuration and which of its parameters the parameter cases try."

    make: callable  # make(**params) -> an unfitted estimator
    numeric: tuple = ()  # numeric hyper-parameters: a string or -1 must be refused
    zero_bad: tuple = ()  # ... where 0 must be refused too
    out_of_range: dict = field(default_factory=dict)  # {param: a value above its range}
    options: tuple = ()  # string options: an unknown string must be refused
    nan: bool = False  # NaN in X means missing (else: refused)
    methods: tuple = ()  # public methods besides predict/predict_proba/decision_function
    expect: dict = field(default_factory=dict)  # {case: outcome} where this configuration differs from CASES


# ------------------------------------------------------------------------------------------- outcomes
W = "works"


@dataclass
class E:
    "A clear error: an exception of `types` whose message contains `phrase` (case-insensitive)."

    phrase: str
    types: tuple = (ValueError, TypeError)


BOOMER = dict(max_rules=3, random_state=0)
XGB = dict(n_estimators=2, max_depth=2)
EMBED = dict(rank=1, n_random_features=16, random_state=0)
EMBED_CV = dict(param_distributions={"n_random_features": [8, 16], "l2": [0.1, 1.0]}, n_iter=2, random_state=0)
_B_NUM, _B_OPT = (
    ("max_rules", "shrinkage", "l2", "bin_ratio", "min_bins", "max_bins"),
    ("loss", "head", "instance_sampling", "predictor"),
)
_X_NUM = (
    "n_estimators",
    "max_depth",
    "learning_rate",
    "reg_lambda",
    "gamma",
    "min_child_weight",
    "max_bins",
    "subsample",
    "colsample",
)
_X_OPT = ("mcw_mode", "split", "tree_method")
_R_NUM = ("oversample", "n_iter", "n_random_features", "nu", "bandwidth", "l2", "l2_link", "max_iter", "tol")
_R_OPT = ("kernel", "loss", "inference", "solver")
_TOO_LARGE = {
    c: E("too large for float64") for c in ("X_huge_column", "X_times_1e200")
}  # rembed on X as given (scale=False): sums of squares overflow; scaled first (the default), it fits

CONFIGS = {
    "boomer_label_wise": Cfg(
        lambda **p: BoomerClassifier(**{**BOOMER, **p}),
        _B_NUM,
        ("max_rules", "shrinkage", "bin_ratio", "min_bins"),
        {"bin_ratio": 1.5},
        _B_OPT + ("label_binning",),
        nan=True,
        methods=("rules_as_text",),
    ),
    "boomer_example_wise": Cfg(
        lambda **p: BoomerClassifier(**{**BOOMER, "loss": "logistic_example_wise", **p}),
        _B_NUM,
        ("max_rules", "shrinkage"),
        {"bin_ratio": 1.5},
        _B_OPT,
        nan=True,
        methods=("rules_as_text",),
    ),
    "boomer_label_binning": Cfg(
        lambda **p: BoomerClassifier(
            **{**BOOMER, "loss": "logistic_example_wise", "label_binning": "equal_width", **p}
        ),
        _B_NUM,
        ("max_rules", "shrinkage", "bin_ratio", "min_bins"),
        {"bin_ratio": 1.5},
        _B_OPT + ("label_binning",),
        nan=True,
    ),
    "mlxgb_hist": Cfg(
        lambda **p: MLXGBClassifier(**{**XGB, **p}),
        _X_NUM,
        ("learning_rate", "max_bins", "subsample", "colsample"),
        {"subsample": 1.5, "colsample": 1.5},
        _X_OPT,
        nan=True,
    ),
    "mlxgb_exact": Cfg(
        lambda **p: MLXGBClassifier(**{**XGB, "tree_method": "exact", **p}),
        _X_NUM,
        ("learning_rate", "subsample"),
        {"subsample": 1.5},
        _X_OPT,
        nan=True,
    ),
    "xdcc": Cfg(
        lambda **p: XDCCClassifier(**{**XGB, "chain_length": 2, "cv": None, **p}),
        _X_NUM + ("chain_length",),
        ("learning_rate", "chain_length"),
        {"subsample": 1.5},
        _X_OPT + ("select", "cumulate"),
        nan=True,
        methods=("staged_predict", "staged_predict_proba", "propagation_rounds"),
    ),
    "xdcc_cv": Cfg(
        lambda **p: XDCCClassifier(**{**XGB, "chain_length": 2, "cv": 2, **p}),
        ("cv",),
        (),
        {},
        (),
        nan=True,
        expect={"single_example": E("cv must be None or an integer from 2 to n_samples = 1")},
    ),
    "pairwise": Cfg(
        lambda **p: CalibratedPairwiseClassifier(**p),
        ("epochs",),
        ("epochs",),
        {},
        ("voting",),
        methods=("predict_top", "predict_ranking"),
    ),
    "br_perceptron": Cfg(lambda **p: BinaryRelevancePerceptron(**p), ("epochs",), ("epochs",)),
    "rembed": Cfg(
        lambda **p: RandomizedEmbeddingClassifier(**{**EMBED, **p}),
        _R_NUM + ("rank",),
        ("bandwidth", "l2", "rank"),
        {"rank": 99},
        _R_OPT,
    ),
    "rembed_logistic": Cfg(
        lambda **p: RandomizedEmbeddingClassifier(**{**EMBED, "loss": "logistic", "scale": False, **p}),
        ("max_iter", "tol"),
        ("max_iter",),
        {},
        (),
        expect=_TOO_LARGE,
    ),  # the L-BFGS read-out (class_f1 inference targets F1, not Hamming loss)
    "smooth_link": Cfg(
        lambda **p: SmoothLinkClassifier(**{"n_random_features": 16, "random_state": 0, **p}),
        _R_NUM,
        ("bandwidth", "l2"),
        {},
        _R_OPT,
        expect=_TOO_LARGE,
    ),
    "rembed_cv": Cfg(
        lambda **p: RandomizedEmbeddingCV(**{**EMBED_CV, **p}),
        ("n_iter", "validation_fraction", "time_budget"),
        ("n_iter", "validation_fraction", "time_budget"),
        {"validation_fraction": 1.5},
        ("scoring",),
        expect={"single_example": E("at least 2 examples")},
    ),  # a hold-out needs 2 rows
}


# ------------------------------------------------------------------------------------------------ data
def _data(n=40, F=5, K=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    Y = (X[:, :K] + 0.3 * rng.normal(size=(n, K)) > 0.2).astype(np.int64)
    Y[0] = 1
    Y[1] = 0  # every label has both values
    return X, Y


X0, Y0 = _data()


def _fit(cfg, X=None, Y=None, **params):
    return cfg.make(**params).fit(X0 if X is None else X, Y0 if Y is None else Y)


def _fit_predict(cfg, X=None, Y=None, Xp=None, **params):
    m = _fit(cfg, X, Y, **params)
    P = m.predict(X0 if Xp is None and X is None else (X if Xp is None else Xp))
    assert np.all(np.isin(np.asarray(P, dtype=float), [0, 1])) or np.asarray(P).ndim == 1
    return m


def _with(X, i, j, v):
    X = X.copy()
    X[i, j] = v
    return X


def _badly_scaled(seed=1):
    "Features with offsets and scales far from 1 (like raw audio or count features), a learnable target."
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(300, 6))
    Y = (Z[:, :4] + 0.3 * rng.normal(size=(300, 4)) > 0.9).astype(int)
    X = Z * np.array([1e3, 50, 1, 200, 5e3, 0.01]) + np.array([5e4, -300, 7, 1e3, 0, 40])
    return X, Y


def _beats_empty(cfg):
    "Hamming loss on held-out rows no worse than predicting no label at all."
    X, Y = _badly_scaled()
    m = cfg.make().fit(X[:200], Y[:200])
    loss, empty = np.mean(m.predict(X[200:]) != Y[200:]), np.mean(Y[200:])
    assert loss <= empty, f"Hamming loss {loss:.3f} > {empty:.3f} of the empty prediction"


def _methods_before_fit(cfg):
    "Each of the configuration's other public methods on an unfitted estimator must raise NotFittedError."
    for name in cfg.methods:
        try:
            out = getattr(cfg.make(), name)(X0)
            if name.startswith("staged"):
                list(out)  # generators run on iteration
        except NotFittedError:
            continue
        else:
            raise AssertionError(f"{name} worked before fit")
    raise NotFittedError(f"{', '.join(cfg.methods) or 'no other method'}: each not fitted")


NAN = lambda c: W if c.nan else E("NaN")

# (name, action(cfg), expected outcome or cfg -> expected outcome)
CASES = [
    ("plain", lambda c: _fit_predict(c), W),
    ("nan_in_X", lambda c: _fit_predict(c, _with(X0, 3, 1, np.nan)), NAN),
    ("inf_in_X", lambda c: _fit(c, _with(X0, 3, 1, np.inf)), E("infinity")),
    ("neg_inf_in_X", lambda c: _fit(c, _with(X0, 3, 1, -np.inf)), E("infinity")),
    ("nan_in_X_at_predict", lambda c: _fit(c).predict(_with(X0, 0, 0, np.nan)), NAN),
    ("X_1d", lambda c: _fit(c, X0[:, 0]), E("2D array")),
    ("X_3d", lambda c: _fit(c, X0[:, :, None]), E("dim 3")),
    ("X_none", lambda c: c.make().fit(None, Y0), E("X is None")),
    ("X_strings", lambda c: _fit(c, X0.astype(str).astype(object) + "a"), E("convert")),
    ("X_numeric_strings", lambda c: _fit_predict(c, X0.astype(str)), W),
    ("X_list_of_lists", lambda c: _fit_predict(c, X0.tolist()), W),
    ("X_float32", lambda c: _fit_predict(c, X0.astype(np.float32)), W),
    ("X_int", lambda c: _fit_predict(c, np.round(X0 * 3).astype(int)), W),
    ("X_fortran", lambda c: _fit_predict(c, np.asfortranarray(X0)), W),
    ("X_empty_rows", lambda c: _fit(c, X0[:0], Y0[:0]), E("0 sample")),
    ("X_no_features", lambda c: _fit(c, X0[:, :0]), E("0 feature")),
    ("X_constant_features", lambda c: _fit_predict(c, np.ones_like(X0)), W),
    ("X_one_constant_column", lambda c: _fit_predict(c, _with(X0, slice(None), 2, 7.0)), W),
    ("X_sparse_csr", lambda c: _fit_predict(c, sp.csr_matrix(X0)), W),
    ("X_sparse_csc", lambda c: _fit_predict(c, sp.csc_matrix(X0)), W),
    ("X_sparse_coo_array", lambda c: _fit_predict(c, sp.coo_array(X0)), W),
    ("X_sparse_predict_dense_fit", lambda c: _fit(c).predict(sp.csr_matrix(X0)), W),
    ("X_huge_column", lambda c: _fit_predict(c, _with(X0, slice(None), 1, 1.5e308)), W),
    ("X_times_1e200", lambda c: _fit_predict(c, X0 * 1e200), W),
    ("X_tiny_values", lambda c: _fit_predict(c, X0 * 1e-200), W),
    ("X_badly_scaled_beats_empty", _beats_empty, W),
    ("single_example", lambda c: _fit_predict(c, X0[:1], Y0[:1]), W),
    ("two_examples", lambda c: _fit_predict(c, X0[:2], Y0[:2]), W),
    ("single_feature", lambda c: _fit_predict(c, X0[:, :1]), W),
    ("Y_single_label", lambda c: _fit_predict(c, Y=Y0[:, :1]), W),
    ("Y_never_positive", lambda c: _fit_predict(c, Y=np.zeros_like(Y0)), W),
    ("Y_always_positive", lambda c: _fit_predict(c, Y=np.ones_like(Y0)), W),
    ("Y_one_label_never_positive", lambda c: _fit_predict(c, Y=_with(Y0, slice(None), 1, 0)), W),
    ("Y_bool", lambda c: _fit_predict(c, Y=Y0.astype(bool)), W),
    ("Y_sparse", lambda c: _fit_predict(c, Y=sp.csr_matrix(Y0)), W),
    ("Y_1d_binary", lambda c: _fit_predict(c, Y=Y0[:, 0]), W),
    ("Y_1d_multiclass", lambda c: _fit_predict(c, Y=Y0.sum(1)), W),
    ("Y_value_2", lambda c: _fit(c, Y=_with(Y0, 0, 0, 2)), E("only 0 and 1")),
    ("Y_minus_one", lambda c: _fit(c, Y=_with(Y0, 0, 0, -1)), E("only 0 and 1")),
    ("Y_nan", lambda c: _fit(c, Y=_with(Y0.astype(float), 0, 0, np.nan)), E("NaN")),
    ("Y_strings_2d", lambda c: _fit(c, Y=Y0.astype(str)), E("numeric")),
    ("Y_wrong_rows", lambda c: _fit(c, Y=Y0[:-1]), E("different numbers of rows")),
    ("Y_no_labels", lambda c: _fit(c, Y=Y0[:, :0]), E("0 labels")),
    ("Y_3d", lambda c: _fit(c, Y=Y0[:, :, None]), E("2-D")),
    ("Y_none", lambda c: c.make().fit(X0, None), E("requires y")),
    ("predict_wrong_n_features", lambda c: _fit(c).predict(X0[:, :-1]), E("features")),
    (
        "predict_proba_wrong_n_features",
        lambda c: getattr(_fit(c), "predict_proba", lambda X: _fit(c).predict(X))(X0[:, :-1]),
        E("features"),
    ),
    ("predict_empty_X", lambda c: _fit(c).predict(X0[:0]), E("0 sample")),
    ("refit_other_shape", lambda c: _fit(c).fit(X0[:, :3], Y0[:, :2]).predict(X0[:, :3]), W),
    ("predict_before_fit", lambda c: c.make().predict(X0), E("not fitted", (NotFittedError,))),
    (
        "predict_proba_before_fit",
        lambda c: getattr(c.make(), "predict_proba", c.make().predict)(X0),
        E("not fitted", (NotFittedError,)),
    ),
    (
        "decision_function_before_fit",
        lambda c: getattr(c.make(), "decision_function", c.make().predict)(X0),
        E("not fitted", (NotFittedError,)),
    ),
    ("other_methods_before_fit", _methods_before_fit, E("not fitted", (NotFittedError,))),
    ("predict_top_k", lambda c: _fit(c).predict_top_k(sp.csr_matrix(X0), 3), W),
    (
        "predict_top_k_k_too_large",
        lambda c: _fit(c).predict_top_k(X0, 4),
        E("k must be an integer between 1 and the number of labels (3), got 4"),
    ),
    ("predict_top_k_k_zero", lambda c: _fit(c).predict_top_k(X0, 0), E("k must be an integer")),
    (
        "predict_top_k_1d_multiclass_k_too_large",
        lambda c: _fit(c, Y=Y0.sum(1)).predict_top_k(X0, 5),
        E("number of classes (4)"),
    ),
    ("predict_top_k_before_fit", lambda c: c.make().predict_top_k(X0, 1), E("not fitted", (NotFittedError,))),
    ("n_jobs_string", lambda c: _fit(c, n_jobs="2"), E("n_jobs")),
    ("n_jobs_zero", lambda c: _fit(c, n_jobs=0), E("n_jobs")),
    ("n_jobs_float", lambda c: _fit(c, n_jobs=2.5), E("n_jobs")),
    ("n_jobs_two", lambda c: _fit_predict(c, n_jobs=2), W),
    ("n_jobs_minus_one", lambda c: _fit_predict(c, n_jobs=-1), W),
    ("random_state_string", lambda c: _fit(c, random_state="seed"), E("random_state")),
    ("random_state_generator", lambda c: _fit_predict(c, random_state=np.random.RandomState(0)), W),
    ("unknown_parameter", lambda c: c.make(not_a_parameter=1), E("not_a_parameter")),
]


def _param_cases(name, cfg):
    "Per-parameter cases of a configuration: string, negative, zero (where invalid), too large, unknown option."
    out = []
    for p in cfg.numeric:
        out.append((f"{p}_string", lambda c, p=p: _fit(c, **{p: "1"}), E(p)))
        out.append((f"{p}_negative", lambda c, p=p: _fit(c, **{p: -1}), E(p)))
        out.append((f"{p}_nan", lambda c, p=p: _fit(c, **{p: float("nan")}), E(p)))
    for p in cfg.zero_bad:
        out.append((f"{p}_zero", lambda c, p=p: _fit(c, **{p: 0}), E(p)))
    for p, v in cfg.out_of_range.items():
        out.append((f"{p}_too_large", lambda c, p=p, v=v: _fit(c, **{p: v}), E(p)))
    for p in cfg.options:
        out.append((f"{p}_unknown", lambda c, p=p: _fit(c, **{p: "no_such_option"}), E(p)))
    return out


CELLS = [(n, *case) for n in CONFIGS for case in CASES + _param_cases(n, CONFIGS[n])]


def outcome(cfg, case, action, expected):
    "Run one cell; return None if it has the expected outcome, else a line saying what happened instead."
    exp = cfg.expect.get(case, expected)
    exp = exp(cfg) if callable(exp) else exp
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()), np.errstate(all="ignore"):
            action(cfg)
    except Exception as e:  # noqa: BLE001 - the matrix classifies every exception
        if exp == W:
            return f"expected to work, raised {type(e).__name__}: {str(e)[:200]}"
        if not isinstance(e, exp.types) or exp.phrase.lower() not in str(e).lower():
            return f"expected {'/'.join(t.__name__ for t in exp.types)} naming {exp.phrase!r}, got {type(e).__name__}: {str(e)[:200]}"
        return None
    return None if exp == W else f"expected an error naming {exp.phrase!r}, but it worked"


@pytest.mark.parametrize("config,case,action,expected", CELLS, ids=[f"{c[0]}-{c[1]}" for c in CELLS])
def test_matrix(config, case, action, expected):
    problem = outcome(CONFIGS[config], case, action, expected)
    assert problem is None, problem


def test_every_parameter_is_declared():
    "Each estimator declares a constraint for every parameter of its __init__ (a new parameter cannot go unchecked)."
    for name, cfg in CONFIGS.items():
        est = cfg.make()
        assert set(est.get_params(deep=False)) <= set(type(est)._parameter_constraints), name


# ================================================================================================ loaders
# Broken files, by hand: each must raise a ValueError naming the file (and the line where there is one).
from pathlib import Path  # noqa: E402

import hypothesis.strategies as st  # noqa: E402
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402

from mlc_lit.data import load_arff, load_svmlight  # noqa: E402

SVM_CASES = [  # (file text, phrase of the error, or None: loads)
    ("3 4 5\n0 1:0.5\n", "line 1: the header declares 3 examples, but the file holds 1"),
    ("3 4 5\n0 1:1\n1 2:1\n2 3:1\n", None),
    ("0 1:1\n3 4 5\n", "line 2: '4' is not a feature 'index:value'"),
    ("0 2::3\n", "line 1: '2::3' is not a feature 'index:value'"),
    ("0 2:3:4\n", "line 1: '2:3:4'"),
    ("0 :3\n", "line 1: ':3'"),
    ("0, 2 1:0.5\n", None),
    ("0 ,2 1:0.5\n", None),
    ("0 2 1:0.5\n", "line 1: '2' is not"),
    ("", "no examples"),
    ("\n\n# nothing\n", "no examples"),
    ("0 1:x\n", "line 1: non-numeric value 'x'"),
    ("a 1:1\n", "line 1: label id 'a' is not an integer"),
    ("0 1:1 1:2\n", "line 1: feature index 1 appears twice"),
    ("0 0:1\n", "line 1: feature index 0 outside"),
    ("-1 1:1\n", "line 1: label id -1 outside"),
]


@pytest.mark.parametrize("text,phrase", SVM_CASES)
def test_svmlight_cases(tmp_path, text, phrase):
    path = tmp_path / "f.svm"
    path.write_text(text)
    if phrase is None:
        X, Y, _ = load_svmlight(path)
        assert X.shape[0] == Y.shape[0] > 0
        return
    with pytest.raises(ValueError) as e:
        load_svmlight(path)
    assert str(path) in str(e.value) and phrase in str(e.value), str(e.value)


def test_empty_files_are_refused_alike(tmp_path):
    for name, load in (("e.svm", load_svmlight), ("e.arff", load_arff)):
        (tmp_path / name).write_text("")
        with pytest.raises(ValueError, match=re.escape(str(tmp_path / name))):
            load(tmp_path / name)


# ------------------------------------------------------------------------- fuzzing against a slow reader
DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
ALPHABET = "0123456789.-+e,: \n#x"  # what a flip writes: digits, separators, a comment, a stray letter


class _Header(Exception):
    "The reference reader does not model the header format: such mutated files are skipped."


def _ref_svmlight(text, F, K):
    "Slow obvious reader: ('error', line) or (X, Y) as dense arrays; 1-based features, labels 0-based."
    X, Y, first = [], [], True
    for ln, line in enumerate(text.splitlines(), 1):
        s = line.split("#", 1)[0].strip()
        if not s:
            continue
        toks = s.split()
        if first and len(toks) == 3 and all(t.isdigit() for t in toks):
            raise _Header
        first = False
        lab, j = "", 0
        while j < len(toks) and ":" not in toks[j] and (j == 0 or lab.endswith(",") or toks[j].startswith(",")):
            lab += toks[j]
            j += 1
        x, y = np.zeros(F), np.zeros(K, np.int8)
        try:
            for v in lab.split(","):
                if not v.strip():
                    continue
                k = int(v)
                if not 0 <= k < K:
                    return "error", ln
                y[k] = 1
            seen = set()
            for t in toks[j:]:
                if t.count(":") != 1:
                    return "error", ln
                a, b = t.split(":")
                f = int(a) - 1
                if not a or not b or not 0 <= f < F or f in seen:
                    return "error", ln
                seen.add(f)
                x[f] = float(b)
        except ValueError:
            return "error", ln
        X.append(x)
        Y.append(y)
    if not X:
        return "error", None
    return np.array(X), np.array(Y)


def _ref_arff_rows(lines, start, m, labels):
    "Slow obvious reader of dense ARFF data lines (numeric features, {0,1} labels): ('error', line) or (X, Y)."
    X, Y = [], []
    for ln, line in enumerate(lines, start):
        s = line.strip()
        if not s:
            continue
        fields = [f.strip() for f in s.split(",")]
        if len(fields) != m:
            return "error", ln
        try:
            vals = [np.nan if f == "?" else float(f) for j, f in enumerate(fields) if j not in labels]
        except ValueError:
            return "error", ln
        if any(fields[j] not in ("0", "1") for j in labels):
            return "error", ln
        X.append(vals)
        Y.append([int(fields[j]) for j in labels])
    return np.array(X).reshape(len(X), m - len(labels)), np.array(Y, np.int8).reshape(len(Y), len(labels))


def _mutate(data, text, lo):
    "One random truncation, byte flip or token swap of `text` at or after offset `lo`."
    kind = data.draw(st.sampled_from(["truncate", "flip", "swap"]))
    if kind == "truncate":
        return text[: data.draw(st.integers(lo, len(text)))]
    if kind == "flip":
        i = data.draw(st.integers(lo, len(text) - 1))
        return text[:i] + data.draw(st.sampled_from(ALPHABET)) + text[i + 1 :]
    spans = [mt.span() for mt in re.finditer(r"[^\s,]+", text) if mt.start() >= lo]
    a, b = sorted(data.draw(st.lists(st.integers(0, len(spans) - 1), min_size=2, max_size=2, unique=True)))
    (a0, a1), (b0, b1) = spans[a], spans[b]
    return text[:a0] + text[b0:b1] + text[a1:b0] + text[a0:a1] + text[b1:]


def _check(path, load, reference):
    "The property: a ValueError naming the file (and a line), or exactly the reference reader's values."
    try:
        got = load()
    except ValueError as e:
        assert str(path) in str(e), str(e)
        return
    ref = reference()
    assert not isinstance(ref[0], str), f"loaded, but the reference reader finds an error at line {ref[1]}"
    X, Y = got[0], got[1]
    np.testing.assert_array_equal(X.toarray() if sp.issparse(X) else X, ref[0])
    np.testing.assert_array_equal(Y, ref[1])


FUZZ = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def svm_file(tmp_path_factory):
    src = DATA / "yeast" / "yeast.svm"
    if not src.exists():
        pytest.skip(f"{src} not found")
    text = "".join(src.read_text().splitlines(keepends=True)[:25])
    X, Y, _ = load_svmlight(src)
    return text, X.shape[1], Y.shape[1], tmp_path_factory.mktemp("svm") / "yeast25.svm"


@FUZZ
@given(data=st.data())
def test_fuzz_svmlight(svm_file, data):
    text, F, K, path = svm_file
    clean = _ref_svmlight(text, F, K)
    path.write_text(text)
    np.testing.assert_array_equal(
        load_svmlight(path, F, K)[0].toarray(), clean[0]
    )  # the reader agrees on the clean file
    bad = _mutate(data, text, 0)
    path.write_text(bad)
    try:
        ref = _ref_svmlight(bad, F, K)
    except _Header:
        assume(False)
    _check(path, lambda: load_svmlight(path, F, K), lambda: ref)


@pytest.fixture(scope="module")
def arff_file(tmp_path_factory):
    src = DATA / "emotions" / "emotions-train.arff"
    if not src.exists():
        pytest.skip(f"{src} not found")
    lines = src.read_text().splitlines(keepends=True)
    at = next(i for i, l in enumerate(lines) if l.strip().lower() == "@data") + 1
    d = tmp_path_factory.mktemp("arff")
    (d / "emo.xml").write_text((src.parent / "emotions.xml").read_text())
    m = sum(l.lower().startswith("@attribute") for l in lines[:at])
    return "".join(lines[: at + 20]), len("".join(lines[:at])), at + 1, m, d / "emo.arff", d / "emo.xml"


@FUZZ
@given(data=st.data())
def test_fuzz_arff(arff_file, data):
    text, data_at, first_row_line, m, path, xml = arff_file
    labels = set(range(m - 6, m))  # emotions: the last six attributes are the labels
    path.write_text(text)
    clean = load_arff(path, xml)
    in_data = data.draw(st.booleans())  # mutate the data section, or anywhere (header included)
    bad = _mutate(data, text, data_at if in_data else 0)
    path.write_text(bad)
    if bad[:data_at] == text[:data_at]:  # header intact: the reference reads the rows
        ref = lambda: _ref_arff_rows(bad[data_at:].splitlines(), first_row_line, m, labels)
    else:  # header touched: same values as the clean file, or an error
        ref = lambda: (clean[0], clean[1])
    _check(path, lambda: load_arff(path, xml), ref)
