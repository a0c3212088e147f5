"""BoomerClassifier's partial heads (head='partial_fixed' / 'partial_dynamic') and output sampling: dense = CSR,
n_jobs invariance, pickle, edge cases (K = 1, a label that is never positive), the cases where they must equal the
plain heads exactly, bad options, and scikit-learn's estimator checks."""

import functools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from mlc_lit.boomer import BoomerClassifier

from _boomer_fixtures import data, same as _same

_data = functools.partial(data, n=120, F=6)  # this file's sizes

OPTIONS = [
    dict(head="partial_fixed"),
    dict(head="partial_fixed", partial_ratio=0.5, partial_max_outputs=3, single_label="abs_score"),
    dict(head="partial_dynamic"),
    dict(head="partial_dynamic", partial_threshold=0.5, partial_exponent=1.0, loss="logistic_example_wise"),
    dict(head="partial_fixed", loss="logistic_example_wise", single_label="abs_score"),
    dict(output_sampling="round_robin"),
    dict(output_sampling="without_replacement", output_sample_size=0.5, head="single"),
    dict(output_sampling="without_replacement", output_sample_size=2, loss="logistic_example_wise"),
    dict(
        output_sampling="without_replacement",
        output_sample_size=3,
        head="partial_dynamic",
        loss="squared_error_label_wise",
    ),
]


@pytest.mark.parametrize("kw", OPTIONS)
def test_dense_csr_n_jobs_pickle(kw):
    X, Y = _data()
    a = BoomerClassifier(max_rules=25, random_state=3, **kw).fit(X, Y)
    _same(a, BoomerClassifier(max_rules=25, random_state=3, n_jobs=2, **kw).fit(X, Y))
    _same(a, BoomerClassifier(max_rules=25, random_state=3, **kw).fit(sp.csr_matrix(X), Y))
    b = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    labels = np.split(a.head_label_, a.head_ptr_[1:-1])[1:]
    assert all(len(l) >= 1 and np.all(np.diff(l) > 0) for l in labels)  # each head: distinct labels, ascending


@pytest.mark.parametrize("loss", ["logistic_label_wise", "logistic_example_wise"])
def test_equal_to_plain_heads_where_they_must_be(loss):
    X, Y = _data(K=3)
    plain = BoomerClassifier(loss=loss, head="complete", max_rules=20, random_state=1).fit(X, Y)
    # a fixed partial head of all K labels is the complete head, to the last bit
    _same(
        plain,
        BoomerClassifier(loss=loss, head="partial_fixed", partial_min_outputs=3, max_rules=20, random_state=1).fit(
            X, Y
        ),
    )
    # a sample of all K labels predicts what the complete head does (its draws shift the feature order, so conditions
    # may come in another order or tie differently: the same scores and heads here)
    kw = dict(loss=loss, max_rules=20, random_state=1, instance_sampling=None, feature_sampling=None)
    a = BoomerClassifier(head="complete", **kw).fit(X, Y)
    b = BoomerClassifier(head="complete", output_sampling="without_replacement", output_sample_size=3, **kw).fit(X, Y)
    np.testing.assert_array_equal(a.head_label_, b.head_label_)
    np.testing.assert_array_equal(a.head_score_, b.head_score_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_round_robin_cycles_and_options_are_ignored_unless_asked():
    X, Y = _data(K=3)
    a = BoomerClassifier(output_sampling="round_robin", max_rules=10, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(a.head_label_[3:], np.arange(9) % 3)  # rule r predicts label (r - 1) mod K
    base = BoomerClassifier(max_rules=15, random_state=0).fit(X, Y)
    _same(
        base,
        BoomerClassifier(
            max_rules=15, random_state=0, partial_ratio=0.5, partial_threshold=0.3, output_sample_size=2
        ).fit(X, Y),
    )


@pytest.mark.parametrize("kw", [OPTIONS[0], OPTIONS[3], OPTIONS[5], OPTIONS[7]])
def test_one_label_and_a_label_never_positive(kw):
    X, Y = _data(K=3)
    one = BoomerClassifier(max_rules=10, random_state=0, **kw).fit(X, Y[:, :1])
    assert one.predict(X).shape == (len(X), 1) and set(one.head_label_) == {0}
    Y0 = Y.copy()
    Y0[:, 1] = 0
    clf = BoomerClassifier(max_rules=15, random_state=0, **kw).fit(X, Y0)
    assert not clf.predict(X)[:, 1].any()


@pytest.mark.parametrize(
    "bad, msg",
    [
        (dict(head="partial"), "head"),
        (dict(partial_ratio=1.0), "partial_ratio"),
        (dict(partial_min_outputs=0), "partial_min_outputs"),
        (dict(head="partial_fixed", partial_min_outputs=3, partial_max_outputs=2), "partial_max_outputs"),
        (dict(partial_threshold=0.0), "partial_threshold"),
        (dict(partial_exponent=0.5), "partial_exponent"),
        (dict(output_sampling="round-robin"), "output_sampling"),
        (dict(output_sample_size=0), "output_sample_size"),
        (
            dict(
                output_sampling="round_robin",
                loss="logistic_example_wise",
                head="complete",
                label_binning="equal_width",
            ),
            "label_binning",
        ),
    ],
)
def test_bad_options(bad, msg):
    X, Y = _data()
    with pytest.raises(ValueError, match=msg):
        BoomerClassifier(max_rules=5, **bad).fit(X, Y)


@pytest.mark.slow  # further configurations' scikit-learn checks (the fast tier checks one per code path)
@parametrize_with_checks(
    [
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[0]),
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[3]),
        BoomerClassifier(max_rules=10, random_state=0, **OPTIONS[6]),
    ]
)
def test_sklearn_contract(estimator, check):
    check(estimator)
