"""experiment.test_correct: per-row correctness stored for paired tests (randml_core/correctness.py)."""
import json

import numpy as np
import pytest

from randml_core.correctness import decode, encode, paired_difference
from randml_core.results import load
from randml_core.runner import run
from randml_core.worker import _staged_json


@pytest.mark.parametrize("n", [1, 7, 8, 9, 1000])
def test_encode_decode_round_trip(n):
    rng = np.random.default_rng(n)
    y, p = rng.integers(0, 3, n), rng.integers(0, 3, n)
    text = encode(y, p)
    assert text.startswith(f"{n}:")
    assert np.array_equal(decode(text), y == p)


def test_decode_refuses_a_malformed_vector():
    for bad in ("", "12", "x:AA==", "9:AA==", "3:!!", "-1:"):
        with pytest.raises(ValueError, match="correctness vector"):
            decode(bad)


def test_paired_difference_hand_worked():
    # d = [0, 1, 0, 1]: mean 0.5, sd (ddof 1) = sqrt(1/3), se = sqrt(1/3) / 2
    mean, se, n = paired_difference([1, 1, 0, 1], [1, 0, 0, 0])
    assert (mean, n) == (0.5, 4) and se == pytest.approx(np.sqrt(1 / 3) / 2, rel=1e-15)
    # McNemar: with b discordant one way and c the other, n * mean^2 / var(d, ddof=0) = (b - c)^2 / (b + c)
    rng = np.random.default_rng(0)
    a, b = rng.random(500) < 0.8, rng.random(500) < 0.7
    mean, se, n = paired_difference(a, b)
    n10, n01 = int((a & ~b).sum()), int((~a & b).sum())
    z2_ddof0 = (mean / se) ** 2 * n / (n - 1)
    assert z2_ddof0 == pytest.approx((n10 - n01) ** 2 / (n10 + n01) * 1 / (1 - ((n10 - n01) / n) ** 2 / ((n10 + n01) / n)),
                                     rel=1e-12)
    with pytest.raises(ValueError, match="equally long"):
        paired_difference([1, 0], [1])


def test_staged_json_carries_each_stage_correctness():
    y = np.array([0, 1, 1, 0, 1])
    stages = [(1, np.array([0, 0, 0, 0, 0]), None), (2, np.array([0, 1, 1, 0, 0]), None)]
    out = json.loads(_staged_json("binary", y, np.array([0, 1]), stages, correct=True))
    got = [decode(t) for t in out["test_correct"]]
    assert [g.mean() for g in got] == out["accuracy"] == [0.4, 0.8]
    assert "test_correct" not in json.loads(_staged_json("binary", y, np.array([0, 1]), stages))


def test_run_stores_outer_fold_correctness_and_recomputes_rows_without_it(compose, tmp_path):
    args = ["experiment=tiny", "experiment.datasets=[heart]", "model=svc", "protocol.inner_splits=2",
            "models.svc.grid.gamma=[1.0]", "models.svc.grid.C=[1.0]"]
    plain = compose(*args)
    first = run(plain, tmp_path, n_jobs=1, progress=False)
    assert first.computed == 3 * (1 + 2)  # 3 outer folds, 2 inner folds each
    spec = compose(*args, "+experiment.test_correct=true")
    again = run(spec, tmp_path, n_jobs=1, progress=False)
    assert again.computed == 3  # the outer rows stored without correctness, not the inner ones
    frame = load("tiny", store_dir=tmp_path, all_configs=True, include_inner=True)
    outer, inner = frame[frame.inner_fold < 0], frame[frame.inner_fold >= 0]
    assert len(outer) == 3 and inner["test_correct"].isna().all()
    for _, row in outer.iterrows():  # the stored vector's mean is the stored accuracy, row for row
        assert decode(row["test_correct"]).mean() == row["accuracy"]
    assert run(spec, tmp_path, n_jobs=1, progress=False).computed == 0


def test_test_correct_must_be_a_bool(compose):
    from randml_core.config import ConfigError
    with pytest.raises(ConfigError, match="experiment.test_correct"):
        compose("experiment=tiny", "+experiment.test_correct=3")
