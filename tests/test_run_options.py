"""The run's settings as one typed, checked value (:class:`randml_core.execution.RunOptions`, issue 43 item 4): built
once, a bad value refused with its key named before any work, and the same run whether given as the value or as
keyword arguments; the engine imports the run path from the modules that hold it, not from the runner's facade."""
from __future__ import annotations

import ast
import dataclasses

import pandas as pd
import pytest

from conftest import REPO
from randml_core.errors import ConfigError
from randml_core.execution import RunOptions, run
from randml_core.plan import PlanError
from randml_core.store import Store


@pytest.mark.parametrize("settings, match", [
    (dict(n_jobs=0), r"n_jobs=0 is invalid"),
    (dict(n_jobs=True), r"n_jobs=True is invalid"),
    (dict(n_jobs="2"), r"n_jobs='2' is invalid"),
    (dict(write_every=-1), r"write_every=-1 is not a number of seconds >= 0; fix: write_every=1.0"),
    (dict(write_every=float("inf")), r"write_every=inf"),
    (dict(write_every="soon"), r"write_every='soon'"),
    (dict(backend="mpi"), r"backend"),
    (dict(backend_address="tcp://x:1"), r"backend_address='tcp://x:1' is set but backend=loky"),
])
def test_a_bad_setting_is_refused_when_the_options_are_built(settings, match):
    with pytest.raises(ConfigError, match=match):
        RunOptions(**settings)


def test_a_bad_shard_is_a_plan_error_naming_the_fix():
    with pytest.raises(PlanError, match=r"shard='3/2' is invalid: use shard=i/n"):
        RunOptions(shard="3/2")


def test_options_are_frozen_and_read_from_a_config_with_its_defaults():
    o = RunOptions.from_config({"n_jobs": "2", "progress": 0, "shard": None, "write_every": 0, "store_dir": "x"})
    assert (o.n_jobs, o.progress, o.shard, o.write_every, o.backend) == (2, False, None, 0, "loky")
    assert o.lease_stale == RunOptions().lease_stale  # timing of the leases is not a config key
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.n_jobs = 3


def test_a_refused_setting_does_no_work(compose, tmp_path):
    spec = compose("experiment=tiny", "dataset=heart", "model=knn")
    with pytest.raises(ConfigError, match="write_every"):
        run(spec, str(tmp_path / "store"), write_every=-2)
    assert not (tmp_path / "store").exists()


def test_the_same_run_from_options_or_keywords(compose, tmp_path):
    spec = compose("experiment=tiny", "dataset=heart", "model=knn", "models.knn.grid.n_neighbors=[1,5]")
    a = run(spec, str(tmp_path / "a"), RunOptions(progress=False, write_every=0))
    b = run(spec, str(tmp_path / "b"), progress=False, write_every=0)
    c = run(spec, str(tmp_path / "c"), RunOptions(progress=True), progress=False)  # a keyword overrides the value
    assert a.computed == b.computed == c.computed == 6
    frames = [Store(tmp_path / d, spec.store).read().sort_values("key", ignore_index=True) for d in "abc"]
    keep = [c for c in frames[0].columns if c not in ("fit_seconds", "predict_seconds", "task_seconds", "timestamp")]
    for f in frames[1:]:
        pd.testing.assert_frame_equal(f[keep], frames[0][keep])


def test_the_engine_imports_the_run_path_from_its_modules_not_the_facade():
    """``randml_core.runner`` only gathers names for older imports; no engine module imports it."""
    importers = []
    for path in sorted((REPO / "randml_core").rglob("*.py")):
        if path.name == "runner.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "runner":
                importers.append(str(path.relative_to(REPO)))
    assert importers == []


def test_a_notebook_runs_an_experiment_through_the_public_api(tmp_path):
    """``randml_core.compose_spec`` + ``randml_core.run`` do what ``randml run experiment=tiny`` does; the stored rows
    are those ``randml_core.load`` reads back, every cell of the plan."""
    import randml_core as r
    spec = r.compose_spec("tiny", ["dataset=heart", "model=knn"])
    summary = r.run(spec, str(tmp_path / "store"), r.RunOptions(progress=False))
    frame = r.load("tiny", overrides=["dataset=heart", "model=knn"], store_dir=tmp_path / "store")
    assert summary.computed == len(frame) == 9 and frame.attrs["complete"]
    assert {"compose_spec", "run", "RunOptions"} <= set(r.__all__)
