"""The plug-in test kit (randml_core.testing) run over every installed benchmark, with no benchmark named here,
and the kit's own behaviour: a shared-work family that differs from its plain path fails, a declared expected
failure is strict, `randml test NAME` prints one line per check."""
from __future__ import annotations

import dataclasses
import io

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

from randml_core import plugins, testing
from randml_core.family import FAMILIES, CellResult, Family, evaluate_plain

INSTALLED = [name for name, _ in plugins.packages()]
ALL = [(b, c) for b in INSTALLED for c in testing.checks(b)]


@pytest.mark.parametrize("bench, check", [
    pytest.param(b, c, id=f"{b}/{c.id}",
                 marks=[pytest.mark.xfail(strict=True, reason=c.expected_failure)] if c.expected_failure else [])
    for b, c in ALL])
def test_every_installed_benchmark_passes_the_kit(bench, check):
    check.run()


def test_every_benchmark_has_checks_of_each_kind_it_ships():
    for b in INSTALLED:
        ids = [c.id for c in testing.checks(b)]
        assert ids[0] == "describes-itself"
        assert len(ids) == len(set(ids)), b
        assert [i for i in ids if i.startswith("experiment:")] == [f"experiment:{e}" for e in testing.experiments(b)]


def _knn_family(name: str, shared) -> Family:
    return Family(name, KNeighborsClassifier, "1", shared, check=("iris", "minmax", [{"n_neighbors": 1},
                                                                                    {"n_neighbors": 5}]))


@pytest.fixture
def temp_family():
    added = []

    def add(fam):
        dict.__setitem__(FAMILIES, fam.name, fam)
        added.append(fam.name)
        return fam
    yield add
    for n in added:
        dict.pop(FAMILIES, n, None)


def test_a_family_whose_shared_work_differs_from_the_plain_path_fails(temp_family):
    def honest(split, settings):
        return evaluate_plain(FAMILIES["kit_honest"], split, settings)

    def wrong(split, settings):  # "shares" work by reusing the first setting's predictions
        first = evaluate_plain(FAMILIES["kit_wrong"], split, settings[:1])[0]
        return [CellResult(s, first.y_pred) for s in settings]
    temp_family(_knn_family("kit_honest", honest))
    temp_family(_knn_family("kit_wrong", wrong))
    testing.check_family("kit_honest")
    with pytest.raises(AssertionError, match="kit_wrong.*shared work differs"):
        testing.check_family("kit_wrong")
    temp_family(Family("kit_undeclared", KNeighborsClassifier, "1", honest))
    with pytest.raises(AssertionError, match="no check"):
        testing.check_family("kit_undeclared")


def test_expected_failures_are_strict_and_must_name_a_check(monkeypatch, temp_family):
    temp_family(_knn_family("kit_wrong2", lambda split, settings: [CellResult(s, np.zeros(len(split.X_test)))
                                                                   for s in settings]))
    bench = plugins.Benchmark(key="kitb", short="kitb", title="Kit B", package="kitb",
                              expected_failures={"family:kit_wrong2": "known: predicts zeros"})
    monkeypatch.setattr(testing, "_benchmark", lambda name: bench)
    monkeypatch.setattr(testing, "families", lambda name: ["kit_wrong2"])
    monkeypatch.setattr(testing, "datasets", lambda name: ["iris"])
    monkeypatch.setattr(testing, "experiments", lambda name: [])
    out = io.StringIO()
    assert testing.run_checks("kitb", out) == 0
    text = out.getvalue()
    assert "ok   family:kit_wrong2  (expected failure: known: predicts zeros)" in text
    assert "ok   dataset:iris" in text and "3 of 3 checks as expected" in text
    # the same declaration on a check that passes is reported: strict
    monkeypatch.setattr(testing, "families", lambda name: [])
    monkeypatch.setattr(testing, "_benchmark", lambda name: dataclasses.replace(
        bench, expected_failures={"dataset:iris": "thought broken"}))
    out = io.StringIO()
    assert testing.run_checks("kitb", out) == 1
    assert "FAIL dataset:iris  (passed, but declared an expected failure (thought broken))" in out.getvalue()
    monkeypatch.setattr(testing, "_benchmark", lambda name: dataclasses.replace(
        bench, expected_failures={"dataset:nope": "typo"}))
    with pytest.raises(LookupError, match="dataset:nope"):
        testing.checks("kitb")


def test_randml_test_cli(cli_env):
    import subprocess
    import sys
    name = INSTALLED[0]
    r = subprocess.run([sys.executable, "-m", "randml_core.cli", "test", name], capture_output=True, text=True,
                       env=cli_env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0] == "ok   describes-itself" and lines[-1].startswith(f"randml test {name}: ")
    assert len(lines) == len(testing.checks(name)) + 1
    r = subprocess.run([sys.executable, "-m", "randml_core.cli", "test", "no-such-benchmark"], capture_output=True,
                       text=True, env=cli_env, timeout=120)
    assert r.returncode == 2 and "no installed benchmark named 'no-such-benchmark'" in r.stderr


def test_the_contributing_report_example_runs_as_written(tmp_path):
    """CONTRIBUTING's worked report module, executed on a hand-built frame through a real ArtefactSet: the mean
    of each (dataset, model) at the inner-fold selection."""
    import re
    import types
    from pathlib import Path

    import pandas as pd

    from randml_core.artefacts import ArtefactSet
    text = (Path(__file__).resolve().parents[1] / "CONTRIBUTING.md").read_text()
    code = re.search(r"A worked example, `toybench/report.py`:\n\n```python\n(.*?)```", text, re.S).group(1)
    module = types.ModuleType("toybench_report")
    exec(code, module.__dict__)  # noqa: S102 - the documented example, as an author writes it
    assert module.CONTEXT_ONLY is True
    rows = []
    for fold in range(2):
        for params, inner_acc, outer_acc in (('{"C": 1}', 0.9, 0.80 + 0.1 * fold), ('{"C": 2}', 0.7, 0.5)):
            rows += [{"dataset": "d", "model": "m", "params_json": params, "repeat": 0, "fold": fold, "inner_fold": i,
                      "status": "ok", "converged": True, "accuracy": inner_acc} for i in (0, 1)]
            rows.append({"dataset": "d", "model": "m", "params_json": params, "repeat": 0, "fold": fold,
                         "inner_fold": -1, "status": "ok", "converged": True, "accuracy": outer_acc})
    with ArtefactSet(tmp_path, "toy", code_version="test") as out:
        ctx = types.SimpleNamespace(frame=pd.DataFrame(rows), results_dir=tmp_path, artefacts=out,
                                    spec=types.SimpleNamespace(name="toy"))
        paths = module.build(ctx)
    table = pd.read_csv(paths[0])
    assert table.to_dict("records") == [{"dataset": "d", "model": "m", "mean": pytest.approx(0.85),
                                         "std": pytest.approx(0.0707107), "size": 2}]  # C=1 picked on both folds
    assert (tmp_path / "tables" / "toy.md").read_text().split()[:3] == ["dataset", "model", "mean"]
