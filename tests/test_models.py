"""mlc_lit.models: model files round-trip bit for bit for every estimator (dense and CSR input), explanations are additive
(dense, CSR, NaN), rule Shapley values and TreeSHAP equal brute force, and the loader refuses bad files with a ValueError."""

import itertools
import json
import math
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _boomer_fixtures import data

from mlc_lit.boomer import BoomerClassifier
from mlc_lit.mlxgb import MLXGBClassifier
from mlc_lit.models import FORMAT_VERSION, load_model
from mlc_lit.qweighted import CalibratedPairwiseClassifier
from mlc_lit.rembed import RandomizedEmbeddingClassifier
from mlc_lit.xdcc import XDCCClassifier

X, Y = data(n=80, F=4, K=3, seed=2)
XF = np.nan_to_num(X)


@pytest.fixture(scope="module")
def models():
    return {
        "boomer": BoomerClassifier(max_rules=10, random_state=0).fit(X, Y),
        "boomer_cal": BoomerClassifier(max_rules=6, random_state=0, marginal_calibration="isotonic").fit(X, Y),
        "mlxgb": MLXGBClassifier(n_estimators=4, max_depth=3, random_state=0).fit(X, Y),
        "xdcc": XDCCClassifier(n_estimators=2, max_depth=2, random_state=0).fit(X, Y),
        "qweighted": CalibratedPairwiseClassifier(random_state=0).fit(XF, Y),
        "rembed": RandomizedEmbeddingClassifier(rank=2, n_random_features=16, random_state=0).fit(XF, Y),
    }


@pytest.mark.parametrize("ext", [".json", ".npz"])
def test_round_trip_bit_for_bit(models, tmp_path, ext):
    for name, m in models.items():
        m.save_model(tmp_path / f"{name}{ext}")
        back = load_model(tmp_path / f"{name}{ext}")
        assert type(back) is type(m)
        for Z in (XF, sp.csr_matrix(XF)):
            np.testing.assert_array_equal(back.predict(Z), m.predict(Z))
            for method in ("predict_proba", "decision_function"):
                if hasattr(m, method):
                    np.testing.assert_array_equal(getattr(back, method)(Z), getattr(m, method)(Z))


def _additive(ex, S):
    np.testing.assert_allclose(ex.values.sum(-1) + ex.base_values, S, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("Z", [X, XF, sp.csr_matrix(XF)], ids=["nan", "dense", "csr"])
def test_additive(models, Z):
    b, t = models["boomer"], models["mlxgb"]
    S = b.decision_function(Z)
    ex = b.explain(Z, by="rule")
    in_order = np.cumsum(np.concatenate([ex.base_values[..., None], ex.values], -1), -1)[..., -1]
    np.testing.assert_array_equal(in_order, S)  # bit for bit in decision_function's order
    _additive(ex, S)
    _additive(b.explain(Z, by="feature"), S)
    _additive(t.explain(Z), t.decision_function(Z))


def _shapley(game, F):
    "Shapley values by enumerating all subsets of F players; `game(mask)` returns a vector."
    v = {S: game(np.array(S, bool)) for S in itertools.product([0, 1], repeat=F)}
    out = 0
    for S, val in v.items():
        s = sum(S)
        for j in range(F):
            if not S[j]:
                T = S[:j] + (1,) + S[j + 1 :]
                w = math.factorial(s) * math.factorial(F - s - 1) / math.factorial(F)
                out = out + np.eye(F)[j][None, :] * (w * (v[T] - val))[:, None]
    return out


def test_rule_shapley_brute_force(models):
    b, Z = models["boomer"], X[:12]
    ex = b.explain(X[:5], by="feature", background=Z)
    for i in range(5):
        game = lambda S: b.decision_function(np.where(S[None, :], X[i][None, :], Z)).mean(0)
        np.testing.assert_allclose(ex.values[i], _shapley(game, X.shape[1]), atol=1e-12)


def _expect(m, v, x, S):
    if m.feature_[v] < 0:
        return m.value_[v]
    f, L, R = m.feature_[v], m.left_[v], m.right_[v]
    if S[f]:
        go = m.default_left_[v] == 1 if np.isnan(x[f]) else x[f] < m.threshold_[v]
        return _expect(m, L if go else R, x, S)
    return (m.cover_[L] * _expect(m, L, x, S) + m.cover_[R] * _expect(m, R, x, S)) / m.cover_[v]


def test_treeshap_brute_force(models):
    m = models["mlxgb"]
    ex = m.explain(X[:6])
    for i in range(6):
        game = lambda S: sum(_expect(m, int(r), X[i], S) for r in m.tree_ptr_[:-1])
        np.testing.assert_allclose(ex.values[i], _shapley(game, X.shape[1]), atol=1e-12)


def test_newer_format_refused(models, tmp_path):
    models["mlxgb"].save_model(tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    doc["format_version"] = FORMAT_VERSION + 1
    (tmp_path / "n.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="upgrade mlc_lit"):
        load_model(tmp_path / "n.json")


def _mutate(doc, rng):
    "A copy of the JSON document with one value somewhere replaced by something of another kind or range."
    doc = json.loads(json.dumps(doc))
    hostile = [None, -1, 2**70, 1e308, "nan", [], {}, {"object": "os.system", "state": {}}, True, "x" * 3, [1, 2]]
    hostile += [{"array": {"dtype": "object", "shape": [1], "data": [1]}}, {"tuple": [1]}, -(2**31), 10**6]
    hostile += [{"strings": ["a", "b"]}, {"strings": [1]}]
    node, path = doc, []
    while isinstance(node, (dict, list)) and len(node) and rng.random() < 0.85:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        k = keys[rng.integers(len(keys))]
        path.append((node, k))
        node = node[k]
    if path:
        parent, k = path[-1]
        parent[k] = hostile[rng.integers(len(hostile))]
    return doc


def _loads_or_refuses(path):
    try:
        m = load_model(path)
    except ValueError:
        return "refused"
    m.predict(np.zeros((1, m.n_features_in_)))
    return "loaded"


def test_loader_fuzz(models, tmp_path):
    "Truncated, byte-flipped, wrong-typed, out-of-range and hostile files: a ValueError or a model that predicts."
    rng, t0, seen = np.random.default_rng(0), time.perf_counter(), set()
    for name in ("boomer_cal", "mlxgb", "xdcc", "qweighted", "rembed"):
        models[name].save_model(tmp_path / "ok.json")
        models[name].save_model(tmp_path / "ok.npz")
        text, raw = (tmp_path / "ok.json").read_text(), (tmp_path / "ok.npz").read_bytes()
        doc = json.loads(text)
        for trial in range(60):
            kind = trial % 4
            if kind == 0:
                (tmp_path / "f.json").write_text(_mutate(doc, rng) and json.dumps(_mutate(doc, rng)))
                p = tmp_path / "f.json"
            elif kind == 1:
                (tmp_path / "f.json").write_text(text[: rng.integers(len(text))])
                p = tmp_path / "f.json"
            elif kind == 2:
                b = bytearray(raw)
                for _ in range(3):
                    b[rng.integers(len(b))] ^= 1 << int(rng.integers(8))
                (tmp_path / "f.npz").write_bytes(bytes(b[: len(b) if rng.random() < 0.5 else rng.integers(len(b))]))
                p = tmp_path / "f.npz"
            else:
                hostile = rng.choice([b"\x80\x04cos\nsystem\n.", b"PK\x03\x04", b"{", b"[1,2]", b"\xff\xfe"])
                (tmp_path / "f.json").write_bytes(bytes(hostile))
                p = tmp_path / "f.json"
            seen.add(_loads_or_refuses(p))
        assert time.perf_counter() - t0 < 30
    assert "refused" in seen


def test_names_round_trip(tmp_path):
    "A model fitted on pandas frames keeps its feature and label names through both formats, and loads without warnings."
    pd = pytest.importorskip("pandas")
    Xp, Yp = pd.DataFrame(XF, columns=["a", "b", "c", "d"]), pd.DataFrame(Y, columns=["u", "v", "w"])
    for m in (BoomerClassifier(max_rules=4, random_state=0).fit(Xp, Yp), MLXGBClassifier(n_estimators=2).fit(Xp, Yp)):
        for ext in (".json", ".npz"):
            m.save_model(tmp_path / f"m{ext}")
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                back = load_model(tmp_path / f"m{ext}")
                np.testing.assert_array_equal(back.decision_function(Xp), m.decision_function(Xp))
            assert list(back.feature_names_in_) == list("abcd") and back.label_names_ == ["u", "v", "w"]
            assert back.explain(Xp[:2]).labels == ["u", "v", "w"]
    doc = json.loads((tmp_path / "m.json").read_text())
    doc["state"]["feature_names_in_"] = {"strings": ["a"]}
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="feature_names_in_"):
        load_model(tmp_path / "bad.json")


def test_pickle_inside_npz_refused(tmp_path):
    np.savez(tmp_path / "p.npz", header=np.array([object()], dtype=object))
    with pytest.raises(ValueError):
        load_model(tmp_path / "p.npz")
