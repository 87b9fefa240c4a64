"""Committed result frames (randml_core/frames.py): exported only from a complete store, read as a read-only
layer under the store (its rows lose to the store's), never copied by a compaction, refused when tampered; and
`randml verify`, which recomputes drawn cells and names each one that differs."""
import hashlib
import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from sklearn.svm import SVC

from randml_core import frames
from randml_core.family import Family, evaluate_plain
from randml_core.store import Store, StoreError


def _tiny_spec(models: dict | None = None):
    """The engine's tiny experiment on heart (27 cells: 3 folds x (3 kNN + 4 SVC + 2 LogReg-liblinear settings)),
    with ``models`` added to its model nodes."""
    from hydra import compose as hcompose, initialize_config_dir
    from omegaconf import OmegaConf
    from randml_core.config import build_spec
    from conftest import REPO
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        cfg = hcompose(config_name="config", overrides=["experiment=tiny", "dataset=heart"])
    node = OmegaConf.to_container(cfg, resolve=True)
    node["models"].update(models or {})
    return build_spec(node)


def _stored(spec, tmp_path_factory):
    from randml_core.runner import run
    root = tmp_path_factory.mktemp("frames") / "results" / "store"
    run(spec, str(root), n_jobs=1, progress=False)
    return spec, root


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory):
    """A complete store of the tiny experiment on heart (27 cells) under <tmp>/results/store."""
    return _stored(_tiny_spec(), tmp_path_factory)


def _svc_with_extras(split, settings):
    return evaluate_plain(SVC_EXTRAS, split, settings, extras=lambda est: {
        "n_support": int(est.n_support_.sum()), "n_iter": int(np.max(est.n_iter_))})


#: scikit-learn's SVC storing two diagnostics, x_n_support and x_n_iter (deterministic: libsvm's solver)
SVC_EXTRAS = Family("frames_svc_extras", SVC, "1", _svc_with_extras)


@pytest.fixture(scope="module")
def extras_store(tmp_path_factory):
    """A complete store of tiny on heart plus the model SVC-extras (family SVC_EXTRAS, 2 x 2 settings): 27 cells
    without diagnostics and 3 folds x 4 = 12 with x_n_support and x_n_iter, 39 in all."""
    from randml_core.family import register_family
    register_family(SVC_EXTRAS)
    return _stored(_tiny_spec({"svc_extras": {"family": SVC_EXTRAS.name, "variants": {"SVC-extras": {}},
                                              "grid": {"gamma": [0.1, 1.0], "C": [1.0, 100.0]}}}), tmp_path_factory)


def _copy_store(src, dst):
    import shutil
    shutil.copytree(src, dst)
    return dst


def test_export_refuses_an_incomplete_store_and_writes_nothing(tiny_store, tmp_path):
    spec, root = tiny_store
    store = _copy_store(root, tmp_path / "results" / "store")
    rows = Store(store, "tiny").read()
    for p in (store / "tiny").glob("part-*.parquet"):
        p.unlink()
    Store(store, "tiny").write(rows.iloc[:-5])  # 5 cells lost
    with pytest.raises(StoreError, match=r"tiny: 22 of 27 planned cells are stored \(5 missing, 0 failed\).*"
                                         r"randml run experiment=tiny"):
        frames.export(spec, store)
    assert not (tmp_path / "results" / "frames").exists()


def test_a_frame_reads_as_the_store_it_was_exported_from(tiny_store, tmp_path, monkeypatch):
    monkeypatch.delenv(frames.FRAMES_ENV, raising=False)
    spec, root = tiny_store
    store = _copy_store(root, tmp_path / "results" / "store")
    before = Store(store, "tiny").read()
    path, stats = frames.export(spec, store)
    assert path == tmp_path / "results" / "frames" / "tiny.parquet" and stats["rows"] == 27
    meta = json.loads(pq.read_schema(path).metadata[b"randml.frame.constants"])
    assert "code_version" in meta and "packages" in meta  # provenance once, not in every row
    assert "code_version" not in pq.read_schema(path).names
    for p in (store / "tiny").glob("part-*.parquet"):
        p.unlink()
    fresh = Store(store, "tiny")
    assert fresh.parts() == [] and fresh.has_rows()
    after = fresh.read()
    pd.testing.assert_frame_equal(before, after)
    cols = fresh.read_columns(["key", "status", "gmean"])
    assert sorted(cols["key"]) == sorted(before["key"]) and len(cols["gmean"]) == 27
    prov = frames.provenance(path)
    assert prov["experiments"]["tiny"]["cells"] == 27 and "heart" in prov["experiments"]["tiny"]["data"]


def _framed_with_own_rows(tiny_store, tmp_path, n: int):
    """``(store root, every row, the n rows the store holds)``: a copy of the tiny store exported to its frame, its
    parts removed, then ``n`` of its rows written back with gmean 0.123 (the store's rows over the frame's)."""
    spec, root = tiny_store
    store = _copy_store(root, tmp_path / "results" / "store")
    frames.export(spec, store)
    original = Store(store, "tiny").read(with_frame=False)
    for p in (store / "tiny").glob("part-*.parquet"):
        p.unlink()
    mine = original.iloc[:n].copy()
    mine["gmean"] = 0.123
    Store(store, "tiny").write(mine)
    return store, original, mine


def test_the_stores_rows_win_and_compaction_never_copies_the_frame(tiny_store, tmp_path):
    store, original, mine = _framed_with_own_rows(tiny_store, tmp_path, 3)
    s = Store(store, "tiny")
    s.write(original.iloc[3:4])
    got = s.read().set_index("key")
    assert (got.loc[mine["key"], "gmean"] == 0.123).all() and len(got) == 27  # the store's rows win
    s.compact()
    assert len(s.read(with_frame=False)) == 4  # the merged part holds the store's rows only
    assert len(s.read()) == 27


def test_a_read_of_some_keys_is_the_whole_read_filtered(tiny_store, tmp_path):
    """Store.read(keys=...) (load()'s path: the frame's rows picked in Arrow, a mask remembered per frame content and
    key array) equals read() filtered on the keys, with parts that win over the frame, for two key sets in turn."""
    import pyarrow as pa
    from randml_core.store import key_mask
    store, _, mine = _framed_with_own_rows(tiny_store, tmp_path, 5)
    whole = Store(store, "tiny").read()
    keys = sorted(whole["key"])
    for wanted in (keys[::2], keys[1::3], keys[::2]):
        for given in (set(wanted), pa.array(wanted, pa.string())):
            got = Store(store, "tiny").read(keys=given)
            expected = whole[key_mask(whole["key"], set(wanted))].reset_index(drop=True)
            pd.testing.assert_frame_equal(got, expected)
    assert (Store(store, "tiny").read(keys=set(mine["key"]))["gmean"] == 0.123).all()


def test_a_tampered_frame_is_refused_naming_the_file(tiny_store, tmp_path):

    spec, root = tiny_store
    store = _copy_store(root, tmp_path / "results" / "store")
    path, _ = frames.export(spec, store)
    table = pq.read_table(path)
    col = table.column("gmean").to_pylist()
    col[0] = 0.5 if col[0] != 0.5 else 0.25
    table = table.set_column(table.column_names.index("gmean"), "gmean", pa_array(col))
    pq.write_table(table, path, compression="zstd")  # metadata (checksum) kept, one value changed
    frames._VERIFIED.clear()
    for p in (store / "tiny").glob("part-*.parquet"):
        p.unlink()
    with pytest.raises(frames.FrameError, match=r"tiny.parquet: its rows do not match the checksum"):
        Store(store, "tiny").read()


def pa_array(values):
    import pyarrow as pa
    return pa.array(values, type=pa.float64())


def test_verify_reproduces_drawn_cells_and_names_a_cell_that_differs(tiny_store, tmp_path, capsys):
    from randml_core.verify import verify
    spec, root = tiny_store
    store = _copy_store(root, tmp_path / "results" / "store")
    ok, drawn, bad = verify(spec, store, 12, 7)
    assert (ok, drawn, bad) == (12, 12, [])
    # every gmean of the frame changed (a frame written with the store's own checksum rule: only verify can tell)
    rows = Store(store, "tiny").read()
    rows["gmean"] = rows["gmean"] + 1e-9
    frames.write_frame(tmp_path / "results" / "frames" / "tiny.parquet", rows, {})
    for p in (store / "tiny").glob("part-*.parquet"):
        p.unlink()
    capsys.readouterr()
    ok, drawn, bad = verify(spec, store, 5, 7)
    out = capsys.readouterr().out
    assert ok == 0 and drawn == 5 and {b[1] for b in bad} == {"gmean"}
    assert "MISMATCH dataset=heart model=" in out and "fold=" in out and "gmean stored" in out


def test_frame_omit_leaves_the_named_column_out_and_verify_still_reproduces(extras_store, tmp_path, capsys):
    """experiment.frame_omit: the named diagnostics are null in the frame's rows (folded: no column in the file),
    every other column as stored, the omission in the provenance; verify compares the column only where a row holds
    it (without the option the same frame mismatches on it: the skip is what lets it pass)."""
    import dataclasses
    from randml_core.verify import verify
    spec, root = extras_store
    store = _copy_store(root, tmp_path / "results" / "store")
    before = Store(store, "tiny").read()
    assert before["x_n_support"].notna().sum() == 12  # the SVC-extras cells store it, the 27 others do not
    lean = dataclasses.replace(spec, options={**spec.options, "frame_omit": ["x_n_support"]})
    path, stats = frames.export(lean, store)
    assert "x_n_support" not in pq.read_schema(path).names and stats["rows"] == 39
    assert frames.provenance(path)["experiments"]["tiny"]["omitted"] == ["x_n_support"]
    for p in (store / "tiny").glob("part-*.parquet"):
        p.unlink()
    after = Store(store, "tiny").read()
    assert after["x_n_support"].isna().all()
    pd.testing.assert_frame_equal(before.drop(columns="x_n_support"), after.drop(columns="x_n_support"))
    assert verify(lean, store, 39, 7) == (39, 39, [])
    capsys.readouterr()
    ok, drawn, bad = verify(spec, store, 39, 7)  # every cell: the 12 SVC-extras cells differ on x_n_support alone
    assert (ok, drawn) == (27, 39) and len(bad) == 12 and {b[1] for b in bad} == {"x_n_support"}


def test_verify_skips_the_extras_a_family_declares_volatile(tiny_store, extras_store, tmp_path, monkeypatch,
                                                            capsys):
    """A family's volatile extras (Family.volatile: timings, shared work that depends on the task's other cells) are
    not compared: a frame whose x_n_iter differs everywhere reproduces when the family declares it, and mismatches
    on that column alone when it does not."""
    import dataclasses
    from randml_core import verify as V
    from randml_core.family import FAMILIES
    assert V._volatile(tiny_store[0]) == set() and V._volatile(extras_store[0]) == set()
    spec, root = extras_store
    store = _copy_store(root, tmp_path / "results" / "store")
    rows = Store(store, "tiny").read()
    assert rows["x_n_iter"].notna().sum() == 12
    rows["x_n_iter"] = rows["x_n_iter"] + 1
    frames.write_frame(tmp_path / "results" / "frames" / "tiny.parquet", rows, {})
    for p in (store / "tiny").glob("part-*.parquet"):
        p.unlink()
    capsys.readouterr()
    ok, drawn, bad = V.verify(spec, store, 39, 7)  # every cell: the 12 SVC-extras cells differ on x_n_iter alone
    assert (ok, drawn) == (27, 39) and len(bad) == 12 and {b[1] for b in bad} == {"x_n_iter"}
    monkeypatch.setitem(FAMILIES, SVC_EXTRAS.name, dataclasses.replace(SVC_EXTRAS, volatile=("n_iter",)))
    assert V._volatile(spec) == {"x_n_iter"}
    assert V.verify(spec, store, 39, 7) == (39, 39, [])


def test_the_experiments_of_one_frame_leave_out_the_same_columns(extras_store, tmp_path):
    import dataclasses
    spec, root = extras_store
    store = _copy_store(root, tmp_path / "results" / "store")
    frames.export(dataclasses.replace(spec, options={**spec.options, "frame_omit": ["x_n_support"]}), store)
    other = dataclasses.replace(spec, name="tiny_twin", store="tiny")
    with pytest.raises(StoreError, match=r"tiny_twin: experiment.frame_omit=\[\] but tiny, whose rows the frame "
                                         r".*tiny.parquet holds, left out \['x_n_support'\]"):
        frames.export(other, store)
    path, _ = frames.export(dataclasses.replace(other, options={**spec.options, "frame_omit": ["x_n_support"]}), store)
    assert sorted(frames.provenance(path)["experiments"]) == ["tiny", "tiny_twin"]


@pytest.mark.parametrize("value, fix", [(["gmean"], "'gmean' cannot be left out"), (["key", "x_"], "'key', 'x_'"),
                                        ("staged", "a list of column names")])
def test_frame_omit_refuses_keys_ids_settings_and_scores(value, fix):
    from randml_core.config import ConfigError, _check_options
    with pytest.raises(ConfigError, match=r"experiment.frame_omit.*" + fix):
        _check_options({"frame_omit": value})
    _check_options({"frame_omit": ["staged", "test_correct", "x_n_support"]})


def test_verify_cli_exit_codes(tiny_store, tmp_path, randml_cmd, cli_env):
    import subprocess
    spec, root = tiny_store
    store = _copy_store(root, tmp_path / "results" / "store")
    args = [*randml_cmd, "verify", "experiment=tiny", "dataset=heart", f"store_dir={store}", "sample=4", "seed=3"]
    done = subprocess.run(args, capture_output=True, text=True, env=cli_env, cwd=tmp_path)
    assert done.returncode == 0 and "randml verify: tiny: reproduced 4/4" in done.stdout, done.stderr
    rows = Store(store, "tiny").read()
    rows["gmean"] = 1.5
    rows["timestamp"] = "2099-01-01T00:00:00+00:00"  # a later part wins by its timestamp: every stored gmean is wrong
    Store(store, "tiny").write(rows)
    done = subprocess.run(args, capture_output=True, text=True, env=cli_env, cwd=tmp_path)
    assert done.returncode == 1 and "reproduced 0/4" in done.stdout and "MISMATCH dataset=heart" in done.stdout


def test_a_fresh_clone_loads_every_committed_frame_complete(tmp_path, monkeypatch):
    """With an empty store, load(NAME, include_inner=True) returns the complete frame for every experiment a committed
    frame holds, computing nothing: no cell missing or failed, and no incompleteness warning unless a dataset of the
    experiment needs a download (then the warning names only those, as the frame's provenance does)."""
    import warnings
    from conftest import REPO
    from randml_core.results import IncompleteResultsWarning, load
    committed = REPO / "results" / "frames"
    held = {name: path for path in sorted(committed.glob("*.parquet"))
            for name in frames.provenance(path).get("experiments", {})}
    if not held:
        pytest.skip("no committed frame")
    monkeypatch.setenv(frames.FRAMES_ENV, str(committed))
    for name, path in held.items():
        info = frames.provenance(path)["experiments"][name]
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            frame = load(name, store_dir=tmp_path / "store", include_inner=True, include_failed=True)
        said = [str(w.message) for w in seen if issubclass(w.category, IncompleteResultsWarning)]
        # a dataset the export had but this machine cannot load offline (Debian's Fashion-MNIST): its rows are not
        # planned here, and load() says so as for a dataset the export lacked
        lacking_here = set(frame.attrs["unavailable"]) - set(info["unavailable"])
        offline_only = not info["unavailable"] and not lacking_here
        assert frame.attrs["n_missing"] == 0 and frame.attrs["n_failed"] == 0, name
        assert frame.attrs["complete"] is offline_only and (not said if offline_only else
                                                            "not available here without a download" in said[0]), name
        expected = info["cells"] - sum(info["cells_by_dataset"][d] for d in lacking_here)
        assert len(frame) == expected, name
    assert not (tmp_path / "store").exists()  # nothing computed, nothing written


def test_the_public_api_is_lazy_and_complete():
    """randml_core.__all__ holds the names a plug-in or a notebook needs; importing the package imports no pandas."""
    import subprocess
    import sys
    code = ("import sys, randml_core as r; assert 'pandas' not in sys.modules; "
            "assert {'load', 'best', 'Family', 'register_family', 'Split', 'CellResult', 'register_generator', "
            "'Benchmark', 'ReportContext', 'compare'} <= set(r.__all__); "
            "[getattr(r, n) for n in r.__all__]; from randml_core import load, Family; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr[-800:]


def _framed():
    from conftest import REPO
    out = []
    for path in sorted((REPO / "results" / "frames").glob("*.parquet")):
        out += [(name, path) for name in sorted(frames.provenance(path).get("experiments", {}))]
    return out


def _slow_to_verify() -> dict:
    """experiment -> reason: the experiments whose cells an installed benchmark declares too slow to recompute here
    (``Benchmark.slow_to_verify``: verified by hand instead, the command and its figure in docs/reproducing.md)."""
    from randml_core import plugins
    return {name: why for bench in plugins.benchmarks() for name, why in bench.slow_to_verify.items()}


def test_the_experiments_declared_slow_to_verify_exist():
    from randml_core.results import experiments
    assert set(_slow_to_verify()) <= set(experiments())


@pytest.mark.parametrize("experiment, frame", _framed(), ids=[e for e, _ in _framed()])
def test_every_committed_frame_reproduces_a_sample_of_its_cells(experiment, frame, tmp_path, monkeypatch, capsys):
    """Two cells of every experiment a committed frame holds (drawn with seed 1) recomputed from scratch equal the
    frame's rows in every deterministic column (`randml verify experiment=NAME sample=2 seed=1`), on an empty store
    over the committed frames."""
    slow = _slow_to_verify()
    if experiment in slow:
        pytest.skip(f"{experiment}: {slow[experiment]}; verified by hand (docs/reproducing.md)")
    from randml_core.results import compose_spec
    from randml_core.verify import verify
    monkeypatch.setenv(frames.FRAMES_ENV, str(frame.parent))
    ok, drawn, bad = verify(compose_spec(experiment), tmp_path / "store", 2, 1)
    assert (ok, drawn, bad) == (2, 2, []), capsys.readouterr().out


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_row_order_check_agrees_with_the_sort(seed):
    """store._in_row_order (neighbour comparisons) says "already in ROW_ORDER" exactly when a stable sort by
    ROW_ORDER leaves the rows where they are: sorted frames with ties in every column, one swapped pair, a
    reversed frame, and a missing value (decided by the sort)."""
    import numpy as np
    import pandas as pd

    from randml_core.store import ROW_ORDER, _in_row_order
    rng = np.random.default_rng(seed)
    n = 400
    df = pd.DataFrame({"dataset": rng.choice(["a", "b"], n), "model": rng.choice(["M1", "M2", "m"], n),
                       "params_json": rng.choice(['{"C": 1}', '{"C": 10}'], n), "repeat": rng.integers(0, 2, n),
                       "fold": rng.integers(0, 3, n), "inner_fold": rng.integers(-1, 2, n),
                       "key": [f"{i:04x}" for i in rng.permutation(n)], "gmean": rng.random(n)})
    reference = lambda f: f.sort_values(list(ROW_ORDER), kind="stable").index.equals(f.index)  # noqa: E731
    ordered = df.sort_values(list(ROW_ORDER), kind="stable").reset_index(drop=True)
    assert _in_row_order(ordered) and reference(ordered)
    swapped = ordered.copy()
    i = int(rng.integers(0, n - 1))
    swapped.iloc[[i, i + 1]] = swapped.iloc[[i + 1, i]].to_numpy()
    assert _in_row_order(swapped) == reference(swapped)
    backwards = ordered.iloc[::-1].reset_index(drop=True)
    assert not _in_row_order(backwards) and not reference(backwards)
    holey = ordered.copy()
    holey.loc[5, "params_json"] = None
    assert _in_row_order(holey) == reference(holey)
    assert not _in_row_order(ordered.drop(columns="inner_fold"))  # a frame without every ROW_ORDER column is sorted


def test_a_frame_verified_by_an_earlier_process_is_not_checked_again_until_its_bytes_change(tiny_store, tmp_path,
                                                                                             monkeypatch):
    """A frame content verified in full is remembered by the SHA-256 of its bytes (``frames-verified.json`` in the
    checks cache), so the next process hashes the file but does not check its rows again (the committed frame cost a
    cached ``randml status`` of a fresh clone 1.1 s and the pandas import); one changed value is checked, and
    refused; ``verify=True`` checks again whatever the memo says; a memo that is not whole is ignored."""
    from randml_core import store as store_mod
    monkeypatch.setenv("RANDML_CHECKS_CACHE", str(tmp_path / "checks"))
    spec, root = tiny_store
    store = _copy_store(root, tmp_path / "results" / "store")
    path, _ = frames.export(spec, store)  # export reads its frame back: verified, remembered
    memo = tmp_path / "checks" / "frames-verified.json"
    assert list(store_mod._frames_memo()) == [hashlib.sha256(path.read_bytes()).hexdigest()]
    calls = []
    real = store_mod._frame_checksum
    monkeypatch.setattr(store_mod, "_frame_checksum", lambda *a: calls.append(1) or real(*a))
    frames._VERIFIED.clear()  # a new process, as far as this module knows
    first = frames.read_frame(path)
    assert calls == [] and len(first) == 27
    frames.read_frame(path, verify=True)
    assert calls == [1]
    memo.write_text(memo.read_text().replace('"check": "', '"check": "0'))  # not whole: ignored
    frames._VERIFIED.clear()
    frames.read_frame(path)
    assert calls == [1, 1]
    table = pq.read_table(path)
    col = table.column("gmean").to_pylist()
    col[0] = 0.5 if col[0] != 0.5 else 0.25
    pq.write_table(table.set_column(table.column_names.index("gmean"), "gmean", pa_array(col)), path,
                   compression="zstd")  # metadata (checksum) kept, one value changed: other bytes
    frames._VERIFIED.clear()
    with pytest.raises(frames.FrameError, match=r"its rows do not match the checksum"):
        frames.read_frame(path)
