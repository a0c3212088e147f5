"""Without instance sampling the grow kernel keeps each rule's sums over all examples and sums again only the columns
the last rule's update changed (01a, step 1). The slow obvious version is the same fit with every row summed at every
rule: a stratified draw of the whole training set gives every example weight 1 as weights handed to the kernel, whose
sums are never kept, and it draws nothing from the kernel's random stream, so both fits must build the same model, bit
for bit, under every option that changes what a rule's update writes."""

import functools

import numpy as np
import pytest
import scipy.sparse as sp

from mlc_lit.boomer import BoomerClassifier

from _boomer_fixtures import data as _data, same

CONFIGS = [
    dict(),
    dict(head="partial_fixed", single_label="abs_score"),
    dict(head="partial_dynamic"),
    dict(output_sampling="round_robin"),
    dict(output_sampling="without_replacement", head="complete"),
    dict(loss="logistic_example_wise", head="complete"),
    dict(loss="logistic_example_wise", head="single"),
    dict(loss="squared_hinge_label_wise"),
    dict(loss="squared_error_example_wise", head="complete"),
    dict(l1=0.5),
    dict(post_optimization="sequential"),
    dict(rule_induction="top_down_beam_search"),
    dict(feature_binning="equal_frequency", feature_max_bins=8),
    dict(statistic_type="float32"),
    dict(holdout="random", global_pruning="post_pruning"),
]


def _every_row_summed(kw, instance_sampling="stratified_output_wise"):
    return dict(kw, instance_sampling=instance_sampling, instance_sample_size=1.0)


@pytest.mark.parametrize("kw", CONFIGS)
@pytest.mark.parametrize("csr", [False, True])
def test_kept_sums_build_the_model_of_sums_redone_every_rule(kw, csr):
    X, Y = _data(n=160, F=7, K=4, seed=2)
    X = sp.csr_matrix(np.nan_to_num(X)) if csr else X
    make = functools.partial(BoomerClassifier, max_rules=40, random_state=4, feature_sampling=None)
    kept = make(instance_sampling=None, **kw).fit(X, Y)
    redone = make(**_every_row_summed(kw)).fit(X, Y)
    assert kept.n_rules_ > 5  # rules were learned, so the kept sums were read
    same(kept, redone)


def test_both_stratified_draws_of_everything_agree():
    "The obvious version does not depend on which stratified draw takes every example."
    X, Y = _data(n=160, F=7, K=4, seed=2)
    make = functools.partial(BoomerClassifier, max_rules=40, random_state=4)
    same(
        make(**_every_row_summed({}, "stratified_output_wise")).fit(X, Y),
        make(**_every_row_summed({}, "stratified_example_wise")).fit(X, Y),
    )


def test_kept_sums_with_labels_that_never_occur():
    "A label without positives and a constant feature: real data, not bad input."
    X, Y = _data(n=120, F=6, K=4, seed=5)
    Y[:, 2] = 0
    X[:, 1] = 1.5
    make = functools.partial(BoomerClassifier, max_rules=30, random_state=1)
    same(make(instance_sampling=None).fit(X, Y), make(**_every_row_summed({})).fit(X, Y))
