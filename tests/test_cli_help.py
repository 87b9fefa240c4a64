"""Help and discovery (issue 33 item 4): each subcommand's --help, shell completion, read-only commands that write
nothing, "did you mean" for config-group typos, `randml model list` / `randml dataset list`, `randml status
--failed`, a bad card that blocks only the experiments using it, and best()'s metric chosen by the frame's task."""
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from randml_core import cli
from randml_core.data.cards import CardError, CardWarning, config_dirs, register_cards
from randml_core.data.registry import unregister
from randml_core.paths import shipped_config_dirs
from randml_core.results import best

from conftest import REPO


SHIPPED = shipped_config_dirs()  # the engine's conf/ and each benchmark's (randml_core/searchpath.py)


def _names(group: str) -> list[str]:
    return sorted({p.stem for d in SHIPPED for p in (d / group).glob("*.yaml")})
COMMON_KEYS = ("experiment=", "dataset=", "model=", "profile=", "protocol.", "n_jobs=", "store_dir=", "results_dir=",
               "--config-dir")
OWN_KEYS = {"run": ("retry_failed=", "-m"), "plan": ("workers=",), "status": ("--failed",), "report": ("report.metrics",),
            "compare": ("metric=", "models=", "rule=")}


def _randml(args, cwd, env, timeout=600):
    env = {k: v for k, v in env.items() if k != "RANDML_STORE"}
    return subprocess.run([sys.executable, "-m", "randml_core", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def _main(monkeypatch, capsys, *argv):
    """``cli.main(argv)`` in this process with Hydra forbidden: (exit code, stdout, stderr)."""
    def no_hydra(*a, **k):
        raise AssertionError("a Hydra app was started")
    monkeypatch.setattr(cli, "_hydra", no_hydra)
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # main() installs its own
    try:
        cli.main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


# --------------------------------------------------------------------------- 1. --help per subcommand


@pytest.mark.parametrize("cmd", ["run", "plan", "status", "report", "compare"])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_each_subcommand_help_says_what_it_does_its_keys_two_examples_and_exit_codes(cmd, flag, monkeypatch, capsys):
    code, out, _ = _main(monkeypatch, capsys, cmd, "experiment=tiny", flag)
    assert code == 0 and "powered by Hydra" not in out
    assert out.startswith(f"usage: randml {cmd} experiment=NAME")
    for key in (*COMMON_KEYS, *OWN_KEYS[cmd]):
        assert key in out, key
    examples = out.split("examples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(examples) == 2 and all(e.startswith(f"  randml {cmd} ") and "experiment=" in e for e in examples)
    codes = {line.split()[0]: " ".join(line.split()[1:])
             for line in out.split("exit codes:\n", 1)[1].split("\n\n", 1)[0].splitlines()}
    assert {"0", "2", "130"} <= set(codes) and codes["2"].startswith("bad config or input")
    assert codes["130"].startswith("interrupted")
    if cmd == "run":  # every code the module docstring of cli.py names
        assert list(codes) == ["0", "1", "2", "3", "4", "130"] and codes["0"] == "done"
        assert codes["1"].startswith("some cells failed") and codes["3"].startswith("some datasets not available")
        assert codes["4"].startswith("no space left on the device")
    listed = set(re.findall(r"[\w.-]+", out.split("experiments: ", 1)[1]))
    assert "tiny" in listed and set(_names("experiment")) <= listed  # the engine's and every benchmark's


def test_help_in_a_subprocess_writes_nothing_and_lists_a_config_dirs_experiments(tmp_path, cli_env):
    (tmp_path / "mine" / "experiment").mkdir(parents=True)
    (tmp_path / "mine" / "experiment" / "my_exp.yaml").write_text("experiment: {name: my_exp}\n")
    work = tmp_path / "work"
    work.mkdir()
    res = _randml(["compare", "--config-dir", str(tmp_path / "mine"), "--help"], work, cli_env)
    assert res.returncode == 0, res.stderr
    assert "metric=M" in res.stdout and "rule=best_mean|nested" in res.stdout and "powered by Hydra" not in res.stdout
    assert "my_exp" in res.stdout.split("experiments: ", 1)[1]
    assert list(work.iterdir()) == []


# --------------------------------------------------------------------------- 2. completion


def _complete(script: str, words: list[str], cword: int, cwd) -> list[str]:
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    code = f'{script}\nCOMP_WORDS=({quoted}); COMP_CWORD={cword}; _randml; printf "%s\\n" "${{COMPREPLY[@]}}"'
    res = subprocess.run(["bash", "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return [w for w in res.stdout.splitlines() if w]


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory):
    env = {k: v for k, v in os.environ.items() if k != "RANDML_CONF"}
    env["PYTHONPATH"] = str(REPO)
    res = subprocess.run([sys.executable, "-m", "randml_core", "completion", "bash"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_bash_completion_completes_subcommands_keys_and_config_names(bash_script, tmp_path):
    lb = ["leaderboard_budget", "leaderboard_grid", "leaderboard_quick", "leaderboard_seed1", "leaderboard_seed2",
          "leaderboard_unweighted"]  # the engine's conf/experiment
    assert [n for n in _names("experiment") if n.startswith("leaderboard_")] == lb  # the hand list is the configs'
    # bash splits `experiment=leaderboard_` at '=' (COMP_WORDBREAKS): the value is completed on its own
    assert _complete(bash_script, ["randml", "run", "experiment", "=", "leaderboard_"], 4, tmp_path) == lb
    # a shell that keeps the word whole gets whole words back
    assert _complete(bash_script, ["randml", "plan", "experiment=leaderboard_s"], 2, tmp_path) == [
        "experiment=leaderboard_seed1", "experiment=leaderboard_seed2"]
    models = _complete(bash_script, ["randml", "run", "model", "="], 3, tmp_path)
    engine = {p.stem for p in (REPO / "conf" / "model").glob("*.yaml")}
    benchmarks = set(_names("model")) - engine
    assert sorted(models) == _names("model") and {"knn", "svc", "logreg"} <= engine  # the engine's
    assert benchmarks and benchmarks <= set(models)  # and each benchmark's (its conf/ on the search path)
    assert _complete(bash_script, ["randml", "run", "dataset", "=", "hea"], 4, tmp_path) == ["heart"]
    assert _complete(bash_script, ["randml", "run", "profile", "=", ""], 4, tmp_path) == ["paper", "quick"]
    assert _complete(bash_script, ["randml", "pl"], 1, tmp_path) == ["plan"]
    assert _complete(bash_script, ["randml", "status", "--fa"], 2, tmp_path) == ["--failed"]
    assert _complete(bash_script, ["randml", "compare", "ru"], 2, tmp_path) == ["rule="]
    assert _complete(bash_script, ["randml", "compare", "metric", "=", "r"], 4, tmp_path) == ["rmse"]
    assert _complete(bash_script, ["randml", "data", "show", "sona"], 3, tmp_path) == ["sonar"]
    # a --config-dir's experiments too (relative to the shell's working directory)
    (tmp_path / "mine" / "experiment").mkdir(parents=True)
    (tmp_path / "mine" / "experiment" / "my_tiny.yaml").write_text("experiment: {name: my_tiny}\n")
    got = _complete(bash_script, ["randml", "run", "--config-dir", "mine", "experiment", "=", "my_ti"], 6, tmp_path)
    assert got == ["my_tiny"]


def test_zsh_completion_is_the_bash_one_through_bashcompinit(monkeypatch, capsys):
    code, out, _ = _main(monkeypatch, capsys, "completion", "zsh")
    assert code == 0 and "bashcompinit" in out.split("_randml()")[0] and "complete -F _randml randml" in out
    assert _main(monkeypatch, capsys, "completion", "fish")[0] == 2


# --------------------------------------------------------------------------- 3. read-only commands write nothing


@pytest.mark.parametrize("cmd", ["plan", "status"])
def test_plan_and_status_write_no_log_directory_and_print_the_same(cmd, tmp_path, cli_env):
    work = tmp_path / "work"
    work.mkdir()
    args = [cmd, "experiment=tiny", "dataset=heart", "model=knn"]
    quiet = _randml(args, work, cli_env)
    assert quiet.returncode == 0, quiet.stderr
    assert sorted(p.name for p in work.iterdir()) == []  # no results/logs, no outputs/, no .hydra
    # as before: with a run dir of its own, Hydra writes cli.log there; the output is the same
    logged = _randml([*args, f"hydra.run.dir={tmp_path}/logs"], work, cli_env)
    assert logged.returncode == 0, logged.stderr
    assert (tmp_path / "logs" / "cli.log").is_file()
    assert quiet.stdout == logged.stdout and "heart" in quiet.stdout


# --------------------------------------------------------------------------- 4. did you mean


@pytest.mark.parametrize("arg, line", [
    ("experiment=leaderboard_quik", "randml: unknown experiment 'leaderboard_quik'; did you mean 'leaderboard_quick'? "
                                    "(`randml --help` lists them)"),
    ("model=knnn", "randml: unknown model 'knnn'; did you mean 'knn'? (`randml model list` lists them)"),
    ("dataset=hert", "randml: unknown dataset 'hert'; did you mean 'heart'? (`randml dataset list` lists them)"),
])
def test_a_group_typo_is_one_line_with_did_you_mean_before_hydra(arg, line, monkeypatch, capsys):
    args = ["experiment=tiny", arg] if not arg.startswith("experiment") else [arg]
    code, out, err = _main(monkeypatch, capsys, "run", *args)
    assert code == 2 and err == line + "\n" and out == ""


def test_typo_check_reads_config_dirs_and_sweeps_and_leaves_valid_values(tmp_path):
    from randml_core.cli_help import unknown_group_choice
    (tmp_path / "experiment").mkdir()
    (tmp_path / "experiment" / "mine.yaml").write_text("experiment: {name: mine}\n")
    assert unknown_group_choice(["--config-dir", str(tmp_path), "experiment=mine"], SHIPPED) is None
    assert unknown_group_choice(["experiment=mine"], SHIPPED).startswith("unknown experiment 'mine'")
    assert "did you mean 'mine'?" in unknown_group_choice([f"--config-dir={tmp_path}", "experiment=mien"], SHIPPED)
    assert "unknown dataset 'sonarr'; did you mean 'sonar'?" in unknown_group_choice(
        ["-m", "experiment=tiny", "dataset=heart,sonarr"], SHIPPED)
    for ok in (["experiment=tiny", "dataset=null", "model=knn", "profile=quick", "protocol=holdout60"],
               ["experiment=tiny", "dataset=glob(h*)"], ["+experiment=tiny", "models.knn.grid.n_neighbors=[5]"]):
        assert unknown_group_choice(ok, SHIPPED) is None, ok
    assert unknown_group_choice(["experiment=nothing_like_it_at_all"], SHIPPED) == (
        "unknown experiment 'nothing_like_it_at_all'; (`randml --help` lists them)")


# --------------------------------------------------------------------------- 5. model list, dataset list


def model_list_rows(monkeypatch, capsys) -> tuple[dict, str]:
    """``randml model list`` in this process: its rows by config name (each split into its columns), and its output
    (the benchmarks' tests read their own models' rows with it)."""
    code, out, err = _main(monkeypatch, capsys, "model", "list")
    assert code == 0, err
    return {line.split()[0]: line.split() for line in out.splitlines()[1:] if line and not line[0].isdigit()}, out


def test_model_list_names_family_tasks_and_grid_size(monkeypatch, capsys):
    rows, out = model_list_rows(monkeypatch, capsys)
    # conf/model/logreg.yaml: the _target_, a classifier of both kinds, one variant, C over 5 values
    assert rows["logreg"][1:] == ["sklearn.linear_model.LogisticRegression", "binary,multiclass", "1", "5"]
    # binary only by its scikit-learn tags (liblinear): one variant, C over 5 values
    assert rows["logreg_liblinear"][1:] == ["sklearn.linear_model.LogisticRegression", "binary", "1", "5"]
    assert rows["knn"][1:] == ["sklearn.neighbors.KNeighborsClassifier", "binary,multiclass", "1", "6"]  # 6 k
    assert rows["svc"][1:] == ["sklearn.svm.SVC", "binary,multiclass", "1", "16"]  # 4 gamma x 4 C
    assert len(rows) == len(_names("model"))
    regression = out.split("regression: ", 1)[1].split(" (", 1)[0].split(", ")
    # the summary line lists exactly the rows whose tasks include regression (the benchmarks' regressors)
    assert regression == sorted(n for n, r in rows.items() if "regression" in r[2].split(",")) and regression
    assert "logreg" not in regression and "knn" not in regression


def test_dataset_list_gives_task_source_and_whether_a_download_is_needed(monkeypatch, capsys):
    code, out, err = _main(monkeypatch, capsys, "dataset", "list")
    assert code == 0, err
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:] if line and not line[0].isdigit()}
    assert rows["heart"][1:4] == ["binary", "offline-package", "offline"]
    assert rows["friedman1"][1:4] == ["regression", "synthetic", "offline"]
    # online only, and the suite's cache is empty (conftest.py)
    assert rows["arrhythmia"][1:5] == ["binary", "zenodo", "needs", "download"]
    assert "randml model list" in out


# --------------------------------------------------------------------------- 6. status --failed

FAILING = """# @package _global_
defaults:
  - /model@models.bad: bad_logreg
  - override /protocol: cv10
protocol: {n_splits: 3}
experiment: {name: failing, datasets: [heart]}
"""
BAD_LOGREG = """estimator: {_target_: sklearn.linear_model.LogisticRegression, solver: newton-cg, penalty: l1}
variants: {BadLogReg: {}}
grid: {C: [1.0, 10.0]}
"""


def test_status_failed_groups_the_stored_errors_with_counts(tmp_path, cli_env):
    conf = tmp_path / "conf"
    for sub, name, text in (("experiment", "failing", FAILING), ("model", "bad_logreg", BAD_LOGREG)):
        (conf / sub).mkdir(parents=True, exist_ok=True)
        (conf / sub / f"{name}.yaml").write_text(text)
    common = ["--config-dir", str(conf), "experiment=failing", f"store_dir={tmp_path}/store"]
    run = _randml(["run", *common, "n_jobs=1", "progress=false", f"hydra.run.dir={tmp_path}/logs"], tmp_path, cli_env)
    assert run.returncode == 1, run.stderr[-3000:]
    status = _randml(["status", *common, "--failed"], tmp_path, cli_env)
    assert status.returncode == 0, status.stderr[-3000:]
    from randml_core.results import IncompleteResultsWarning, load
    with pytest.warns(IncompleteResultsWarning, match="6 failed"):
        rows = load("failing", store_dir=tmp_path / "store", config_dir=conf, include_failed=True)
    errors = rows.loc[rows["status"] == "failed", "error"]
    assert len(errors) == len(rows) == 6 and errors.nunique() == 1  # 2 settings x 3 folds, one error text
    error = errors.iloc[0]
    assert "penalty" in error and "newton-cg" in error
    assert status.stdout.count(error) == 1
    assert f"    6 x heart / BadLogReg: {error}" in status.stdout.splitlines()
    assert status.stdout.startswith("failing: 6 failed cell(s) in 1 group(s)")
    # without --failed: the counts table, as before
    plain = _randml(["status", *common], tmp_path, cli_env)
    assert "0/0/6/0" in plain.stdout and error not in plain.stdout


# --------------------------------------------------------------------------- 7. a bad card blocks only its users

CARD = "name: {name}\ntask: binary\nsource: {{kind: csv, path: ../data/{file}, target: y}}\n"
EXPERIMENT = """# @package _global_
defaults:
  - /model@models.logreg: logreg
protocol: {{n_splits: 3}}
experiment: {{name: {name}, datasets: [{dataset}]}}
"""


@pytest.fixture
def two_cards(tmp_path):
    conf = tmp_path / "conf"
    for sub in ("data", "dataset", "experiment"):
        (conf / sub).mkdir(parents=True)
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.random(30), "b": rng.random(30), "y": np.repeat([0, 1], 15)}).to_csv(
        conf / "data" / "good.csv", index=False)
    (conf / "dataset" / "good_set.yaml").write_text(CARD.format(name="good_set", file="good.csv"))
    (conf / "dataset" / "broken_set.yaml").write_text(CARD.format(name="broken_set", file="missing.csv"))
    (conf / "experiment" / "uses_good.yaml").write_text(EXPERIMENT.format(name="uses_good", dataset="good_set"))
    (conf / "experiment" / "uses_broken.yaml").write_text(EXPERIMENT.format(name="uses_broken", dataset="broken_set"))
    yield conf
    for name in ("good_set", "broken_set"):
        try:
            unregister(name)
        except Exception:
            pass


def test_register_cards_skips_a_bad_card_the_experiment_does_not_need(two_cards):
    with pytest.warns(CardWarning, match=r"broken_set\.yaml'.*missing\.csv.*the experiment does not use it"):
        shipped = register_cards(config_dirs([]))  # an installed benchmark's cards of a real source (none of randml's)
        assert register_cards(config_dirs([two_cards]), needed=["good_set", "heart"]) == ["good_set", *shipped]
    with pytest.raises(CardError, match=r"broken_set\.yaml'.*is not a file"):
        register_cards(config_dirs([two_cards]), needed=["broken_set"])
    with pytest.raises(CardError, match=r"broken_set\.yaml"):  # no experiment given: every card must be good
        register_cards(config_dirs([two_cards]))


def test_a_bad_card_blocks_only_the_experiments_that_use_it(two_cards, tmp_path, cli_env):
    common = ["--config-dir", str(two_cards), f"store_dir={tmp_path}/store"]
    good = _randml(["plan", *common, "experiment=uses_good"], tmp_path, cli_env)
    assert good.returncode == 0, good.stderr[-3000:]
    assert "good_set: 3 task(s)" in good.stdout
    assert "CardWarning" in good.stderr and "broken_set.yaml" in good.stderr and "missing.csv" in good.stderr
    bad = _randml(["plan", *common, "experiment=uses_broken"], tmp_path, cli_env)
    assert bad.returncode == 2
    assert "config error: dataset card" in bad.stderr and "broken_set.yaml" in bad.stderr
    assert "is not a file" in bad.stderr


# --------------------------------------------------------------------------- 8. best() picks the metric by task


def _frame(dataset, rmse, gmean=None):
    """Two settings x two folds of one model: rmse means 1.5 (a) and 2.5 (b)."""
    rows = [("a", 0, rmse[0]), ("a", 1, rmse[1]), ("b", 0, rmse[2]), ("b", 1, rmse[3])]
    return pd.DataFrame([{"dataset": dataset, "model": "m", "params_json": p, "repeat": 0, "fold": f,
                          "inner_fold": -1, "status": "ok", "converged": True, "rmse": r,
                          **({"gmean": gmean} if gmean is not None else {})} for p, f, r in rows])


def test_best_defaults_to_rmse_on_a_regression_frame_and_gmean_otherwise():
    from randml_core.results import default_metric
    reg = _frame("friedman1", [1.0, 2.0, 2.0, 3.0])  # a registered regression set; no gmean column at all
    assert default_metric(reg) == "rmse"
    out = best(reg)
    assert out["metric"].item() == "rmse" and out["params_json"].item() == "a" and out["mean"].item() == 1.5
    with pytest.raises(KeyError, match="metric='gmean' is not a column"):  # the old default, asked for explicitly
        best(reg, metric="gmean")
    unregistered = _frame("my-set", [3.0, 3.0, 1.0, 2.0], gmean=np.nan)  # judged by its rows: RMSE only
    assert best(unregistered)["params_json"].item() == "b"
    heart = _frame("heart", [1.0, 1.0, 1.0, 1.0], gmean=0.7)
    assert default_metric(heart) == "gmean" and default_metric(pd.concat([reg, heart])) == "gmean"
    assert best(pd.concat([reg, heart]))["dataset"].tolist() == ["heart"]
