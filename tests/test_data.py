"""Tests of the dataset layer (randml_core/data). Offline only: no test touches the network."""

from __future__ import annotations

import hashlib
import json
import math
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
    OpenMLSource,
    Source,
    SourceUnavailableError,
    UnknownDatasetError,
    binarise_labels,
    fetch,
    get_spec,
    hash_arrays,
    list_datasets,
    load_dataset,
    register,
    validate_xy,
)
from randml_core.data import registry as registry_mod
from randml_core.data.catalog import catalog_frame
from randml_core.data.sources import KeelSource, repo_root

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- independent references


def ref_hash(X, y) -> str:
    """The hash recipe as documented in checks.hash_arrays, written out independently."""
    h = hashlib.sha256(b"randml-data-hash/1\n")
    for key, a in (("X", X), ("y", y)):
        a = np.ascontiguousarray(a)
        h.update(f"{key}:{a.dtype.str}:{','.join(str(s) for s in a.shape)}\n".encode())
        h.update(a.tobytes())
    return h.hexdigest()


# --------------------------------------------------------------------------- bundled and synthetic


def test_sklearn_bundled_sets():
    from sklearn.datasets import load_breast_cancer, load_iris, load_wine

    iris, wine, wdbc = load_dataset("iris"), load_dataset("wine"), load_dataset("breast-cancer-wdbc")
    assert iris.task == "multiclass" and iris.X.shape == (150, 4) and iris.class_counts() == {0: 50, 1: 50, 2: 50}
    assert wine.task == "multiclass" and wine.X.shape == (178, 13) and wine.class_counts() == {0: 59, 1: 71, 2: 48}
    np.testing.assert_array_equal(iris.X, load_iris().data)
    np.testing.assert_array_equal(wine.y, load_wine().target)
    ref = load_breast_cancer()
    assert wdbc.task == "binary" and wdbc.X.shape == (569, 30)
    np.testing.assert_array_equal(wdbc.y, (ref.target == 0).astype(int))  # malignant (212) -> 1
    assert wdbc.class_counts() == {0: 357, 1: 212}
    assert {iris.source_kind, wine.source_kind, wdbc.source_kind} == {"sklearn-bundled"}


def test_synthetic_sets():
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=300, n_features=8, weights=[0.7, 0.3], random_state=0)
    ds = load_dataset("synthetic-binary")
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)  # class 1 is already the minority: mapping is the identity
    assert ds.source_kind == "synthetic"
    imb = load_dataset("synthetic-imbalanced")
    c0, c1 = np.bincount(imb.y)
    assert imb.X.shape == (400, 8) and c0 + c1 == 400
    assert (c0, c1) == (math.floor(400 * 10 / 11), 400 - math.floor(400 * 10 / 11))  # 363:37, ~10:1


def has_offline_source(name) -> bool:
    """An offline source the repo installs (system data such as Debian's Fashion-MNIST does not count)."""
    return any(not s.online and not s.system for s in get_spec(name).sources)


def shipped_here(name) -> bool:
    """A dataset this repository ships (the engine's, or one of its benchmarks'), not one an installed third-party
    benchmark adds: its card, or the module of its Python table, lies under the repository."""
    import sys
    origin = registry_mod.origin_of(name)
    module = sys.modules.get(origin)
    path = Path(module.__file__) if module is not None and getattr(module, "__file__", None) else Path(origin)
    return path.resolve().is_relative_to(ROOT.resolve())


def test_every_registered_spec_matches_its_expected_block():
    for name in filter(shipped_here, list_datasets()):  # another benchmark's cards may omit the expected block
        spec = get_spec(name)
        if not has_offline_source(name):  # online-only: tested against fake caches in test_data_unbalanced.py
            continue
        ds = load_dataset(name)
        exp = spec.expected
        assert ds.X.shape == (exp["n"], exp["d"]), name
        if exp.get("class_counts") is not None:
            assert ds.class_counts() == exp["class_counts"], name
        assert "MISMATCH" not in ds.notes, name
        assert spec.licence and spec.citation and spec.task in ("binary", "multiclass", "regression")


# --------------------------------------------------------------------------- hashing, read-only


def test_hash_is_stable_and_matches_reference_recipe():
    a, b = load_dataset("heart"), load_dataset("heart")
    assert a.data_hash == b.data_hash == ref_hash(a.X, a.y) == hash_arrays(a.X, a.y)
    assert a.data_hash != load_dataset("sonar").data_hash
    X = np.arange(6, dtype=np.float64).reshape(2, 3)
    y = np.array([0, 1])
    assert hash_arrays(X, y) == ref_hash(X, y)
    assert hash_arrays(X, y) != hash_arrays(X.astype(np.float32), y)  # dtype counts
    assert hash_arrays(X, y) != hash_arrays(X.reshape(3, 2), np.array([0, 1, 0])[:2])  # shape counts
    assert hash_arrays(X, y) != hash_arrays(X, np.array([1, 0]))
    with pytest.raises(TypeError):
        hash_arrays(X, np.array(["a", None], dtype=object))


def test_loaded_arrays_are_read_only():
    ds = load_dataset("sonar")
    with pytest.raises(ValueError):
        ds.X[0, 0] = 1.0
    with pytest.raises(ValueError):
        ds.y[0] = 0


# --------------------------------------------------------------------------- validation


def test_validate_xy_nan_and_inf_report_count_columns_and_fix():
    X = np.ones((5, 4))
    X[1, 2] = np.nan
    X[3, 2] = np.nan
    X[4, 0] = np.inf
    with pytest.raises(DataValidationError) as ei:
        validate_xy(X, np.array([0, 1, 0, 1, 0]), "toy", task="binary")
    msg = str(ei.value)
    assert "'toy'" in msg and "3 non-finite" in msg and "2 NaN, 1 inf" in msg
    assert "[0, 2]" in msg and "fix:" in msg


@pytest.mark.parametrize(
    "X,y,task,needle",
    [
        (np.ones((4, 2)), np.zeros(4), "binary", "at least 2 classes"),
        (np.ones((4, 2)), np.array(["a", "a", "a", "a"]), "multiclass", "at least 2 classes"),
        (np.ones((3, 2)), np.array([0, 1, 2]), "binary", "exactly 2 classes"),
        (np.ones((4, 2)), np.array(["a", "b", "a", "b"]), "multiclass", "needs 3 or more classes, y has 2"),
        (np.ones((2, 2)), np.array(["yes", "no"]), "regression", "task: binary"),
        (np.ones(4), np.array([0, 1, 0, 1]), "binary", "must be 2-D"),
        (np.ones((4, 2)), np.array([0, 1, 0]), "binary", "4 rows but y has 3"),
        (np.ones((0, 3)), np.array([]), "binary", "empty"),
        (np.ones((3, 0)), np.array([0, 1, 0]), "binary", "empty"),
        (np.array([["a", "b"], ["c", "d"]]), np.array([0, 1]), "binary", "not numeric"),
        (np.ones((2, 2)), np.array([1.0, np.inf]), "regression", "non-finite targets"),
    ],
)
def test_validate_xy_rejects_bad_input(X, y, task, needle):
    with pytest.raises(DataValidationError) as ei:
        validate_xy(X, y, "toy", task=task)
    assert needle in str(ei.value) and "'toy'" in str(ei.value) and "fix:" in str(ei.value)


def test_validate_xy_canonicalises():
    X = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(3, 2))
    Xv, yv = validate_xy(X, np.array(["b", "a", "b"], dtype=object), "toy", task="binary")
    assert Xv.dtype == np.float64 and Xv.flags.c_contiguous and Xv.tolist() == [[0, 1], [2, 3], [4, 5]]
    assert yv.dtype.kind == "U" and yv.tolist() == ["b", "a", "b"]


def test_binarise_labels_minority_and_tie_rule():
    y01, names = binarise_labels(np.array(["x", "y", "y", "y"]))
    assert y01.tolist() == [1, 0, 0, 0] and names == {0: "y", 1: "x"}
    y01, names = binarise_labels(np.array([" neg", "pos", "pos", " neg"]))  # tie, stripped
    assert names == {0: "neg", 1: "pos"} and y01.tolist() == [0, 1, 1, 0]
    y01, names = binarise_labels(np.array([2, 10, 10, 2]))  # tie compared as strings: "2" > "10"
    assert names[1] == "2" and y01.tolist() == [1, 0, 0, 1]
    with pytest.raises(DataValidationError, match="3 labels"):
        binarise_labels(np.array(["a", "b", "c"]), "toy")


def test_unknown_name_suggests_closest_and_lists_known():
    with pytest.raises(UnknownDatasetError) as ei:
        load_dataset("hearr")
    msg = str(ei.value)
    assert msg.startswith("unknown dataset 'hearr'; did you mean 'heart'? Known: ")
    assert "australian" in msg and "splice-full" in msg and msg.endswith("(randml data list)")
    with pytest.raises(UnknownDatasetError, match="did you mean 'ionosphere'"):
        get_spec("ionosfere")
    with pytest.raises(UnknownDatasetError) as ei:
        get_spec("zzzzzz")
    assert "did you mean" not in str(ei.value)


def test_bad_source_mode():
    with pytest.raises(ValueError, match="source must be one of"):
        load_dataset("heart", source="ftp")
    with pytest.raises(SourceUnavailableError, match="no 'online' source"):
        load_dataset("iris", source="online")


# --------------------------------------------------------------------------- OpenML cache (offline)


@pytest.fixture
def no_network(monkeypatch):
    """Make every OpenML download attempt fail loudly."""
    import openml

    calls = []

    def boom(*args, **kwargs):
        calls.append(args)
        raise AssertionError("network touched: openml.datasets.get_dataset called")

    monkeypatch.setattr(openml.datasets, "get_dataset", boom)
    return calls


class FakeOpenMLDataset:
    name = "fake-set"
    version = 3
    default_target_attribute = "class"

    def __init__(self):
        self.frame = pd.DataFrame(
            {
                "a": [1.5, 2.0, 3.0, 4.0, 5.0],
                "colour": pd.Categorical(["red", "blue", "red", "green", "red"],
                                         categories=["red", "green", "blue"]),
                "class": pd.Categorical(["pos", "neg", "neg", "neg", "pos"]),
            }
        )

    def get_data(self, target=None, **kwargs):
        X = self.frame.drop(columns=[target])
        return X, self.frame[target], [False, True], list(X.columns)


@pytest.fixture
def fake_openml(monkeypatch):
    import openml

    calls = []

    def get_dataset(data_id, **kwargs):
        calls.append((data_id, kwargs))
        return FakeOpenMLDataset()

    monkeypatch.setattr(openml.datasets, "get_dataset", get_dataset)
    return calls


@pytest.fixture
def temp_spec():
    """Register temporary specs, removed afterwards."""
    names = []

    def make(name, sources, task="binary", expected=None, post=None):
        spec = DatasetSpec(name=name, task=task, papers=(), sources=sources, expected=expected or {},
                           licence="test", citation="test", post=post)
        register(spec)
        names.append(name)
        return spec

    yield make
    for n in names:
        registry_mod.unregister(n)


def write_reference_cache(path: Path, data_id: int, X, y, **meta_extra):
    """Build a cache file by hand (np.savez + our documented JSON meta), not with our writer."""
    meta = {"format": "randml-openml-npz/1", "data_id": data_id, "name": "hand-made", "version": 1,
            "target": "class", "prepare": None, "downloaded_at": "2020-01-01T00:00:00+00:00",
            "sha256": ref_hash(X, y)}
    meta.update(meta_extra)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, X=X, y=y, meta=np.array(json.dumps(meta)))


def test_openml_cache_hit_never_touches_network(tmp_path, no_network, temp_spec):
    X = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    y = np.array(["b", "a", "b"])
    write_reference_cache(tmp_path / "999001.npz", 999001, X, y)
    src = OpenMLSource(999001, cache_dir=tmp_path)
    assert src.available()
    Xl, yl = src.load()
    np.testing.assert_array_equal(Xl, X)
    assert yl.tolist() == ["b", "a", "b"]
    # through load_dataset, after an unavailable offline source: falls through to the cache
    temp_spec("tmp-cached", [KeelSource("no-such-keel-set"), src])
    ds = load_dataset("tmp-cached")
    assert ds.source_kind == "openml-cache" and "999001" in ds.source
    assert ds.y.tolist() == [0, 1, 0] and ds.label_names == {0: "b", 1: "a"}
    assert no_network == []


def test_openml_download_writes_npz_that_round_trips(tmp_path, fake_openml, temp_spec, monkeypatch):
    monkeypatch.delenv("RANDML_OFFLINE", raising=False)
    src = OpenMLSource(424242, cache_dir=tmp_path)
    assert not src.cache_path().exists()
    temp_spec("tmp-download", [src])
    ds = load_dataset("tmp-download")
    assert ds.source_kind == "openml-download"
    assert fake_openml[0][0] == 424242 and fake_openml[0][1]["download_data"] is True
    # numeric column kept, categorical ordinal-encoded in declared order red=0, green=1, blue=2
    np.testing.assert_array_equal(ds.X, [[1.5, 0], [2.0, 2], [3.0, 0], [4.0, 1], [5.0, 0]])
    assert ds.y.tolist() == [1, 0, 0, 0, 1] and ds.label_names == {0: "neg", 1: "pos"}
    path = tmp_path / "424242.npz"
    assert path.is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["424242.npz"]  # no temp file left behind
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"][()]))
        np.testing.assert_array_equal(z["X"], ds.X)
        assert z["y"].tolist() == ["pos", "neg", "neg", "neg", "pos"]
        assert meta["sha256"] == ref_hash(z["X"], z["y"])
    assert meta["name"] == "fake-set" and meta["version"] == 3 and meta["target"] == "class"
    assert meta["data_id"] == 424242 and meta["categories"] == {"colour": ["red", "green", "blue"]}
    assert meta["downloaded_at"].endswith("+00:00")
    # second load is served from the cache: no further call
    again = load_dataset("tmp-download")
    assert again.source_kind == "openml-cache" and again.data_hash == ds.data_hash
    assert len(fake_openml) == 1


def test_openml_corrupt_or_tampered_cache_raises_clear_error(tmp_path, no_network):
    X = np.arange(6.0).reshape(3, 2)
    y = np.array([0, 1, 0])
    path = tmp_path / "77.npz"
    write_reference_cache(path, 77, X, y)
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])  # truncated download / disk full
    src = OpenMLSource(77, cache_dir=tmp_path)
    with pytest.raises(CorruptCacheError) as ei:
        src.load()
    msg = str(ei.value)
    assert str(path) in msg and "delete it" in msg and "make data" in msg
    # a readable file whose arrays no longer match the stored checksum
    write_reference_cache(path, 77, X, y, sha256=ref_hash(X + 1, y))
    with pytest.raises(CorruptCacheError, match="fails its checksum") as ei:
        src.load()
    assert "make data" in str(ei.value)
    # a cache written for another prepare step is refused too
    write_reference_cache(path, 77, X, y, prepare="something_else")
    with pytest.raises(CorruptCacheError, match="prepare"):
        src.load()
    assert no_network == []


def test_openml_offline_mode_without_cache_says_make_data(tmp_path, no_network, monkeypatch, temp_spec):
    monkeypatch.setenv("RANDML_OFFLINE", "1")
    src = OpenMLSource(31337, cache_dir=tmp_path)
    assert not src.available()
    with pytest.raises(SourceUnavailableError) as ei:
        src.load()
    assert "make data" in str(ei.value) and "RANDML_OFFLINE=1" in str(ei.value)
    temp_spec("tmp-offline", [src])
    with pytest.raises(SourceUnavailableError, match="make data"):
        load_dataset("tmp-offline")
    assert no_network == []


def test_openml_download_failure_is_wrapped(tmp_path, monkeypatch):
    import openml

    monkeypatch.delenv("RANDML_OFFLINE", raising=False)

    def refused(*a, **k):
        raise ConnectionError("no route to host")

    monkeypatch.setattr(openml.datasets, "get_dataset", refused)
    with pytest.raises(DataSourceError, match="no route to host") as ei:
        OpenMLSource(5, cache_dir=tmp_path).load()
    assert "RANDML_OFFLINE" in str(ei.value)
    assert list(tmp_path.iterdir()) == []


def _no_dns():
    """What requests raises on this machine when the name does not resolve (urllib3 2.x chain)."""
    import requests
    import urllib3

    reason = urllib3.exceptions.NameResolutionError("www.openml.org", None, OSError("Name or service not known"))
    return requests.exceptions.ConnectionError(urllib3.exceptions.MaxRetryError(None, "/api/v1/xml/data/1", reason))


@pytest.fixture
def failing_openml(monkeypatch):
    """Every OpenML download raises ``failing_openml.exc()`` (default: no DNS); ``.calls``: the ids asked for."""
    import types

    import openml

    monkeypatch.delenv("RANDML_OFFLINE", raising=False)
    state = types.SimpleNamespace(calls=[], exc=_no_dns)

    def get_dataset(data_id, **kwargs):
        state.calls.append(data_id)
        raise state.exc()

    monkeypatch.setattr(openml.datasets, "get_dataset", get_dataset)
    return state


def test_unreachable_host_is_tried_once_per_process(tmp_path, failing_openml):
    from randml_core.data.sources.base import check_network

    with pytest.raises(DataSourceError, match="downloading OpenML dataset 1104 failed .ConnectionError"):
        OpenMLSource(1104, cache_dir=tmp_path).load_detailed("gcm")
    # the next OpenML set fails at once, naming why, instead of waiting through openml's retries again
    with pytest.raises(DataSourceError, match="downloading OpenML dataset 1105 not attempted: an earlier download in this "
                                              "process could not reach openml.org "
                                              "[(]downloading OpenML dataset 1104: ConnectionError[)]") as ei:
        OpenMLSource(1105, cache_dir=tmp_path).load_detailed("leukemia")
    assert failing_openml.calls == [1104] and "RANDML_OFFLINE=1" in str(ei.value)
    check_network("other", "downloading from zenodo", "zenodo.org")  # another host is still tried


def _urlerror_no_dns():
    import socket
    import urllib.error
    return urllib.error.URLError(socket.gaierror(-2, "Name or service not known"))


def _http_404():
    import urllib.error
    return urllib.error.HTTPError("https://www.openml.org/api/v1/xml/data/2", 404, "Not Found", {}, None)


@pytest.mark.parametrize("make_exc, unreachable", [
    (_no_dns, True),
    (_urlerror_no_dns, True),
    (lambda: TimeoutError("timed out"), True),
    (lambda: ConnectionRefusedError(111, "Connection refused"), True),
    (_http_404, False),
    (lambda: ValueError("bad ARFF"), False),
])
def test_only_a_host_that_cannot_be_reached_is_remembered(tmp_path, failing_openml, make_exc, unreachable):
    failing_openml.exc = make_exc
    for data_id in (1, 2):
        with pytest.raises(DataSourceError, match=f"OpenML dataset {data_id} "):
            OpenMLSource(data_id, cache_dir=tmp_path).load()
    assert failing_openml.calls == ([1] if unreachable else [1, 2])  # an answer (404) or bad data: try again


def test_cache_dir_default_and_env_override(tmp_path, monkeypatch):
    monkeypatch.delenv("RANDML_DATA_CACHE", raising=False)
    assert repo_root() == ROOT
    assert OpenMLSource(12).cache_path() == ROOT / "datasets" / "cache" / "openml" / "12.npz"
    monkeypatch.setenv("RANDML_DATA_CACHE", str(tmp_path))
    assert OpenMLSource(12).cache_path() == tmp_path / "openml" / "12.npz"


def test_fetch_downloads_online_sources_only(tmp_path, fake_openml, temp_spec, monkeypatch):
    monkeypatch.delenv("RANDML_OFFLINE", raising=False)
    temp_spec("tmp-fetch", [KeelSource("heart"), OpenMLSource(5150, cache_dir=tmp_path)])
    paths = fetch("tmp-fetch")
    assert paths == [tmp_path / "5150.npz"] and paths[0].is_file() and len(fake_openml) == 1
    assert fetch("tmp-fetch") == paths and len(fake_openml) == 1  # verified, not re-downloaded
    fetch("tmp-fetch", force=True)
    assert len(fake_openml) == 2
    assert fetch("german.numer") == []  # no online source


class _Broken(Source):
    kind = "offline-package"

    def describe(self):
        return "broken test source"

    def available(self):
        return True

    def load_detailed(self, name="<dataset>"):
        raise DataSourceError("broken on purpose")


def test_available_source_that_fails_does_not_fall_through(tmp_path, no_network, temp_spec):
    write_reference_cache(tmp_path / "8.npz", 8, np.ones((2, 1)), np.array(["a", "b"]))
    temp_spec("tmp-broken", [_Broken(), OpenMLSource(8, cache_dir=tmp_path)])
    with pytest.raises(DataSourceError, match="broken on purpose"):
        load_dataset("tmp-broken")
    assert load_dataset("tmp-broken", source="online").source_kind == "openml-cache"


def test_expected_mismatch_warns_and_is_noted(temp_spec):
    temp_spec("tmp-mismatch", [KeelSource("heart")], expected={"n": 271, "class_counts": {0: 150, 1: 120}})
    with pytest.warns(DatasetMismatchWarning, match="n=270 \\(expected 271\\)"):
        ds = load_dataset("tmp-mismatch")
    assert "MISMATCH" in ds.notes


def test_post_step_yielding_one_class_fails_validation(temp_spec):
    temp_spec("tmp-oneclass", [KeelSource("heart")], post=lambda X, y: (X[y == 0], y[y == 0]))
    with pytest.raises(DataValidationError, match="'tmp-oneclass'.*at least 2 classes"):
        load_dataset("tmp-oneclass")


# --------------------------------------------------------------------------- catalogue


def test_catalog_frame_numbers():
    frame = catalog_frame(["australian", "iris"]).set_index("name")
    assert frame.loc["australian", "n"] == 690 and frame.loc["australian", "d"] == 14
    assert frame.loc["australian", "class_counts"] == "383:307"
    assert frame.loc["australian", "imbalance_ratio"] == round(383 / 307, 2)
    assert frame.loc["iris", "class_counts"] == "50:50:50" and frame.loc["iris", "imbalance_ratio"] == 1.0
    assert frame.loc["iris", "data_hash"] == load_dataset("iris").data_hash[:16]
    assert (frame["status"] == "ok").all()
    for col in ("task", "source", "source_kind", "substitute_of", "licence", "citation"):
        assert col in frame.columns


def test_readme_catalogue_is_current():
    """datasets/README.md lists every registered dataset with its current hash (rerun scripts/catalog.py)."""
    text = (ROOT / "datasets" / "README.md").read_text(encoding="utf-8")
    assert "make data" in text and "PyPI" in text
    for name in filter(shipped_here, list_datasets()):  # the catalogue of this repository's datasets
        assert f"| {name} |" in text, f"{name}: rerun scripts/catalog.py"
        if has_offline_source(name):  # online-only sets are not loadable offline: no hash to compare
            h = load_dataset(name).data_hash[:16]
            assert h in text, f"{name}: rerun scripts/catalog.py"


def test_friedman3_is_machine_independent_and_matches_sklearn():
    """friedman3's y is math.atan of the generator's ratio: the same bits on every CPU, and within a few
    ULP of scikit-learn's make_friedman3 (whose numpy arctan differs between instruction sets)."""
    import math

    from sklearn.datasets import make_friedman3

    ds = load_dataset("friedman3")
    X, y = make_friedman3(n_samples=1000, noise=0.0, random_state=0)
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_allclose(ds.y, y, rtol=0, atol=4 * np.spacing(np.abs(y)).max())
    r = (X[:, 1] * X[:, 2] - 1 / (X[:, 1] * X[:, 3])) / X[:, 0]
    assert all(ds.y[i] == math.atan(r[i]) for i in (0, 1, 499, 999))
    assert ds.source_kind == "generated"
