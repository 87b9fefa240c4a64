"""Build hook (the rest of the metadata is in pyproject.toml): a built wheel records the commit it was built from.

Written by hand because setuptools-scm would also derive the package version from git, and the version is part of
the cell keys of ``_target_`` models from this package (``randml==0.1.0``): it must not move with every commit.
``build_py`` writes ``randml_core/_build_info.json`` (``{"commit": ..., "dirty": ...}``) into the build tree, from
``git`` in the source folder, else ``$RANDML_BUILD_COMMIT`` / ``$RANDML_BUILD_DIRTY`` (a build from a copy without
``.git``), else ``"unknown"``. An editable install reads git directly (randml_core/provenance.py) and gets no file.
"""
import json
import os
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _git(*args):
    return subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True, check=True).stdout.strip()


def build_info() -> dict:
    try:
        if Path(_git("rev-parse", "--show-toplevel")).resolve() != HERE:
            raise OSError("the source folder is not a repository's root")  # a copy inside another repository
        dirty = bool(_git("status", "--porcelain", "--untracked-files=no", "--", "randml_core", "experiments", "conf"))
        return {"commit": _git("rev-parse", "HEAD"), "dirty": dirty}
    except (OSError, subprocess.CalledProcessError):
        commit = os.environ.get("RANDML_BUILD_COMMIT") or "unknown"
        dirty = os.environ.get("RANDML_BUILD_DIRTY", "1" if commit == "unknown" else "0") not in ("0", "false", "")
        return {"commit": commit, "dirty": dirty}


class StampedBuildPy(build_py):
    def run(self):
        super().run()
        if not self.editable_mode:
            target = Path(self.build_lib) / "randml_core" / "_build_info.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(build_info(), sort_keys=True) + "\n")


setup(cmdclass={"build_py": StampedBuildPy})
