"""compose_spec's in-process memo (issue 44, load() at parquet speed): a second load() does not compose the config
again, and yet every change of a config file, an override or $RANDML_* is seen."""
from __future__ import annotations

import shutil

import pytest

from conftest import REPO
from randml_core import results
from randml_core.results import compose_spec


@pytest.fixture
def project(tmp_path):
    from randml_core.data.registry import unregister
    shutil.copytree(REPO / "examples" / "byo", tmp_path / "byo")
    yield tmp_path / "byo"
    unregister("blobs")  # compose_spec registered this copy's card in this process


def test_a_memo_hit_registers_the_cards_again(project):
    from randml_core.data import get_spec
    from randml_core.data.registry import unregister
    compose_spec("mine", config_dir=project)
    unregister("blobs")
    compose_spec("mine", config_dir=project)  # from the memo: the card is registered again, as a compose does
    assert get_spec("blobs").name == "blobs"


def test_a_second_compose_is_the_memo_and_a_copy(project, monkeypatch):
    calls = []
    real = results._compose
    monkeypatch.setattr(results, "_compose", lambda *a: calls.append(a) or real(*a))
    first = compose_spec("mine", config_dir=project)
    first.variants[0].grid["changed"] = [1]  # a caller that edits its spec changes nobody else's
    first.options["x"] = 1
    second = compose_spec("mine", config_dir=project)
    assert len(calls) == 1 and "changed" not in second.variants[0].grid and "x" not in second.options
    assert second == compose_spec("mine", config_dir=project) and len(calls) == 1
    compose_spec("mine", ["protocol.n_splits=3"], config_dir=project)
    assert len(calls) == 2  # other overrides: composed


def test_an_edited_added_or_shadowing_yaml_file_is_composed_again(project, monkeypatch):
    before = compose_spec("mine", config_dir=project)
    knn = project / "model" / "knn.yaml"
    knn.write_text(knn.read_text().replace("n_neighbors: [3, 7, 15]", "n_neighbors: [3, 7, 16]"))  # same size
    edited = compose_spec("mine", config_dir=project)
    grid = lambda spec: next(v.grid for v in spec.variants if v.name == "kNN")  # noqa: E731
    assert grid(before)["n_neighbors"] == [3, 7, 15] and grid(edited)["n_neighbors"] == [3, 7, 16]
    (project / "protocol").mkdir()
    (project / "protocol" / "cv10.yaml").write_text((REPO / "conf" / "protocol" / "cv10.yaml").read_text()
                                                   .replace("seed: 0", "seed: 5"))  # shadows the shipped one
    assert edited.protocol.seed == 0 and compose_spec("mine", config_dir=project).protocol.seed == 5


def test_a_randml_environment_variable_is_part_of_the_memo_key(project, monkeypatch):
    calls = []
    real = results._compose
    monkeypatch.setattr(results, "_compose", lambda *a: calls.append(a) or real(*a))
    compose_spec("mine", config_dir=project)
    monkeypatch.setenv("RANDML_STORE", str(project / "elsewhere"))
    compose_spec("mine", config_dir=project)
    assert len(calls) == 2
