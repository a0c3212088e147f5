"""The guides' data folder: the benchmark data beside the repository, or a small synthetic stand-in.

The guides read real data sets from a Mulan-style folder (`shared/data`, one folder per data set), which is
not part of the package. Where it is missing, `data_dir()` writes synthetic files in the same layout and
formats (emotions as ARFF + XML, yeast as svmlight), so the guides still run, on other numbers."""

import tempfile
from pathlib import Path

import numpy as np


def find_data(start=None) -> Path | None:
    "The nearest `shared/data` folder above `start` (default: the working directory) holding emotions, or None."
    here = Path(start or Path.cwd()).resolve()
    return next(
        (p / "shared" / "data" for p in [here, *here.parents] if (p / "shared" / "data" / "emotions").is_dir()), None
    )


def _arff(path, X, Y, features, labels):
    head = (
        ["@relation stand_in"]
        + [f"@attribute {f} numeric" for f in features]
        + [f"@attribute {l} {{0,1}}" for l in labels]
    )
    rows = [",".join([f"{v:.4f}" for v in x] + [str(int(v)) for v in y]) for x, y in zip(X, Y)]
    Path(path).write_text("\n".join(head + ["@data"] + rows) + "\n")


def _stand_in() -> Path:
    rng = np.random.default_rng(0)
    root = Path(tempfile.mkdtemp(prefix="mlc_lit_guides_"))
    (root / "emotions").mkdir()
    (root / "yeast").mkdir()

    def draw(n, F, K, rates):
        X = rng.normal(size=(n, F))
        W = rng.normal(size=(F, K))
        S = X @ W + rng.normal(size=(n, K))
        Y = (S > np.diag(np.quantile(S, 1 - np.asarray(rates), axis=0))).astype(int)
        return X, Y

    X, Y = draw(593, 72, 6, [0.3] * 6)
    feats, labs = [f"f{j}" for j in range(72)], [f"label{k}" for k in range(6)]
    _arff(root / "emotions" / "emotions-train.arff", X[:391], Y[:391], feats, labs)
    _arff(root / "emotions" / "emotions-test.arff", X[391:], Y[391:], feats, labs)
    (root / "emotions" / "emotions.xml").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">\n'
        + "".join(f'<label name="{l}"></label>\n' for l in labs)
        + "</labels>\n"
    )
    X, Y = draw(978, 100, 45, np.geomspace(0.3, 0.002, 45))
    (root / "medical").mkdir()
    labs = [f"class-{k}" for k in range(45)]
    _arff(root / "medical" / "medical.arff", X, Y, [f"w{j}" for j in range(100)], labs)
    (root / "medical" / "medical.xml").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">\n'
        + "".join(f'<label name="{l}"></label>\n' for l in labs)
        + "</labels>\n"
    )
    X, Y = draw(2417, 103, 14, np.r_[np.full(11, 0.3), 0.03, 0.02, 0.015])
    lines = [
        ",".join(map(str, np.flatnonzero(y))) + " " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(x))
        for x, y in zip(X, Y)
    ]
    (root / "yeast" / "yeast.svm").write_text("\n".join(lines) + "\n")
    return root


def data_dir() -> Path:
    "The benchmark data folder, or (with a note) a synthetic stand-in with the same files."
    found = find_data()
    if found is not None:
        return found
    print("No shared/data folder found: the guide runs on synthetic stand-in data (its numbers differ from the text).")
    return _stand_in()
