"""EEM Table 4's report module declares ``CONTEXT_ONLY = True`` (moved from tests/test_report_cache.py, whose engine
version runs the generic report of the engine's tiny experiment): an unchanged smoke report is up to date; a
module of the user's beside it that does not declare it makes the report rebuild every time."""
import subprocess
import sys


def _cli(args, cwd, env):
    return subprocess.run([sys.executable, "-m", "randml_core", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_a_context_only_report_module_is_skipped_when_unchanged_and_others_always_rebuild(tmp_path, cli_env):
    """EEM Table 4's report module reads nothing but the report context (``CONTEXT_ONLY = True``): an unchanged
    smoke report is up to date; a module of the user's beside it that does not declare it (it may read other
    files) makes the report rebuild every time."""
    import importlib
    assert importlib.import_module("randml_papers.eem.table4").CONTEXT_ONLY is True
    assert not getattr(importlib.import_module("randml_papers.slm.table1"), "CONTEXT_ONLY", False)
    common = ["experiment=smoke", "dataset=synthetic-binary", f"store_dir={tmp_path}/store",
              f"results_dir={tmp_path}/res", f"hydra.run.dir={tmp_path}/logs"]
    assert _cli(["run", *common, "n_jobs=1", "progress=false"], tmp_path, cli_env).returncode == 0
    first = _cli(["report", *common], tmp_path, cli_env)
    assert first.returncode == 0 and "wrote:" in first.stdout, first.stderr[-2000:]
    again = _cli(["report", *common], tmp_path, cli_env)
    assert again.returncode == 0 and "up to date" in again.stdout and "wrote:" not in again.stdout
    conf = tmp_path / "conf" / "experiment"
    conf.mkdir(parents=True)
    (conf / "both.yaml").write_text(
        "# @package _global_\ndefaults:\n  - smoke\nexperiment:\n  name: both\n"
        "  report: [randml_papers.eem.table4, extra_report]\n")
    (tmp_path / "conf" / "extra_report.py").write_text(
        "def build(ctx):\n    ctx.artefacts.write_text(ctx.results_dir / 'tables' / 'both_extra.md', 'extra\\n')\n")
    mixed = ["--config-dir", str(tmp_path / "conf"), "experiment=both", *common[1:]]
    assert _cli(["run", *mixed, "n_jobs=1", "progress=false"], tmp_path, cli_env).returncode == 0
    for _ in range(2):
        res = _cli(["report", *mixed], tmp_path, cli_env)
        assert res.returncode == 0 and "wrote:" in res.stdout and "both_extra.md" in res.stdout, res.stderr[-2000:]
