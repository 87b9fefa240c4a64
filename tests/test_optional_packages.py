"""numba and xgboost are the `papers` extra, not the engine's: without them the engine runs its own tiny experiment
(a benchmark's side, its families unavailable and its experiments naming the extra, is in that benchmark's
tests)."""
import subprocess
import sys

# as if numba and xgboost were not installed: importing either raises ImportError
MISSING = "import sys\nsys.modules['numba'] = None\nsys.modules['xgboost'] = None\n"


def test_the_engine_runs_experiment_tiny_without_numba_and_xgboost(cli_env, tmp_path):
    code = ("from randml_core.results import compose_spec\nfrom randml_core.runner import run\n"
            "spec = compose_spec('tiny', ['dataset=heart', 'model=svc'])\n"
            f"s = run(spec, {str(tmp_path / 'store')!r}, n_jobs=1, progress=False)\n"
            "print(s.computed, s.failed)\n"
            "print(any(m in sys.modules and sys.modules[m] is not None for m in ('numba', 'xgboost')))")
    # a memo of its own: the simulated uninstall leaves the installed distributions (the memo's fingerprint) as they
    # are, so a memo filled by another test would skip the import this test is about
    env = dict(cli_env, RANDML_CHECKS_CACHE=str(tmp_path / "memo"))
    out = subprocess.run([sys.executable, "-c", MISSING + code], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    counts, imported = out.stdout.strip().split("\n")[-2:]
    assert counts == "12 0" and imported == "False"  # heart, SVC-rbf 2 x 2 grid, 3 folds: 3 x 4 cells
