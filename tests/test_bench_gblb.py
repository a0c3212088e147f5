"""The gblb benchmark suite on real data, without the reference (mlrl-boomer lives in its own Python)."""

import os

import numpy as np
import pytest

from mlc_lit.bench import load_split
from mlc_lit.bench.suites import report
from mlc_lit.bench.gblb import peak_memory, run, speedups, summary

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
needs_data = pytest.mark.skipif(not os.path.isdir(os.path.join(DATA, "emotions")), reason="no ../shared/data")


@pytest.mark.slow  # a benchmark run on real data
@needs_data
def test_suite_rows_and_two_bins_equal_four_percent_on_six_labels():
    rows = run(DATA, datasets=["emotions"], binnings=["none", "4%", "2 bins"], reference=False, max_rules=15)
    assert [r["config"] for r in rows] == ["none", "4%", "2 bins"]
    assert all(r["n_rules"] == 15 and r["n_labels"] == 6 and r["max_rules"] == 15 for r in rows)
    by = {r["config"]: r for r in rows}
    # emotions has 6 labels: 4 % of either sign rounds up to one bin, the "2 bins" setting, so the same model
    for q in ("subset01", "hamming", "example_f1"):
        assert by["4%"][q] == by["2 bins"][q]
    assert by["none"]["subset01"] != by["4%"]["subset01"] or by["none"]["hamming"] != by["4%"]["hamming"]
    sp = {r["binning"]: r for r in speedups(rows)}
    assert sp["none"]["speedup"] == 1.0 and sp["4%"]["speedup"] > 0
    lines = []
    report(rows, out=lines.append)
    assert any("paper Tables 1 and 2" in block for block in lines)
    assert "mean speed-up" not in summary(rows) and "4% bins over none" not in summary(rows)  # no set with >= 45 labels


@needs_data
def test_reference_split_for_cal500_and_llog():
    X, Y, Xt, Yt, _ = load_split("cal500", DATA, exact_names=True)
    assert (X.shape, Xt.shape, Y.shape[1]) == ((335, 68), (167, 68), 174)
    X, Y, Xt, Yt, _ = load_split("llog", DATA, exact_names=True)  # llog.arff split like boomer_reference.py
    assert (X.shape[0], Xt.shape[0], Y.shape[1]) == (973, 487, 75)


@pytest.mark.slow  # a benchmark run on real data
@needs_data
def test_peak_memory_in_a_fresh_process():
    big = np.ones(600 * 2**17)  # 600 MiB resident here must not count in the child (ru_maxrss did)
    m = peak_memory("emotions", DATA, max_rules=5)
    assert 20 < m["loaded_MiB"] <= m["ready_MiB"] <= m["peak_MiB"] < big.nbytes / 2**20


def test_reference_crash_is_recorded(tmp_path, monkeypatch):
    "A reference that dies of a signal (mlrl-boomer segfaults on delicious's shape) leaves rows with its return code."
    from mlc_lit.bench.boomer import run_reference

    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nkill -SEGV $$\n")
    fake.chmod(0o755)
    script = tmp_path / "boomer_reference.py"
    script.write_text("")
    monkeypatch.setenv("MLC_LIT_BOOMER_PYTHON", str(fake))
    monkeypatch.setenv("MLC_LIT_BOOMER_SCRIPT", str(script))
    rows = run_reference("many_labels", tmp_path, ["a", "c"], suite="many-labels", record_failure=True)
    assert [(r["config"], r["returncode"]) for r in rows] == [("a", -11), ("c", -11)]
    assert all(r["fit_s"] != r["fit_s"] for r in rows)  # NaN: no time to compare
    assert run_reference("many_labels", tmp_path, ["a"]) == []  # the other suites: no rows, as before
