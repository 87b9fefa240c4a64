"""scripts/predict_scale.py: costs assumed for unstored datasets are used, counted and named (hand-worked)."""
import math

import pytest


def test_assumed_costs_fill_only_the_named_dataset(tmp_path, script):
    mod = script("predict_scale")
    empty = str(tmp_path / "store")
    bare = mod.predict("tiny", empty)
    assert bare["timed_tasks"] == 0 and bare["untimed"] == ["heart", "wine"] and bare["assumed"] == {}
    r = mod.predict("tiny", empty, assume={"heart": 10.0})
    assert r["untimed"] == ["wine"] and r["assumed"] == {"heart": 10.0}
    n_heart = r["timed_tasks"]
    assert 0 < n_heart < r["tasks"]
    # hand-worked: n equal tasks of 10 s -> work 10 n; on 2 workers ceil(n / 2) rounds of 10 s
    assert r["work"] == 10.0 * n_heart and r["longest"] == 10.0
    assert r["walls"][2] == 10.0 * math.ceil(n_heart / 2) and r["walls"][256] == 10.0


def test_bad_assume_is_refused_before_any_work(capsys, script):
    mod = script("predict_scale")
    with pytest.raises(SystemExit) as e:
        mod.main(["--only", "tiny", "--assume", "heart=10", "--out", "/nonexistent/never-written.md"])
    assert e.value.code == 2
    assert "use NAME:DATASET=SECONDS" in capsys.readouterr().err
