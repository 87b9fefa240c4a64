"""The engine's runner on EEM's shared-work families (moved from tests/test_runner.py: the engine's own tests run
its tiny experiment, which has no shared work): a stored cell equals a plain fit, a task frees the shared cache
entries no later family reads, and the fast plan keys equal the reference key for registered families."""
import pytest

from randml_core.results import load
from randml_core.runner import make_plan, run


def test_grid_sharing_equals_plain_estimator_fits(compose, tmp_path):
    """Each stored cell equals Estimator(**params, random_state=model_seed) fitted on its fold."""
    from randml_core.data import load_dataset
    from randml_core.family import FAMILIES
    from randml_core.preprocess import _minmax
    spec = compose("experiment=smoke", "dataset=heart")
    run(spec, tmp_path, n_jobs=1, progress=False)
    frame = load("smoke", store_dir=tmp_path, fold=0)
    plan = make_plan(spec)
    ds = load_dataset("heart")
    task = next(t for t in plan.tasks if t.split.fold == 0)
    Xtr, Xte = _minmax(ds.X[task.split.train], ds.X[task.split.test])
    from randml_core.metrics import gmean
    for cell in task.cells:
        est = FAMILIES[cell.variant.family].estimator(**cell.params, random_state=task.split.model_seed)
        pred = est.fit(Xtr, ds.y[task.split.train]).predict(Xte)
        stored = frame.loc[frame["key"] == cell.key, "gmean"].item()
        assert gmean(ds.y[task.split.test], pred) == pytest.approx(stored, abs=1e-12), cell.variant.name




def test_task_frees_cache_entries_no_later_family_reads(compose, monkeypatch):
    """WELM's hidden layers are reused by EEM, then freed before EEKM builds its kernels."""
    import dataclasses

    from randml_core.data import load_dataset
    from randml_core import family as grid
    from randml_core.runner import run_task
    spec = compose("experiment=smoke", "dataset=heart")
    plan = make_plan(spec)
    task = next(t for t in plan.tasks if t.split.fold == 0)
    families = [f for f in dict.fromkeys(c.variant.family for c in task.cells)]
    assert families[:3] == ["welm", "eem", "eekm"]
    seen = {}

    def spy(name):
        fam = grid.FAMILIES[name]

        def evaluate(split, settings):
            seen[name] = sorted({k[0] for k in split.cache})
            return fam.evaluate(split, settings)
        return dataclasses.replace(fam, evaluate=evaluate)
    for name in families:
        monkeypatch.setitem(grid.FAMILIES, name, spy(name))
    ds = load_dataset("heart")
    run_task(ds.X, ds.y, task, spec.options)
    assert seen["welm"] == [] and seen["eem"] == ["hidden"] and seen["eekm"] == []
    # a later family that does not declare what it reads keeps everything
    split = grid.Split(ds.X, ds.y, ds.X, 0)
    split.cache[("hidden", "sig", 5)] = (None, 0.0)
    undeclared = dataclasses.replace(grid.FAMILIES["eem"], cache_kinds=None)
    assert grid.release_unneeded(split, [undeclared]) == [] and len(split.cache) == 1
    assert grid.release_unneeded(split, [grid.FAMILIES["svm"]]) == [("hidden", "sig", 5)] and not split.cache


def test_fast_plan_keys_equal_the_reference_cell_key_for_registered_families(compose):
    from randml_core.runner import cell_key
    spec = compose("experiment=eem_table4", "dataset=heart", "protocol.inner_splits=2")
    plan = make_plan(spec)
    ds = plan.datasets["heart"]
    checked = 0
    for task in plan.tasks[::7]:
        for cell in task.cells[::13]:
            assert cell.key == cell_key(ds.data_hash, spec, task.split, cell.variant, cell.params_json)
            checked += 1
    assert checked > 100
