"""Kernel compilation never lands in a stored time (trust issue, item 4): a family's ``warmup`` runs once per
process before the runner's timers start, and the SLM warm-up covers every numba signature a real fit uses."""
import json
import subprocess
import sys
import time

import numpy as np

from randml_core.config import Variant
from randml_core.family import Family, register_family, warm_up
from randml_core.protocol import SplitSpec
from randml_core.plan import Cell, Task
from randml_core.worker import run_task_with_meta as _run_task_with_meta

from conftest import REPO


def test_the_warm_up_runs_before_the_task_timer_and_once_per_process():
    from sklearn.dummy import DummyClassifier
    calls = []

    def slow_compile():  # stands for numba compiling on first use: 1.5 s, well above the task itself
        calls.append(time.perf_counter())
        time.sleep(1.5)
    register_family(Family("warm_probe", DummyClassifier, "1", None, warmup=slow_compile))
    try:
        X, y = np.random.default_rng(0).normal(size=(40, 3)), np.arange(40) % 2
        split = SplitSpec(0, 0, -1, 0, 0, np.arange(30), np.arange(30, 40))
        variant = Variant("probe", "warm_probe", {}, {})
        task = Task("d", split, [Cell("k1", variant, {}, "{}")])
        _, rows = _run_task_with_meta(X, y, task, {})
        assert len(calls) == 1 and rows[0]["status"] == "ok"
        assert rows[0]["task_seconds"] < 1.0  # the 1.5 s of the warm-up are not in the stored task time
        _run_task_with_meta(X, y, task, {})
        assert len(calls) == 1  # once per process
    finally:
        from randml_core.family import FAMILIES
        dict.pop(FAMILIES, "warm_probe", None)


def test_warm_up_returns_the_families_it_warmed():
    hits = []
    fam = Family("w", object, "1", None, warmup=lambda: hits.append(1))
    assert warm_up([fam, fam]) == ["w"] and warm_up([fam]) == [] and hits == [1]


_PROBE = """
import json
import numpy as np
from numba.core.registry import CPUDispatcher
import randml_core.models.slm_split_kernels as kernels
from randml_core.family import FAMILIES, warm_up
from sklearn.datasets import make_classification, make_regression
from sklearn.preprocessing import minmax_scale

names = ["slm_tree", "slm_forest", "slm_boost", "slr_tree", "slr_forest", "slr_boost"]
families = [FAMILIES[n] for n in names]
missing = [f.name for f in families if f.warmup is None]
warm_up(families)
dispatchers = {n: d for n, d in vars(kernels).items() if isinstance(d, CPUDispatcher)}
before = {n: [str(s) for s in d.signatures] for n, d in dispatchers.items()}
# real fits after the warm-up: a binary and a 5-class set, a regression set, settings of the papers' grids
Xc, yb = make_classification(300, 12, n_informative=6, random_state=0)
_, y5 = make_classification(300, 12, n_informative=6, n_classes=5, random_state=1)
Xr, yr = make_regression(300, 12, random_state=0)
Xc, Xr = minmax_scale(Xc), minmax_scale(Xr)
for f in families:
    for y in ([yb, y5] if f.name.startswith("slm") else [yr]):
        est = f.estimator()
        est.set_params(**{k: v for k, v in {"n_estimators": 3, "random_state": 0}.items() if k in est.get_params()})
        est.fit(Xc if f.name.startswith("slm") else Xr, y).predict(Xc if f.name.startswith("slm") else Xr)
        if hasattr(est, "predict_proba"):
            est.predict_proba(Xc)
after = {n: [str(s) for s in d.signatures] for n, d in dispatchers.items()}
print(json.dumps({"missing": missing, "n": len(dispatchers),
                  "new": {n: sorted(set(after[n]) - set(before[n])) for n in dispatchers if after[n] != before[n]}}))
"""


def test_after_the_slm_warm_up_a_real_fit_compiles_nothing():
    out = subprocess.run([sys.executable, "-c", _PROBE], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["missing"] == [] and result["n"] >= 8
    assert result["new"] == {}, f"compiled inside a timed fit after the warm-up: {result['new']}"
