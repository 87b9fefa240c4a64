"""EEM's quick paper run from a non-editable install (moved unchanged from tests/test_install.py, whose engine tests
keep the install fixture and a user's config-only experiment): the papers are benchmark plug-ins found through the
installed entry points."""
from conftest import REPO
from tests.test_install import _randml, installed  # noqa: F401  (installed: the module-scoped fixture)


def test_a_papers_quick_experiment_runs_from_an_empty_directory(installed):  # noqa: F811
    """The papers are benchmark plug-ins found through the installed entry points (no checkout on the path):
    the README's quick paper run works from an empty directory, its report going to the user's results/."""
    env_dir, work, env, root = installed
    common = ["experiment=eem_table4", "profile=quick", "dataset=heart", "progress=false", "n_jobs=2"]
    run = _randml(installed, "run", *common)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "computed" in run.stderr and "(0 failed" in run.stderr
    report = _randml(installed, "report", *common)
    assert report.returncode == 0, report.stderr[-3000:]
    assert list((work / "results").rglob("eem_table4*.md"))  # in the user's directory
    assert not (REPO / "results" / "store" / "eem_table4").exists()
