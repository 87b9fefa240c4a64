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
    assert list(memo_dir.glob("sklearn-bundled-*.npz"))
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
