"""A cached report: the generic report of an experiment whose rows, config, data and code have not changed
since it was written is up to date and is not rebuilt (no import of scipy / matplotlib, no file rewritten);
any change to what it reads, or to a file it wrote, rebuilds it."""
import shutil
import subprocess
import sys

from conftest import REPO


def _cli(args, cwd, env):
    return subprocess.run([sys.executable, "-m", "randml_core", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_an_unchanged_generic_report_is_up_to_date_and_a_changed_one_is_rebuilt(tmp_path, cli_env):
    conf = tmp_path / "conf"
    shutil.copytree(REPO / "examples" / "byo", conf)
    (conf / "experiment" / "tiny.yaml").write_text(
        "# @package _global_\ndefaults:\n  - /model@models.logistic: logistic\n  - override /protocol: cv10\n"
        "protocol: {n_splits: 2}\nmodels:\n  logistic: {grid: {C: [0.1, 1.0]}}\n"
        "experiment:\n  name: tiny\n  datasets: [blobs, heart]\n")
    common = ["--config-dir", str(conf), "experiment=tiny", f"store_dir={tmp_path}/store",
              f"results_dir={tmp_path}/res", f"hydra.run.dir={tmp_path}/logs"]
    assert _cli(["run", *common, "n_jobs=1", "progress=false"], tmp_path, cli_env).returncode == 0
    first = _cli(["report", *common], tmp_path, cli_env)
    assert first.returncode == 0 and "wrote:" in first.stdout, first.stderr[-2000:]
    files = sorted(p for p in (tmp_path / "res").rglob("*") if p.is_file())
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files}
    assert any(p.name == "tiny.md" for p in files) and any(p.name == "tiny.meta.json" for p in files)

    again = _cli(["report", *common], tmp_path, cli_env)
    assert again.returncode == 0 and "up to date" in again.stdout and "wrote:" not in again.stdout
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files} == before  # not even the sidecar

    md = tmp_path / "res" / "tables" / "tiny.md"
    md.write_text("edited by hand\n")  # a file of the set changed: rebuilt, the same bytes as before
    fixed = _cli(["report", *common], tmp_path, cli_env)
    assert "wrote:" in fixed.stdout and md.read_bytes() == before[md][1]

    # another dataset's rows: the report reads other rows, so it is rebuilt
    (conf / "experiment" / "tiny.yaml").write_text(
        (conf / "experiment" / "tiny.yaml").read_text().replace("[blobs, heart]", "[blobs, heart, sonar]"))
    assert _cli(["run", *common, "n_jobs=1", "progress=false"], tmp_path, cli_env).returncode == 0
    grown = _cli(["report", *common], tmp_path, cli_env)
    assert "wrote:" in grown.stdout and "sonar" in md.read_text()


def test_a_context_only_report_module_is_skipped_when_unchanged_and_others_always_rebuild(tmp_path, cli_env):
    """The generic report module reads nothing but the report context (``CONTEXT_ONLY = True``): an unchanged
    tiny report is up to date; a module of the user's beside it that does not declare it (it may read other
    files) makes the report rebuild every time. (A benchmark's report module: its own tests call
    context_only_checks.)"""
    import importlib
    assert importlib.import_module("randml_core.report.generic").CONTEXT_ONLY is True
    context_only_checks(tmp_path, cli_env, "tiny", "heart", "randml_core.report.generic")


def context_only_checks(tmp_path, cli_env, experiment: str, dataset: str, module: str) -> None:
    """``experiment`` (whose report is the context-only ``module``) on ``dataset``: a second report of an unchanged
    store is up to date; an experiment reporting with ``module`` and a module of the user's that does not declare
    it rebuilds every time (the benchmarks' tests run it on their own modules)."""
    common = [f"experiment={experiment}", f"dataset={dataset}", f"store_dir={tmp_path}/store",
              f"results_dir={tmp_path}/res", f"hydra.run.dir={tmp_path}/logs"]
    assert _cli(["run", *common, "n_jobs=1", "progress=false"], tmp_path, cli_env).returncode == 0
    first = _cli(["report", *common], tmp_path, cli_env)
    assert first.returncode == 0 and "wrote:" in first.stdout, first.stderr[-2000:]
    again = _cli(["report", *common], tmp_path, cli_env)
    assert again.returncode == 0 and "up to date" in again.stdout and "wrote:" not in again.stdout
    conf = tmp_path / "conf" / "experiment"
    conf.mkdir(parents=True)
    (conf / "both.yaml").write_text(
        f"# @package _global_\ndefaults:\n  - {experiment}\nexperiment:\n  name: both\n"
        f"  report: [{module}, extra_report]\n")
    (tmp_path / "conf" / "extra_report.py").write_text(
        "def build(ctx):\n    ctx.artefacts.write_text(ctx.results_dir / 'tables' / 'both_extra.md', 'extra\\n')\n")
    mixed = ["--config-dir", str(tmp_path / "conf"), "experiment=both", *common[1:]]
    assert _cli(["run", *mixed, "n_jobs=1", "progress=false"], tmp_path, cli_env).returncode == 0
    for _ in range(2):
        res = _cli(["report", *mixed], tmp_path, cli_env)
        assert res.returncode == 0 and "wrote:" in res.stdout and "both_extra.md" in res.stdout, res.stderr[-2000:]
