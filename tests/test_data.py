"""Every shared data file loads with the shape documented in ../shared/data/README.md; malformed files fail clearly.

The table below is copied from the README's "Per-file check" (it is the spec). Two deliberate differences:
genbase's `protein` identifier is dropped by the loader (README: 1186 features incl. protein), and emotions.arff's
cardinality is 1108/593 = 1.8685 (README rounds it to 1.869; liac-arff gives the same 1108 labels).
Set MLC_LIT_DATA to point elsewhere; the real-data tests are skipped when the folder is absent.
"""

import bz2
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from mlc_lit.data import fixed_split, list_datasets, load_arff, load_dataset, load_svmlight, make_boomer_synthetic

DATA = Path(os.environ.get("MLC_LIT_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"))
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"shared data folder {DATA} absent")

# file, format, #inst, #features, (#numeric, #nominal), #labels, labels first?, cardinality, empty labelsets
TABLE = [
    ("bibtex/bibtex-test.arff", "sparse", 2515, 1836, (0, 1836), 159, False, 2.444, 0),
    ("bibtex/bibtex-train.arff", "sparse", 4880, 1836, (0, 1836), 159, False, 2.380, 0),
    ("bibtex/bibtex.arff", "sparse", 7395, 1836, (0, 1836), 159, False, 2.402, 0),
    ("birds/birds-test.arff", "dense", 323, 260, (258, 2), 19, False, 0.969, 151),
    ("birds/birds-train.arff", "dense", 322, 260, (258, 2), 19, False, 1.059, 143),
    ("birds/birds.arff", "dense", 645, 260, (258, 2), 19, False, 1.014, 294),
    ("cal500/cal500.arff", "dense", 502, 68, (68, 0), 174, False, 26.044, 0),
    ("corel5k/Corel5k-sparse.arff", "sparse", 5000, 499, (0, 499), 374, False, 3.522, 0),
    ("corel5k/Corel5k-test-sparse.arff", "sparse", 500, 499, (0, 499), 374, False, 3.526, 0),
    ("corel5k/Corel5k-train-sparse.arff", "sparse", 4500, 499, (0, 499), 374, False, 3.522, 0),
    ("emotions/Music.arff", "dense", 592, 71, (71, 0), 6, True, 1.870, 0),
    ("emotions/emotions-test.arff", "dense", 202, 72, (72, 0), 6, False, 1.975, 0),
    ("emotions/emotions-train.arff", "dense", 391, 72, (72, 0), 6, False, 1.813, 0),
    ("emotions/emotions.arff", "dense", 593, 72, (72, 0), 6, False, 1.868, 0),  # README: 1.869 (1108/593 = 1.8685)
    ("enron/Enron.arff.bz2", "sparse", 1702, 1001, (1001, 0), 53, True, 3.378, 0),
    ("enron/enron-test.arff", "sparse", 579, 1001, (0, 1001), 53, False, 3.363, 0),
    ("enron/enron-train.arff", "sparse", 1123, 1001, (0, 1001), 53, False, 3.386, 0),
    ("enron/enron.arff", "sparse", 1702, 1001, (0, 1001), 53, False, 3.378, 0),
    ("flags/flags-test.arff", "dense", 65, 19, (10, 9), 7, False, 3.338, 0),
    ("flags/flags-train.arff", "dense", 129, 19, (10, 9), 7, False, 3.419, 0),
    ("flags/flags.arff", "dense", 194, 19, (10, 9), 7, False, 3.392, 0),
    ("genbase/genbase-test.arff", "dense", 199, 1186, (0, 1186), 27, False, 1.231, 0),
    ("genbase/genbase-train.arff", "dense", 463, 1186, (0, 1186), 27, False, 1.261, 0),
    ("genbase/genbase.arff", "dense", 662, 1186, (0, 1186), 27, False, 1.252, 0),
    ("llog/langlog-test.arff", "sparse", 481, 1004, (1004, 0), 75, True, 1.210, 72),
    ("llog/langlog-train.arff", "sparse", 979, 1004, (1004, 0), 75, True, 1.165, 135),
    ("llog/llog.arff", "sparse", 1460, 1004, (1004, 0), 75, False, 1.180, 207),
    ("medical/medical-test.arff", "sparse", 645, 1449, (0, 1449), 45, False, 1.240, 0),
    ("medical/medical-train.arff", "sparse", 333, 1449, (0, 1449), 45, False, 1.255, 0),
    ("medical/medical.arff", "sparse", 978, 1449, (0, 1449), 45, False, 1.245, 0),
    ("scene/Scene.arff.bz2", "dense", 2407, 294, (294, 0), 6, True, 1.074, 0),
    ("scene/scene-test.arff", "dense", 1196, 294, (294, 0), 6, False, 1.086, 0),
    ("scene/scene-train.arff", "dense", 1211, 294, (294, 0), 6, False, 1.062, 0),
    ("slashdot/slashdot-test.arff", "sparse", 757, 3125, (3125, 0), 20, False, 1.198, 0),
    ("slashdot/slashdot-train.arff", "sparse", 3025, 3125, (3125, 0), 20, False, 1.177, 0),
    ("slashdot/slashdot.arff", "sparse", 3782, 3125, (3125, 0), 20, False, 1.181, 0),
    ("tmc2007-500/tmc2007-500-test.arff", "sparse", 7077, 500, (0, 500), 22, False, 1.952, 0),
    ("tmc2007-500/tmc2007-500-train.arff", "sparse", 21519, 500, (0, 500), 22, False, 2.226, 0),
    ("tmc2007-500/tmc2007-500.arff", "sparse", 28596, 500, (0, 500), 22, False, 2.158, 0),
    ("yeast/Yeast.arff.bz2", "dense", 2417, 103, (103, 0), 14, True, 4.237, 0),
    ("yeast/yeast-test.arff", "dense", 917, 103, (103, 0), 14, False, 4.252, 0),
    ("yeast/yeast-train.arff", "dense", 1500, 103, (103, 0), 14, False, 4.228, 0),
    ("yeast/yeast.arff", "dense", 2417, 103, (103, 0), 14, False, 4.237, 0),
    ("yeast/yeast.svm", "svmlight", 2417, 103, (103, 0), 14, True, 4.237, 0),
    ("medical/mlrl-boomer-variant/medical.arff", "sparse", 1954, 1909, (1909, 0), 45, False, 1.240, 0),
]
STALE_MEKA_C = {
    "medical/medical-test.arff",
    "medical/medical-train.arff",
    "medical/medical.arff",
    "llog/llog.arff",
    "slashdot/slashdot-test.arff",
    "slashdot/slashdot-train.arff",
    "slashdot/slashdot.arff",
}


@needs_data
def test_table_covers_every_file():
    files = {str(p.relative_to(DATA)) for p in DATA.rglob("*") if p.suffix in (".arff", ".bz2", ".svm")}
    assert files == {row[0] for row in TABLE}


@needs_data
@pytest.mark.parametrize("row", TABLE, ids=[r[0] for r in TABLE])
def test_file_matches_readme(row):
    rel, fmt, n, n_feat, (n_num, n_nom), n_lab, labels_first, card, empty = row
    path = DATA / rel
    X, Y, meta = load_svmlight(path) if fmt == "svmlight" else load_arff(path)
    dropped = len(meta.dropped)
    assert X.shape == (n, n_feat - dropped) and Y.shape == (n, n_lab)
    assert [name for name, why in meta.dropped] == (["protein"] if rel.startswith("genbase") else [])
    assert len(meta.nominal) == n_nom - dropped and X.shape[1] - len(meta.nominal) == n_num
    assert round(float(Y.sum(1).mean()), 3) == card
    assert int((Y.sum(1) == 0).sum()) == empty
    assert Y.dtype == np.int8 and Y.flags.c_contiguous and set(np.unique(Y)) <= {0, 1}
    if fmt == "dense":
        assert isinstance(X, np.ndarray) and X.dtype == np.float64 and X.flags.c_contiguous
    else:
        assert sp.issparse(X) and X.format == "csr" and X.dtype == np.float64 and X.has_canonical_format
    assert meta.n_features == X.shape[1] and meta.n_labels == n_lab
    if fmt != "svmlight":
        assert meta.label_source.startswith("MEKA" if labels_first and "langlog" not in rel else "XML")
    if rel in STALE_MEKA_C:
        assert any("-C" in note and "ignored" in note for note in meta.notes)


@needs_data
def test_list_datasets():
    assert list_datasets(DATA) == [
        "bibtex",
        "birds",
        "cal500",
        "corel5k",
        "emotions",
        "enron",
        "flags",
        "genbase",
        "llog",
        "medical",
        "scene",
        "slashdot",
        "tmc2007-500",
        "yeast",
    ]


@needs_data
@pytest.mark.parametrize(
    "name",
    [
        "bibtex",
        "birds",
        "corel5k",
        "emotions",
        "enron",
        "flags",
        "genbase",
        "llog",
        "medical",
        "scene",
        "slashdot",
        "tmc2007-500",
        "yeast",
    ],
)
def test_train_test_agree(name):
    Xa, Ya, ma = load_dataset(name, DATA, "train")
    Xb, Yb, mb = load_dataset(name, DATA, "test")
    assert ma.feature_names == mb.feature_names and ma.label_names == mb.label_names and ma.nominal == mb.nominal
    assert Xa.shape[1] == Xb.shape[1] and sp.issparse(Xa) == sp.issparse(Xb)


@needs_data
def test_full_split():
    X, Y, meta = load_dataset("scene", DATA, "full")  # no Mulan union file: stacked
    Xa, Ya, _ = load_dataset("scene", DATA, "train")
    assert X.shape == (2407, 294) and np.array_equal(X[:1211], Xa) and np.array_equal(Y[:1211], Ya)
    X, Y, meta = load_dataset("llog", DATA, "full")  # labels last here, first in the split files
    Xa, Ya, ma = load_dataset("llog", DATA, "train")
    assert meta.feature_names == ma.feature_names and meta.label_names == ma.label_names


@needs_data
def test_cal500_has_no_split():
    with pytest.raises(ValueError, match="no predefined train/test split.*fixed_split"):
        load_dataset("cal500", DATA, "train")
    X, Y, _ = load_dataset("cal500", DATA, "full")
    Xtr, Ytr, Xte, Yte = fixed_split(X, Y)
    perm = np.random.default_rng(0).permutation(502)  # as in ../shared/bench/boomer_reference.py
    assert np.array_equal(Xtr, X[np.sort(perm[:335])]) and Xte.shape == (167, 68)


@needs_data
def test_svmlight_is_yeast():
    # the svmlight copy holds the same rows in another order, with its own label numbering
    X, Y, _ = load_svmlight(DATA / "yeast/yeast.svm")
    X2, Y2, _ = load_arff(DATA / "yeast/yeast.arff")
    key = lambda A: np.lexsort(np.round(A, 4).T[::-1])
    assert np.allclose(X.toarray()[key(X.toarray())], X2[key(X2)], atol=1e-5)
    assert sorted(Y.sum(0)) == sorted(Y2.sum(0))


@needs_data
def test_meka_vs_mulan_enron():
    Xa, Ya, ma = load_arff(DATA / "enron/Enron.arff.bz2")
    Xb, Yb, mb = load_arff(DATA / "enron/enron.arff")
    assert ma.label_source == "MEKA -C 53" and sorted(ma.label_names) == sorted(mb.label_names)
    assert Xa.nnz == Xb.nnz and Ya.sum() == Yb.sum()


# ---------------------------------------------------------------- malformed input (no shared data needed)

HEADER = "@relation t\n@attribute a numeric\n@attribute c {x,y}\n@attribute l1 {0,1}\n@attribute l2 {0,1}\n@data\n"
XML = '<?xml version="1.0"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">\n<label name="l1"/>\n<label name="l2"/>\n</labels>\n'


def _write(tmp_path, rows, xml=XML, name="t"):
    (tmp_path / f"{name}.arff").write_text(HEADER + rows)
    (tmp_path / f"{name}.xml").write_text(xml)
    return tmp_path / f"{name}.arff"


def test_good_file(tmp_path):
    X, Y, meta = load_arff(_write(tmp_path, "1.5,x,0,1\n?,y,1,1\n"))
    np.testing.assert_array_equal(X, [[1.5, 0], [np.nan, 1]])
    np.testing.assert_array_equal(Y, [[0, 1], [1, 1]])


@pytest.mark.parametrize(
    "rows, message",
    [
        ("1.5,x,0,1\n2,y\n", r"t.arff, line 8: too few values \(2; the header declares 4 attributes\)"),
        ("1.5,x,0,1\n2,z,0,1\n", r"t.arff, line 8 \(attribute 'c'\): value 'z' is not in the nominal domain \{x, y\}"),
        ("1.5,x,0,1\nabc,x,0,1\n", r"t.arff, line 8 \(attribute 'a'\): non-numeric value 'abc'"),
        ("{0 1.5,3 1}\n{1 1,4 1}\n", r"t.arff, line 8: undeclared attribute index 4"),
        ("{0 1.5,3 1}\n{1 y,2 3}\n", r"t.arff, line 8 \(attribute 'l1'\): value '3' is not in the nominal domain"),
    ],
)
def test_malformed(tmp_path, rows, message):
    with pytest.raises(ValueError, match=message):
        load_arff(_write(tmp_path, rows))


def test_label_missing_from_arff(tmp_path):
    path = _write(tmp_path, "1.5,x,0,1\n", xml=XML.replace('"l2"', '"l3"'))
    with pytest.raises(ValueError, match=r"t.xml, line 4: label 'l3' is not an attribute of .*t.arff"):
        load_arff(path)


def test_numeric_label_out_of_range(tmp_path):
    (tmp_path / "m.arff").write_text(
        "@relation 'm: -C 1'\n@attribute l numeric\n@attribute a numeric\n@data\n1,2\n2,3\n"
    )
    with pytest.raises(ValueError, match=r"m.arff, line 6: label value 2"):
        load_arff(tmp_path / "m.arff")


def test_no_label_information(tmp_path):
    (tmp_path / "n.arff").write_text("@relation n\n@attribute a numeric\n@data\n1\n")
    with pytest.raises(ValueError, match="cannot tell which attributes are labels"):
        load_arff(tmp_path / "n.arff")


def test_bz2_and_sparse_equal_dense(tmp_path):
    dense = _write(tmp_path, "1.5,x,0,1\n0,y,1,0\n0,x,0,0\n", name="d")
    with bz2.open(tmp_path / "s.arff.bz2", "wt") as fh:
        fh.write(HEADER + "{0 1.5,3 1}\n{1 y,2 1}\n{}\n")
    (tmp_path / "s.xml").write_text(XML)
    Xd, Yd, _ = load_arff(dense)
    Xs, Ys, meta = load_arff(tmp_path / "s.arff.bz2")
    assert sp.issparse(Xs) and meta.sparse
    np.testing.assert_array_equal(Xs.toarray(), Xd)
    np.testing.assert_array_equal(Ys, Yd)


def test_svmlight_errors(tmp_path):
    (tmp_path / "a.svm").write_text("0 1:1\n1 x:2\n")
    with pytest.raises(ValueError, match=r"a.svm, line 2: feature index 'x' is not an integer"):
        load_svmlight(tmp_path / "a.svm")
    (tmp_path / "b.svm").write_text("0 1:1\n1 9:2\n")
    with pytest.raises(ValueError, match=r"b.svm, line 2: feature index 9 outside the 5 declared"):
        load_svmlight(tmp_path / "b.svm", n_features=5)


# ---------------------------------------------------------------- synthetic sets (BOOMER paper, Sec. 5.1)


@pytest.mark.parametrize(
    "kind, n_features, hamming, subset",
    [
        ("marginal_independence", 12, 0.1, 1 - 0.9**6),
        ("marginal_dependence", 2, 0.1, 1 - 0.9**6),
        ("conditional_dependence", 2, 0.1, 0.1),
        ("one_error", 2, 1 / 6, 5 / 6),
    ],
)
def test_synthetic_bayes_levels(kind, n_features, hamming, subset):
    X, Y, bayes = make_boomer_synthetic(kind, n=100_000, seed=7)
    assert X.shape == (100_000, n_features) and Y.shape == (100_000, 6) and Y.dtype == np.int8
    assert (np.hypot(X[:, 0], X[:, 1]) <= 1).all()
    assert abs(np.mean(Y != bayes["hamming"]) - hamming) < 0.006
    assert abs(np.mean((Y != bayes["subset"]).any(axis=1)) - subset) < 0.006


def test_synthetic_seeds():
    a = make_boomer_synthetic("cd", n=300, seed=0)
    b = make_boomer_synthetic("conditional-dependence", n=300, seed=0)
    c = make_boomer_synthetic("cd", n=300, seed=1)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])
    # train and test drawn with different seeds share the concept: a nearest-neighbour on clean labels agrees
    d = ((c[0][:, None, :] - a[0][None, :, :]) ** 2).sum(-1)
    assert np.mean(a[2]["hamming"][d.argmin(1)] != c[2]["hamming"]) < 0.05
