"""Memory estimates of the option buffers: refused clearly before allocation, not after."""

import numpy as np
import pytest

from mlc_lit.boomer import BoomerClassifier


def test_beam_and_histogram_buffers_are_estimated(monkeypatch):
    "The beam's buffers and feature binning's histograms are checked against the memory budget before allocation."
    from mlc_lit.core import InsufficientMemoryError

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 6))
    Y = (X[:, :4] > 0).astype(np.int8)
    monkeypatch.setenv("MLC_LIT_MEMORY_LIMIT", str(4 * 2**20))
    BoomerClassifier(max_rules=3, random_state=0).fit(X, Y)  # the plain fit fits in 4 MiB
    with pytest.raises(InsufficientMemoryError, match="beam search"):
        BoomerClassifier(
            max_rules=3,
            random_state=0,
            rule_induction="top_down_beam_search",
            rule_induction_options=dict(beam_width=500),
        ).fit(X, Y)
    X = rng.normal(size=(300, 50))
    Y = (X[:, :30] > 0).astype(np.int8)
    monkeypatch.setenv("MLC_LIT_MEMORY_LIMIT", str(5 * 2**20))
    BoomerClassifier(
        max_rules=3, random_state=0, loss="logistic_example_wise", head="complete", feature_sampling=None
    ).fit(X, Y)
    with pytest.raises(InsufficientMemoryError, match="histograms"):
        BoomerClassifier(
            max_rules=3,
            random_state=0,
            loss="logistic_example_wise",
            head="complete",
            feature_sampling=None,
            feature_binning="equal_frequency",
            feature_min_bins=32,
            feature_bin_ratio=0.5,
        ).fit(X, Y)
