"""`mlc-lit evaluate`: the command on a small data set with scikit-learn's forest and one of ours, its failure paths,
and the folds it cross-validates with."""

import csv
import os

import numpy as np
import pytest
from scipy.stats import friedmanchisquare, rankdata

from mlc_lit.cli import main
from mlc_lit.data import iterative_stratification, load_dataset
from mlc_lit.evaluate import EXAMPLE_MEASURES, MEASURES, folds, friedman, read_rows

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
needs_data = pytest.mark.skipif(not os.path.isdir(os.path.join(DATA, "flags")), reason="shared data not found")


def _usage_error(argv, capsys) -> str:
    "Run the command expecting a usage error (exit status 2); its message."
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    return capsys.readouterr().err


@needs_data
def test_command_on_flags(tmp_path, capsys):
    "A forest, a small BOOMER and a forest with a value its library refuses: two rows of measures and an error row."
    out, store = tmp_path / "r.csv", tmp_path / "pred"
    specs = ["rf:n_estimators=10", "boomer:max_rules=5", "rf:n_estimators=-1"]
    argv = ["evaluate", "--data", DATA, "--dataset", "flags", "--out", str(out), "--store", str(store)]
    assert main(argv + [a for s in specs for a in ("--estimator", s)]) == 0
    rows = read_rows(out)
    assert [r["estimator"] for r in rows] == specs
    assert [(r["split"], r["fold"], r["n_train"], r["n_test"], r["n_labels"]) for r in rows[:2]] == [
        ("predefined", 0, 129, 65, 7)
    ] * 2
    for r in rows[:2]:
        assert r["error"] == ""
        assert all(0.0 <= r[m] <= 1.0 for m in MEASURES)
    assert (rows[0]["size"], rows[0]["size_kind"], rows[1]["size"], rows[1]["size_kind"]) == (10, "trees", 5, "rules")
    assert "n_estimators" in rows[2]["error"] and rows[2]["hamming"] is None
    printed = capsys.readouterr().out
    assert "[1/3] flags predefined fold 0 rf:n_estimators=10: fit" in printed
    assert "FAILED" in printed and "average ranks" not in printed  # one data set: no ranks
    saved = np.load(store / "flags__rf_n_estimators=10__predefined0.npz")
    assert saved["predictions"].shape == saved["scores"].shape == (65, 7)


@needs_data
def test_paired_intervals_from_the_store(tmp_path, capsys):
    "--ci: each learner against the best of the other group, from the stored predictions, in the CSV rows' units."
    out, store, ci = tmp_path / "r.csv", tmp_path / "pred", tmp_path / "ci.csv"
    argv = ["evaluate", "--data", DATA, "--dataset", "flags", "--out", str(out), "--store", str(store)]
    specs = ["rf:n_estimators=10", "br-lr", "boomer:max_rules=5"]
    assert main(argv + ["--ci", str(ci)] + [a for s in specs for a in ("--estimator", s)]) == 0
    rows = {r["estimator"]: r for r in read_rows(out)}
    table = list(csv.DictReader(open(ci)))
    assert {(r["estimator"], r["measure"]) for r in table} == {(e, m) for e in specs for m in EXAMPLE_MEASURES}
    for r in table:
        value, rival, diff = float(r["value"]), r["rival"], float(r["difference"])
        assert np.isclose(value, rows[r["estimator"]][r["measure"]])
        assert (rows[rival]["kind"] == "ours") != (rows[r["estimator"]]["kind"] == "ours")
        assert np.isclose(diff, value - float(r["rival_value"]))
        assert float(r["low"]) <= diff <= float(r["high"]) and int(r["n_test"]) == 65
    boomer_hamming = next(r for r in table if r["estimator"] == specs[2] and r["measure"] == "hamming")
    assert boomer_hamming["rival"] == min(specs[:2], key=lambda e: rows[e]["hamming"])
    assert "differences with their paired bootstrap intervals" in capsys.readouterr().out


@needs_data
def test_time_limit(tmp_path, capsys):
    """A fit that runs past --time-limit is killed and becomes a row that says so; the learner is not fit again on
    the data set's other folds, whose rows name the fold that ran past the limit."""
    out = tmp_path / "r.csv"
    main(
        [
            "evaluate",
            "--data",
            DATA,
            "--dataset",
            "flags",
            "--estimator",
            "rf:n_estimators=20000",
            "--split",
            "cv",
            "--cv",
            "2",
            "--time-limit",
            "1",
            "--out",
            str(out),
        ]
    )
    first, second = read_rows(out)
    assert first["error"] == "timed out after 1 s (--time-limit)"
    assert second["error"] == "not fit: ran past the time limit on fold 0"
    assert "FAILED: timed out" in capsys.readouterr().out


@needs_data
@pytest.mark.parametrize(
    "argv, message",
    [
        (["--dataset", "flags", "--estimator", "forest"], "unknown estimator 'forest'"),
        (["--dataset", "flags", "--estimator", "boomer:max_rule=5"], "unknown parameter(s) max_rule"),
        (["--dataset", "flags", "--estimator", "rf:n_estimators"], "'n_estimators' is not written as name=value"),
        (["--dataset", "flags,nosuchset", "--estimator", "rf"], "data set(s) nosuchset not found"),
        (["--dataset", "flags", "--estimator", "rf", "--ci", "ci.csv"], "--ci needs --store"),
    ],
)
def test_bad_input(argv, message, capsys):
    "Unknown learner, parameter or data set: a usage error naming it, before any fit."
    assert message in _usage_error(["evaluate", "--data", DATA] + argv, capsys)


def test_friedman_matches_scipy_and_hand():
    "Demšar's χ²_F against scipy (no ties) and the formula written out."
    t = np.random.default_rng(3).random((12, 5))
    stat, p = friedman(rankdata(t, axis=1))
    ref = friedmanchisquare(*t.T)
    assert np.isclose(stat, ref.statistic) and np.isclose(p, ref.pvalue)
    R = rankdata(t, axis=1).mean(axis=0)
    assert np.isclose(stat, 12 * 12 / (5 * 6) * (np.sum(R**2) - 5 * 36 / 4))


@needs_data
def test_iterative_folds_properties():
    "Every row tested once; folds within 5% of n/k rows; each label's examples shared out within one of each other."
    _, Y, _ = load_dataset("emotions", DATA, "full")
    fold = iterative_stratification(Y, 5, random_state=0)
    assert np.array_equal(fold, iterative_stratification(Y, 5, random_state=0))  # seeded: the same folds
    sizes = np.bincount(fold, minlength=5)
    assert sizes.sum() == Y.shape[0] and np.abs(sizes / (Y.shape[0] / 5) - 1).max() <= 0.05
    per_label = np.array([Y[fold == j].sum(axis=0) for j in range(5)])  # (folds, labels)
    assert (per_label.max(axis=0) - per_label.min(axis=0) <= 1).all()  # (a shuffled KFold: 8 to 12 apart here)
    fs = list(folds("emotions", DATA, split="cv", cv=5))
    assert sorted(np.concatenate([f.test_index for f in fs]).tolist()) == list(range(Y.shape[0]))
    assert all(f.X_train.shape[0] + f.X_test.shape[0] == Y.shape[0] for f in fs)


def test_omikuji_rows_without_features():
    "A training row with no non-zero feature is written without a trailing space, which Omikuji's reader refuses."
    pytest.importorskip("omikuji")
    from mlc_lit.evaluate import _Omikuji

    X = np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    Y = np.array([[1, 0], [0, 1], [1, 1], [0, 1]], dtype=np.int8)
    P = _Omikuji({}, 1, 0).fit(X, Y).predict_proba(X)
    assert P.shape == (4, 2)
