"""numba and xgboost are the `papers` extra (only the SLM paper's models use them): without them the engine, a
user's config-only experiment and the other papers' families work, and an SLM experiment says what to install."""
import subprocess
import sys

# as if numba and xgboost were not installed: importing either raises ImportError
MISSING = "import sys\nsys.modules['numba'] = None\nsys.modules['xgboost'] = None\n"


def _run(code: str, cli_env, cwd):
    # a memo of its own: the simulated uninstall leaves the installed distributions (the memo's fingerprint) as
    # they are, so a memo filled by another test would skip the import this test is about
    env = dict(cli_env, RANDML_CHECKS_CACHE=str(cwd / "memo"))
    return subprocess.run([sys.executable, "-c", MISSING + code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_the_engine_and_the_other_papers_work_without_numba_and_xgboost(cli_env, tmp_path):
    out = _run("from randml_core.models import EEM, WELM\nfrom randml_core.family import FAMILIES\n"
               "names = FAMILIES.all()\nprint('eem' in names, 'memd' in names, 'slm_tree' in names)\n"
               "print(sorted(FAMILIES.unavailable))\n"
               "print(any(m in sys.modules and sys.modules[m] is not None for m in ('numba', 'xgboost')))",
               cli_env, tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    first, unavailable, imported = out.stdout.strip().split("\n")[-3:]
    assert first == "True True False" and unavailable == "['randml_papers.slm.families']" and imported == "False"


def test_an_slm_experiment_without_the_extra_is_a_config_error_naming_it(cli_env, tmp_path):
    args = ["plan", "experiment=slm_table1", "dataset=circle-and-ring", f"hydra.run.dir={tmp_path}/logs",
            f"store_dir={tmp_path}/store"]
    out = _run(f"from randml_core.cli import main\nmain({args!r})", cli_env, tmp_path)
    assert out.returncode == 2, out.stderr[-2000:]
    assert "pip install 'randml[papers]'" in out.stderr and "Traceback" not in out.stderr
    # and a user's config-only experiment runs
    conf = tmp_path / "conf" / "experiment"
    conf.mkdir(parents=True)
    (conf / "lr.yaml").write_text("# @package _global_\ndefaults:\n  - override /protocol: cv10\n"
                                  "protocol: {n_splits: 2}\nmodels:\n  lr: {estimator: {_target_: "
                                  "sklearn.linear_model.LogisticRegression}, variants: {LR: {}}}\n"
                                  "experiment:\n  name: lr\n  datasets: [iris]\n")
    run = ["run", "--config-dir", str(tmp_path / "conf"), "experiment=lr", f"hydra.run.dir={tmp_path}/logs",
           f"store_dir={tmp_path}/store", "n_jobs=1", "progress=false"]
    out = _run(f"from randml_core.cli import main\nmain({run!r})", cli_env, tmp_path)
    assert out.returncode == 0 and "computed 2 cells (0 failed" in out.stderr, out.stderr[-2000:]
