"""The two tiers of the test suite, in one place.

Plain `pytest` runs the fast tier (pyproject.toml: `-m 'not slow'`); `pytest -m slow` runs the rest. Whole tests go
to the slow tier with `@pytest.mark.slow` where they are written (real data, fresh processes, benchmark runs,
LocalClusters, further configurations' estimator checks). Most of the fast tier's time is Numba compiling one set
of kernels per configuration, so a test run over many configurations keeps its first few cases in the fast tier
and the others go to the slow tier: `FAST_CASES` below lists those tests and how many leading cases stay fast
(their first cases are the plain configurations the other fast tests compile anyway).
"""

import pytest

FAST_CASES = {
    "test_boomer.py::test_dense_equals_csr": 1,
    "test_boomer.py::test_n_jobs_invariance": 1,
    "test_boomer.py::test_constant_feature_samples_draw_more": 1,
    "test_boomer.py::test_diagnostics_do_not_change_the_model": 1,
    "test_boomer.py::test_training_scores_equal_model_scores": 2,
    "test_boomer_beam_search.py::test_dense_equals_csr": 1,
    "test_boomer_beam_search.py::test_width_one_is_the_greedy_search": 1,
    "test_boomer_beam_search.py::test_pickle_round_trip": 1,
    "test_boomer_beam_search.py::test_n_jobs_invariance_and_seeding": 1,
    "test_boomer_irep_update.py::test_dense_equals_csr_and_threads": 1,
    "test_boomer_kept_sums.py::test_kept_sums_build_the_model_of_sums_redone_every_rule": 1,
    "test_boomer_losses_l1.py::test_dense_equals_csr_and_pickle": 1,
    "test_boomer_losses_l1.py::test_n_jobs_invariance": 1,
    "test_boomer_losses_l1.py::test_tiny_l1_takes_the_l1_kernels_and_learns_the_same_model": 1,
    "test_boomer_options.py::test_dense_equals_csr": 1,
    "test_boomer_options.py::test_n_jobs_invariance": 1,
    "test_boomer_options.py::test_pickle_round_trip": 1,
    "test_boomer_partial.py::test_dense_csr_n_jobs_pickle": 1,
    "test_boomer_partial.py::test_one_label_and_a_label_never_positive": 1,
    "test_boomer_partial.py::test_equal_to_plain_heads_where_they_must_be": 1,
    "test_boomer_rule_induction.py::test_dense_equals_csr": 1,
    "test_boomer_rule_induction.py::test_n_jobs_invariance_and_seeding": 1,
    "test_boomer_rule_induction.py::test_pickle_round_trip": 1,
    "test_boomer_statistic_type.py::test_statistics_are_float32": 1,
    "test_boomer_statistic_type.py::test_first_rule_as_float64": 1,
    "test_boomer_statistic_type.py::test_dense_csr_and_threads": 1,
    "test_compile_sweeps.py::test_same_model_as_with_every_sweep": 1,
    "test_compile_sweeps.py::test_one_valued_features_take_the_general_sweep_with_the_same_model": 1,
    "test_boomer_low_rank.py::test_low_rank_n_jobs_csr_pickle": 1,
    "test_data.py::test_file_matches_readme": 6,
    "test_data.py::test_train_test_agree": 3,
    "test_feature_binning.py::test_dense_equals_csr": 2,
    "test_feature_binning.py::test_binary_features_take_the_exact_search": 1,
    "test_feature_binning.py::test_histogram_search_equals_sweep_fallback": 1,
    "test_mlxgb.py::test_dense_equals_csr_and_n_jobs": 2,
    "test_mlxgb.py::test_split_kernels_against_naive": 4,
    "test_xdcc.py::test_xdcc_chain": 2,
}


def _group(item) -> str:
    """The tests one worker of `pytest -n 2 --dist loadgroup` runs together: a file's tests (they compile the same
    configurations, once per worker), except that each notebook is a group of its own."""
    notebook = getattr(item, "callspec", None) and item.callspec.params.get("notebook")
    return str(notebook) if notebook else item.nodeid.split("::")[0]


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker, and before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    seen = {}
    for item in items:
        item.add_marker(pytest.mark.xdist_group(_group(item)))
        if "[" not in item.nodeid:
            continue
        key = item.nodeid.split("/")[-1].split("[")[0]
        if key not in FAST_CASES:
            continue
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > FAST_CASES[key]:
            item.add_marker(pytest.mark.slow)
