"""The boomer-options benchmark suite: its option table and its CSV rows, from a tiny run of our side only."""

import inspect
import os

import pytest

from mlc_lit.bench import read_rows, write_rows
from mlc_lit.bench.boomer_options import OPTIONS, make, run, side_by_side, summary
from mlc_lit.bench.suites import SUITES, report
from mlc_lit.boomer import BoomerClassifier

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
needs_data = pytest.mark.skipif(not os.path.isdir(os.path.join(DATA, "emotions")), reason="no ../shared/data")
# the columns bench_results/boomer_options.csv has had since the standalone script; the suite keeps them
CSV_COLUMNS = {"dataset", "config", "impl", "seed", "n_rules", "subset01", "hamming", "example_f1", "ece", "fit_s"}


def test_option_table():
    assert SUITES["boomer-options"].summary is summary
    ours_params = set(inspect.signature(BoomerClassifier).parameters)
    for name, (ours, ref) in OPTIONS.items():
        assert set(ours) <= ours_params, name  # every option is one of our estimator's parameters
        assert all("_" not in str(v).split("{")[0] for v in ref.values()), name  # mlrl-boomer spells values with '-'
        make("mlc_lit", name, 1)._validate_params()  # accepted by scikit-learn's parameter constraints
        assert (name == "plain") == (not ours and not ref)  # one option per configuration, switched on on both sides
    assert {
        "plain",
        "pre_pruning",
        "post_pruning",
        "time_limit_1s",
        "no_default_rule",
        "marginal_isotonic",
        "gfm",
        "gfm_calibrated",
        "based_on_probabilities",
        "marginalized",
        "holdout",
        "example_wise_complete",
        "stratified_output_wise",
        "stratified_example_wise",
        "irep",
        "irep_last_prefix",
        "pre_pruning_abs_score",
        "post_optimization",
        "feature_binning_equal_width",
        "feature_binning_equal_frequency",
        "equal_frequency_32",
        "partial_fixed",
        "partial_dynamic",
        "output_round_robin",
        "output_without_replacement",
        "beam_search",
        "squared_hinge_label_wise",
        "squared_hinge_example_wise",
        "squared_error_example_wise",
        "l1",
        "l1_reference_step",
        "l1_reference_step_abs_score",
        "statistic_type_32",
        "equal_frequency_32_float32",
    } == set(OPTIONS)
    with pytest.raises(ValueError, match="Unknown configuration"):
        run(DATA, datasets=["emotions"], configs=["no_such_configuration"], reference=False)


@pytest.mark.slow  # a benchmark run on real data
@needs_data
def test_tiny_run_of_our_side_and_its_csv_rows(tmp_path):
    configs = ["plain", "post_pruning", "no_default_rule", "gfm_calibrated", "marginalized"]
    rows = run(DATA, datasets=["emotions"], configs=configs, seeds=[1, 2], reference=False, max_rules=12)
    assert [(r["config"], r["seed"]) for r in rows] == [(c, s) for c in configs for s in (1, 2)]
    for r in rows:
        assert r["impl"] == "mlc_lit" and r["threads"] == 1 and r["suite"] == "boomer-options"
        assert 1 <= r["n_rules"] <= r["n_rules_learned"] <= 12
        assert 0 <= r["subset01"] <= 1 and 0 <= r["hamming"] <= 1 and 0 <= r["example_f1"] <= 1 and 0 <= r["ece"] <= 1
        assert r["fit_s"] > 0
    by = {(r["config"], r["seed"]): r for r in rows}
    # marginalized changes predict_proba only: same rules and labels as plain, another calibration error
    assert by["marginalized", 1]["subset01"] == by["plain", 1]["subset01"]
    assert by["marginalized", 1]["ece"] != by["plain", 1]["ece"]
    path = tmp_path / "rows.csv"
    write_rows(rows, path)
    back = read_rows(path)
    assert CSV_COLUMNS <= set(back[0]) and [(r["config"], r["seed"]) for r in back] == list(by)
    assert back[3]["n_rules"] == by["post_pruning", 2]["n_rules"]
    # with reference rows of the same seeds, the per-seed ratio table and the summary pair them up
    ref = [dict(r, impl="mlrl-boomer", fit_s=2 * r["fit_s"], fit_cpu_s=2 * r["fit_cpu_s"]) for r in back]
    table = side_by_side(back + ref)
    assert len(table) == len(configs) and all(
        abs(t["fit_ratio"] - 0.5) < 1e-9 and abs(t["fit_cpu_ratio"] - 0.5) < 1e-9 and t["d_subset01"] == 0
        for t in table
    )
    lines = []
    report(back + ref, out=lines.append, loadavg=False)
    assert any("boomer-options: means over seeds" in block for block in lines)
