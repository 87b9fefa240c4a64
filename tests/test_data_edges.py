"""Edges of datasets and run folders a new user meets (issue 45 item 4): a `;`- or tab-separated CSV read with the
default separator names the card's `sep` key; a binary card with 3 labels names the card's keys (not a prepare step);
a sweep's job folders hold Hydra's .hydra/ snapshot and a refused run leaves no empty log folder; `randml data show`
prints the class counts and the NaN counts."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from randml_core.data import DataValidationError, binarise_labels, load_dataset, unregister, validate_xy
from randml_core.data.cards import CardError, card_spec, register_cards
from randml_core.data.sources import MalformedDataError
from randml_core.data.sources.tabular import TabularFileSource


def _card(conf: Path, name: str, table: str, source: str = "", task: str = "binary") -> Path:
    (conf / "dataset").mkdir(parents=True, exist_ok=True)
    (conf / "dataset" / f"{name}.csv").write_text(table)
    path = conf / "dataset" / f"{name}.yaml"
    path.write_text(f"name: {name}\ntask: {task}\nsource: {{kind: csv, path: {name}.csv, target: label{source}}}\n")
    return path


@pytest.fixture
def names():
    """Card names registered by a test, unregistered afterwards (the registry is process-wide)."""
    registered: list[str] = []
    yield registered
    for name in registered:
        unregister(name)


# --------------------------------------------------------------------------- (d) the CSV separator


SEMI = "a;b;label\n1;2;x\n3;4;y\n5;6;x\n7;8;y\n"


@pytest.mark.parametrize("sep,table,written", [(";", SEMI, "';'"), ("\t", SEMI.replace(";", "\t"), '"\\t"')])
def test_a_csv_card_read_with_the_wrong_separator_names_the_sep_key(tmp_path, names, sep, table, written):
    """Was: "source.target names 'label' (did you mean 'a;b;label'?), which is not a column ... (columns: a;b;label);
    fix: set source.target to one of the file's columns"."""
    path = _card(tmp_path, "semi", table)
    with pytest.raises(CardError) as err:
        card_spec(path)
    msg = str(err.value)
    assert "\n" not in msg and "source.target names 'label', which is not a column" in msg
    assert "its header split on ',' (source.sep; default ',') is one column" in msg
    assert f"the file looks {'semicolon' if sep == ';' else 'tab'}-separated" in msg
    assert msg.endswith(f"fix: add `sep: {written}` to the card's source (source.sep)")
    # the fix as written in the message works
    path.write_text(path.read_text().replace("target: label}", f"target: label, sep: {written}}}"))
    names.extend(register_cards([tmp_path]))
    ds = load_dataset("semi")
    assert ds.X.shape == (4, 2) and sorted(ds.label_names.values()) == ["x", "y"]


def test_the_separator_hint_reaches_a_python_source_and_the_other_way_round(tmp_path):
    (tmp_path / "semi.csv").write_text(SEMI)
    with pytest.raises(MalformedDataError, match=r"the file looks semicolon-separated; fix: add `sep: ';'`"):
        TabularFileSource(tmp_path / "semi.csv", "label").load_detailed("semi")
    (tmp_path / "comma.csv").write_text(SEMI.replace(";", ","))
    source = TabularFileSource(tmp_path / "comma.csv", "label", sep=";")
    assert source.separator_hint(source.columns()) == ","
    assert TabularFileSource(tmp_path / "comma.csv", "label").separator_hint(["a", "label"]) is None  # two columns
    with pytest.raises(CardError, match=r"source.sep is empty; fix: write sep: ','"):
        card_spec(_card(tmp_path, "empty", SEMI.replace(";", ","), source=", sep: ''"))


def test_an_explicit_default_separator_keeps_the_data_hash(tmp_path, names):
    """A card without `sep` and the same card with `sep: ','` load the same arrays (the same hash)."""
    table = SEMI.replace(";", ",")
    _card(tmp_path / "a", "plain", table)
    _card(tmp_path / "b", "comma", table, source=", sep: ','")
    names.extend(register_cards([tmp_path / "a", tmp_path / "b"]))
    assert load_dataset("plain").data_hash == load_dataset("comma").data_hash


# --------------------------------------------------------------------------- (e) card wording of label fixes


THREE = "a,b,label\n1,2,x\n3,4,y\n5,6,z\n7,8,y\n"


def test_a_binary_card_with_three_labels_names_the_card_keys(tmp_path, names):
    """Was: "... fix them in the source's prepare step; ... binarise them as the paper does (e.g. one class against
    the rest) in the prepare step, or register it with task='multiclass'" for a card, which has neither."""
    _card(tmp_path, "three", THREE)
    names.extend(register_cards([tmp_path]))
    with pytest.raises(DataValidationError) as err:
        load_dataset("three")
    msg = str(err.value)
    assert "task 'binary' but the source gives 3 labels ['x', 'y', 'z']" in msg
    assert "fix: if the set really has 3 classes, write `task: multiclass` in the dataset card 'three.yaml'" in msg
    assert "`source.target`" in msg and "prepare step in" not in msg and "as the paper does" not in msg
    # the fix as written works
    (tmp_path / "dataset" / "three.yaml").write_text((tmp_path / "dataset" / "three.yaml").read_text()
                                                     .replace("task: binary", "task: multiclass"))
    names.extend(register_cards([tmp_path]))
    assert load_dataset("three").task == "multiclass"


def test_label_fixes_keep_the_paper_wording_for_python_specs_and_name_card_keys_for_cards():
    y3, X = np.array(["a", "b", "c", "a"]), np.arange(8.0).reshape(4, 2)
    for call in (lambda card: binarise_labels(y3, "toy", card=card),
                 lambda card: validate_xy(X, y3, "toy", task="binary", card=card)):
        with pytest.raises(DataValidationError, match=r"binarise them as the paper does .* task='multiclass'"):
            call(None)
        with pytest.raises(DataValidationError, match=r"write `task: multiclass` in the dataset card 'toy.yaml'"):
            call(Path("/x/dataset/toy.yaml"))
    y_nan = np.array(["a", "b", None, "a"], dtype=object)
    with pytest.raises(DataValidationError, match=r"fix: drop those rows in the source's prepare step"):
        binarise_labels(y_nan, "toy")
    with pytest.raises(DataValidationError, match=r"fix: write `missing: drop_rows` in the source of the dataset "
                                                  r"card 'toy.yaml'"):
        binarise_labels(y_nan, "toy", card="/x/dataset/toy.yaml")


# --------------------------------------------------------------------------- (f) run folders


def _cli(randml_cmd, cli_env, cwd, *args):
    return subprocess.run([*randml_cmd, "run", *args], capture_output=True, text=True, env=cli_env, cwd=cwd,
                          timeout=300)


SMALL = ("experiment=tiny", "dataset=heart", "model=knn", "n_jobs=1", "progress=false")


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if "store" not in p.relative_to(root).parts)


def test_sweep_jobs_get_the_hydra_snapshot_and_refused_jobs_leave_no_folder(tmp_path, randml_cmd, cli_env):
    """Was: a sweep's job folder held only cli.log (no .hydra/), and a refused job (exit 2) left results/logs/<d>/<t>/
    or results/multirun/<d>/<t>/<n>/ with an empty cli.log."""
    store = f"store_dir={tmp_path / 'store'}"
    done = _cli(randml_cmd, cli_env, tmp_path, "-m", *SMALL, store, "protocol.repeats=0,1")
    assert done.returncode == 2 and "protocol.repeats must be >= 1, got 0" in done.stderr, done.stderr[-2000:]
    sweeps = list((tmp_path / "results" / "multirun").glob("*/*"))
    assert len(sweeps) == 1
    sweep = sweeps[0]
    assert sorted(p.name for p in sweep.iterdir()) == ["1", "multirun.yaml"]  # job 0 was refused: no folder
    job = sweep / "1"
    assert sorted(p.name for p in (job / ".hydra").iterdir()) == ["config.yaml", "hydra.yaml", "overrides.yaml"]
    assert "protocol.repeats=1" in (job / ".hydra" / "overrides.yaml").read_text()
    assert "name: tiny" in (job / ".hydra" / "config.yaml").read_text()
    assert "cells to compute" in (job / "cli.log").read_text()
    # hydra.output_subdir on the command line is the user's choice
    done = _cli(randml_cmd, cli_env, tmp_path, "-m", *SMALL, store, "protocol.repeats=1", "hydra.output_subdir=null",
                f"hydra.sweep.dir={tmp_path / 'mine'}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in (tmp_path / "mine" / "0").iterdir()) == ["cli.log"]


def test_a_refused_run_or_sweep_leaves_no_empty_folder(tmp_path, randml_cmd, cli_env):
    store = f"store_dir={tmp_path / 'store'}"
    (tmp_path / "results").mkdir()  # a folder that was there before stays
    for args in ([*SMALL, store, "protocol.repeats=0"],  # one run, a bad value: exit 2 from the config check
                 ["-m", *SMALL, store, "protocol.repeats=0,-1"],  # every job of a sweep refused
                 ["-m", *SMALL, store, "protocol.no_such_key=0,1"]):  # the jobs' configs cannot be composed
        done = _cli(randml_cmd, cli_env, tmp_path, *args)
        assert done.returncode == 2, (args, done.stderr[-2000:])
        assert _tree(tmp_path) == ["results"], (args, _tree(tmp_path))


def test_the_clean_up_removes_only_what_a_refused_job_created(tmp_path):
    from randml_core.hydra_paths import remove_refused_job_dir
    job = tmp_path / "logs" / "d" / "t"
    (job / ".hydra").mkdir(parents=True)
    (job / "cli.log").write_text("")
    for name in ("config.yaml", "hydra.yaml", "overrides.yaml"):
        (job / ".hydra" / name).write_text("x: 1\n")
    (tmp_path / "logs" / "d" / "other").mkdir()  # another run's folder beside it
    (job / "cli.log").write_text("INFO work\n")
    assert not remove_refused_job_dir(job, tmp_path, ".hydra") and job.is_dir()  # its log is not empty: kept
    (job / "cli.log").write_text("")
    assert not remove_refused_job_dir(job, job, ".hydra") and job.is_dir()  # the folder was there before the job
    assert remove_refused_job_dir(job, tmp_path, ".hydra")
    assert _tree(tmp_path) == ["logs", "logs/d", "logs/d/other"]


def test_a_config_may_not_send_the_snapshot_out_of_the_job_folder():
    from omegaconf import OmegaConf

    from randml_core.config import ConfigError
    from randml_core.hydra_paths import check
    cwd = Path.cwd()
    cfg = OmegaConf.create({"hydra": {"run": {"dir": str(cwd / "results" / "logs" / "x")}, "output_subdir": "../../x",
                                      "overrides": {"hydra": [], "task": []}, "job_logging": {}}})
    with pytest.raises(ConfigError, match=r"hydra.output_subdir='../../x' set in a config leaves the job's own folder"):
        check(cfg, "hydra.run.dir")
    cfg.hydra.overrides.task = ["hydra.output_subdir=../../x"]  # on the command line: the user's choice
    check(cfg, "hydra.run.dir")
    cfg.hydra.overrides.task, cfg.hydra.output_subdir = [], ".hydra"
    check(cfg, "hydra.run.dir")


# --------------------------------------------------------------------------- (g) randml data show


def _show(capsys, *args) -> str:
    from randml_core.data.commands import main
    assert main(["show", *args]) == 0
    return capsys.readouterr().out


def test_data_show_prints_class_and_nan_counts(tmp_path, capsys, names):
    out = _show(capsys, "heart")
    assert "class counts (2 classes): 0 = '1': 150, 1 = '2': 120\nNaN (missing values): none\n" in out
    assert "class counts (3 classes): 0: 50, 1: 50, 2: 50\n" in _show(capsys, "iris")
    out = _show(capsys, "friedman1")  # regression: no class counts
    assert "class counts" not in out and "NaN (missing values): none" in out
    _card(tmp_path, "holes", "age,bmi,city,label\n1,,a,x\n3,4,b,y\n,6,,x\n7,,b,y\n9,1,a,x\n")
    names.append("holes")
    out = _show(capsys, "holes", "--config-dir", str(tmp_path))
    assert "class counts (2 classes): 0 = 'x': 3, 1 = 'y': 2\n" in out
    assert "NaN (missing values): 4 in 3 of 3 columns: age: 1, bmi: 2, city: 1\n" in out
