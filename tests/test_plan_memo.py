"""make_plan's per-process memo of the readers' plans (issue 44, load() at parquet speed): a second plan of the
same config and data takes each dataset's layout and keys from the memo, and is the plan that planning again
gives; a changed config or changed data plans again."""
from __future__ import annotations

import shutil

import pandas as pd
import pytest

from conftest import REPO
from randml_core import planmemo, planning
from randml_core.results import compose_spec
from randml_core.runner import make_plan


@pytest.fixture
def project(tmp_path, monkeypatch):
    from randml_core.data.registry import unregister
    shutil.copytree(REPO / "examples" / "byo", tmp_path / "byo")
    monkeypatch.setattr(planmemo, "MEMO", {})
    yield tmp_path / "byo"
    unregister("blobs")


def rows(plan):
    """Everything a reader takes from a plan, cell by cell, in plan order."""
    return [(t.dataset, t.split.repeat, t.split.fold, t.split.inner, t.split.split_seed, t.split.model_seed,
             c.key, c.variant.name, c.params_json, c.params) for t, c in plan.cells()]


@pytest.fixture
def hits(monkeypatch):
    calls = []
    real = planmemo.tasks_from_memo
    monkeypatch.setattr(planmemo, "tasks_from_memo", lambda name, *a: calls.append(name) or real(name, *a))
    return calls


def test_a_memo_hit_is_the_plan_planning_again_gives(project, hits):
    spec = compose_spec("mine", config_dir=project)
    first = make_plan(spec, splits=False, memo=True)
    assert hits == [] and len(planmemo.MEMO) == 3  # one entry per dataset
    second = make_plan(compose_spec("mine", config_dir=project), splits=False, memo=True)
    fresh = make_plan(spec, splits=False)
    # what a reader takes without a cell object: the keys and the planned cells, as the built plan's
    from randml_core.results import planned_cells
    assert hits == [] and second.key_array().to_pylist() == [c.key for _, c in fresh.cells()]
    pd.testing.assert_frame_equal(planned_cells(second), planned_cells(fresh))
    assert rows(second) == rows(fresh) == rows(first) and len(rows(fresh)) == 330
    assert hits == ["blobs", "heart", "sonar"]  # the tasks are built on first use
    spec2 = compose_spec("mine", config_dir=project)
    assert all(c.variant is spec2.variants[[v.name for v in spec2.variants].index(c.variant.name)]
               for _, c in make_plan(spec2, splits=False, memo=True).cells())  # this spec's variants, not the memo's


@pytest.mark.filterwarnings("ignore::randml_core.data.DatasetMismatchWarning")
def test_changed_data_plans_again(project, hits):
    spec = compose_spec("mine", config_dir=project)
    before = make_plan(spec, splits=False, memo=True)
    csv = project / "dataset" / "blobs.csv"
    lines = csv.read_text().splitlines()
    row, label = lines[-1].rsplit(",", 1)
    lines[-1] = row + "," + {"rare": "common", "common": "rare"}[label]  # one label flipped: other data
    csv.write_text("\n".join(lines) + "\n")
    after = make_plan(spec, splits=False, memo=True)
    assert rows(after) == rows(make_plan(spec, splits=False))
    assert hits == ["heart", "sonar"]  # blobs planned again
    keys = lambda plan, d: {c.key for t, c in plan.cells() if t.dataset == d}  # noqa: E731
    assert keys(after, "heart") == keys(before, "heart") and not keys(after, "blobs") & keys(before, "blobs")


def test_a_changed_config_plans_again(project, hits):
    make_plan(compose_spec("mine", config_dir=project), splits=False, memo=True)
    other = compose_spec("mine", ["protocol.seed=3"], config_dir=project)
    assert rows(make_plan(other, splits=False, memo=True)) == rows(make_plan(other, splits=False)) and hits == []
    grid = compose_spec("mine", ["models.eem.grid.n_hidden=[20,50]"], config_dir=project)
    assert rows(make_plan(grid, splits=False, memo=True)) == rows(make_plan(grid, splits=False)) and hits == []


def test_a_caller_that_changes_its_plan_changes_no_later_one(project):
    spec = compose_spec("mine", config_dir=project)
    first = make_plan(spec, splits=False, memo=True)
    expected = rows(make_plan(spec, splits=False))
    first.draw_splits(["blobs"])
    first.tasks[0].cells.clear()
    assert rows(make_plan(spec, splits=False, memo=True)) == expected


def test_runs_and_searches_do_not_use_the_memo(project):
    spec = compose_spec("mine", config_dir=project)
    make_plan(spec, splits=False)
    make_plan(spec, memo=True)  # drawn folds: planned as always
    assert planmemo.MEMO == {}
    search = compose_spec("mine", ["models.knn.grid=null", "+models.knn.search={kind: random, n: 2, space: {n_neighbors: {choice: [3, 7, 15]}}}"], config_dir=project)
    make_plan(search, splits=False, memo=True)  # a search's cells follow the store: never remembered
    assert planmemo.MEMO == {}


def test_the_memo_keeps_at_most_its_bound(project, monkeypatch):
    spec = compose_spec("mine", config_dir=project)
    n = len(rows(make_plan(spec, splits=False)))
    monkeypatch.setattr(planmemo, "MEMO_KEYS", n // 2)  # room for one or two datasets, not three
    make_plan(spec, splits=False, memo=True)
    assert 0 < sum(len(e) for e in planmemo.MEMO.values()) <= n // 2





def test_the_memo_path_refuses_a_dataset_as_planning_does(compose, temp_dataset, monkeypatch):
    """A dataset whose preprocessing is refused raises the same PlanError with and without the memo, the layout's
    error first when both apply (the memo computes the preprocessing early, for its key); nothing is remembered."""
    import numpy as np

    from randml_core.runner import PlanError

    monkeypatch.setattr(planmemo, "MEMO", {})

    def refused(spec, ds):
        raise PlanError(f"dataset {ds.name!r}: preprocessing refused")
    monkeypatch.setattr(planning, "_dataset_prep", refused)
    X = np.random.default_rng(1).random((40, 4))
    temp_dataset("prep-refused", X, np.repeat([0, 1], 20))
    y = np.zeros(40, int)
    y[:2] = 1  # 2 minority samples: a 3-fold layout refuses it, before the preprocessing's refusal
    temp_dataset("layout-refused", X, y)
    for name, match in (("prep-refused", r"preprocessing refused"), ("layout-refused", r"smallest class has 2")):
        spec = compose("experiment=tiny", f"experiment.datasets=[{name}]")
        errors = []
        for memo in (False, True):
            with pytest.raises(PlanError, match=match) as info:
                make_plan(spec, splits=False, memo=memo)
            errors.append(str(info.value))
        assert errors[0] == errors[1]
    assert planmemo.MEMO == {}


def test_the_planned_shape_is_remembered_per_memo_plan_and_handed_out_as_a_copy(project):
    """load()'s planned_folds / planned_cells come from planned_shape once per plan-memo parts: equal to grouping the
    planned cells again, and a caller that changes what it got changes no later call's."""
    from randml_core.results import _SHAPES, _planned_shape_of, planned_cells, planned_shape
    spec = compose_spec("mine", config_dir=project)
    plan = make_plan(spec, splits=False, memo=True)
    expected = planned_shape(planned_cells(plan))
    first = _planned_shape_of(plan, planned_cells(plan), {})
    assert first == expected and tuple(plan.memo_parts) in _SHAPES
    first[0].clear()
    next(iter(next(iter(first[1].values())).values()))[0] = -1
    again = make_plan(spec, splits=False, memo=True)
    assert _planned_shape_of(again, None, {}) == expected  # from the memo: the planned cells are not needed
    filtered = _planned_shape_of(again, planned_cells(again), {"dataset": "blobs"})
    assert filtered == planned_shape(planned_cells(again).query("dataset == 'blobs'")) and list(filtered[0]) == ["blobs"]


def test_a_frame_whose_every_row_is_planned_is_not_filtered_and_one_with_others_is():
    """store._key_rows: None (nothing to drop, no copy) when every row's key is planned, else the rows' mask; the
    table read_table returns holds exactly the planned keys either way."""
    import pyarrow as pa

    from randml_core.store import _MASKS, _key_rows
    table = pa.table({"key": ["a", "b", "c"], "v": [1, 2, 3]})
    every, some = pa.array(["c", "b", "a", "z"]), pa.array(["b", "z"])
    assert _key_rows(table, "digest-1", every, remember=True) is None
    assert _MASKS[("digest-1", id(every))][1] is None and _key_rows(table, "digest-1", every, True) is None
    mask = _key_rows(table, "digest-1", some, remember=False)
    assert table.filter(mask).column("key").to_pylist() == ["b"]
    assert _key_rows(table.slice(0, 0), "digest-2", some, remember=False) is None  # no row: nothing to drop
