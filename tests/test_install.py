"""A non-editable install, used from an empty directory outside the repository: `randml --version` and a user's
config-only experiment end to end (run, plan, status, report, compare, load()), with the engine's default
configs from the install (<prefix>/share/randml/conf) and the caches in per-user / working-directory places.

Offline: the wheel is built without build isolation from a copy of the sources, into a fresh venv that sees
the dev venv's packages through a path entry (their .pth hooks, such as the editable install of this
checkout, are not run, so nothing of the checkout is importable there)."""
import os
import shutil
import subprocess
import sys
import venv

import pytest

from conftest import REPO

EXPERIMENT = """# @package _global_
defaults:
  - override /protocol: cv10
protocol: {n_splits: 3, inner_splits: 2}
models:
  lr:
    estimator: {_target_: sklearn.linear_model.LogisticRegression, max_iter: 500}
    variants: {LR: {}}
    grid: {C: [0.1, 1.0]}
  knn:
    estimator: {_target_: sklearn.neighbors.KNeighborsClassifier}
    variants: {kNN: {}}
    grid: {n_neighbors: [3, 7]}
experiment:
  name: okcls
  datasets: [blobs, iris]
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    root = tmp_path_factory.mktemp("install")
    src = root / "src"
    for part in ("randml_core", "experiments", "conf"):
        shutil.copytree(REPO / part, src / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for part in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy(REPO / part, src / part)
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    site = next((env_dir / "lib").glob("python3*/site-packages"))
    deps = next(p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p))
    (site / "zz_dev_packages.pth").write_text(deps + "\n")  # the dev venv's packages, after the new venv's own
    for old in [*site.glob("setuptools*"), *site.glob("_distutils_hack"), *site.glob("distutils-precedence.pth")]:
        # ensurepip's setuptools (65 on Python 3.11) predates the SPDX licence of pyproject.toml (setuptools >= 77):
        # the build uses the dev venv's, as `make venv` installs it (the dev extra)
        shutil.rmtree(old) if old.is_dir() else old.unlink()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RANDML_", "PYTHONPATH"))}
    env.update(XDG_CACHE_HOME=str(root / "user-cache"), PATH=f"{env_dir / 'bin'}{os.pathsep}{env['PATH']}")
    # the copy has no .git: the build hook (setup.py) takes the commit from the environment, as a build from a copy
    stamp = {"RANDML_BUILD_COMMIT": "0123456789abcdef0123456789abcdef01234567", "RANDML_BUILD_DIRTY": "0"}
    out = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "--no-deps", "--no-build-isolation",
                          "--no-index", "--quiet", str(src)], cwd=root, env={**env, **stamp}, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    work = root / "empty"
    (work / "proj" / "dataset").mkdir(parents=True)
    (work / "proj" / "experiment").mkdir()
    for f in ("blobs.yaml", "blobs.csv"):
        shutil.copy(REPO / "examples" / "byo" / "dataset" / f, work / "proj" / "dataset" / f)
    (work / "proj" / "experiment" / "okcls.yaml").write_text(EXPERIMENT)
    return env_dir, work, env, root


def _randml(installed, *args):
    env_dir, work, env, _ = installed
    return subprocess.run([str(env_dir / "bin" / "randml"), *args], cwd=work, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_installed_copy_is_not_the_checkout(installed):
    env_dir, work, env, _ = installed
    where = subprocess.run([str(env_dir / "bin" / "python"), "-c", "import randml_core, randml_core.paths as p; "
                            "print(randml_core.__file__); print(p.conf_dir()); print(p.source_checkout())"],
                           cwd=work, env=env, capture_output=True, text=True, timeout=120)
    module, conf, checkout = where.stdout.split("\n")[:3]
    assert module.startswith(str(env_dir)) and not module.startswith(str(REPO))
    assert conf == str(env_dir / "share" / "randml" / "conf") and checkout == "None"
    assert (env_dir / "share" / "randml" / "conf" / "model" / "logreg.yaml").is_file()
    version = _randml(installed, "--version")
    # the commit the wheel was built from, not "unknown+dirty"
    assert version.returncode == 0 and version.stdout.strip() == "randml 0.1.0 (code 0123456789)"


def test_a_users_config_only_experiment_runs_end_to_end_from_an_empty_directory(installed):
    env_dir, work, env, root = installed
    common = ["--config-dir", "proj", "experiment=okcls", "progress=false"]
    run = _randml(installed, "run", *common)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "computed 72 cells (0 failed" in run.stderr  # (2 + 2 settings) x 2 sets x (3 outer + 3 x 2 inner)
    for cmd, says in [("plan", "0 task(s) to run"), ("status", "total: 72 done, 0 skipped by rule, 0 failed, 0 missing"),
                      ("report", "results/tables/okcls.md")]:
        out = _randml(installed, cmd, *common)
        assert out.returncode == 0 and says in out.stdout, (cmd, out.stdout[-1500:], out.stderr[-1500:])
    compare = _randml(installed, "compare", *common, "models=[LR,kNN]", "rule=nested")
    assert compare.returncode == 0 and "significant" in compare.stdout, compare.stderr[-2000:]
    assert (work / "results" / "store" / "okcls").is_dir() and (work / "results" / "tables" / "okcls.md").is_file()
    stamped = subprocess.run([str(env_dir / "bin" / "python"), "-c",
                              "from randml_core.results import load; f = load('okcls', config_dir='proj'); "
                              "print(sorted(set(f['code_version'])), sorted(set(f['code_dirty'])))"],
                             cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert stamped.stdout.strip() == "['0123456789abcdef0123456789abcdef01234567'] [False]", stamped.stderr[-2000:]
    loaded = subprocess.run([str(env_dir / "bin" / "python"), "-c",
                             "from randml_core.results import load; f = load('okcls', config_dir='proj'); "
                             "print(len(f), f.attrs['complete'], sorted(set(f['model'])))"],
                            cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert loaded.stdout.split("\n")[0] == "24 True ['LR', 'kNN']", loaded.stderr[-2000:]  # 4 settings x 2 sets x 3
    # the checks memo went to the per-user cache, nothing into the installed package or the checkout
    assert list((root / "user-cache" / "randml" / "checks").glob("checks-*.json"))
    assert not (REPO / "results" / "store" / "okcls").exists()
