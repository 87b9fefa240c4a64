"""pri_quick (and elmboost_quick) are smoke runs of the papers' own configs: `snapshot: false`, so their report never
lands in the committed folders (moved unchanged from tests/test_artefacts.py, whose engine version runs the engine's
own leaderboard_quick)."""
import os
import subprocess
import sys

from conftest import REPO, shipped


def _env(**extra) -> dict:
    env = dict(os.environ, RANDML_OFFLINE="1", **extra)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_a_smoke_experiment_never_writes_into_the_committed_folders(tmp_path):
    # pri_quick, elmboost_quick and leaderboard_quick are their experiments' own configs, with
    # profile=paper in the Makefile; before `snapshot: false` their files landed untracked in results/
    for name in ("pri_quick", "elmboost_quick", "leaderboard_quick"):
        assert "snapshot: false" in shipped(f"experiment/{name}.yaml").read_text(), name
    res = tmp_path / "res"
    out = subprocess.run([sys.executable, "-m", "randml_core.cli", "report", "experiment=pri_quick", "profile=paper",
                          f"store_dir={tmp_path}/store", f"results_dir={res}", f"hydra.run.dir={tmp_path}/logs"],
                         cwd=REPO, env=_env(), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "experiment.snapshot=false: a smoke experiment" in out.stderr
    written = sorted(str(p.relative_to(res)) for p in res.rglob("*") if p.is_file())
    assert written and all(p.startswith("scratch/pri_quick/") for p in written), written
    assert "scratch/pri_quick/tables/pri_quick_report.md" in written
