"""`make lint` is part of `make test`: ruff's pyflakes and pycodestyle error rules ([tool.ruff] in pyproject.toml)
pass on the whole repo, so an unused import, an undefined name or a syntax slip fails CI."""
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _ruff() -> str:
    exe = Path(sys.executable).with_name("ruff")
    found = str(exe) if exe.exists() else shutil.which("ruff")
    assert found, "ruff is not installed: `make test` installs it with the dev extra (pip install -e '.[dev]')"
    return found


def test_repo_passes_ruff():
    out = subprocess.run([_ruff(), "check", "--no-cache", "--output-format", "concise", "."], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_catches_what_it_is_configured_for(tmp_path):
    """The repo's configuration flags an undefined name (and a file outside the repo is not excluded by it)."""
    bad = tmp_path / "probe.py"
    bad.write_text("def f():\n    return undefined_name_xyz\n")
    out = subprocess.run([_ruff(), "check", "--no-cache", "--config", str(REPO / "pyproject.toml"),
                          "--output-format", "concise", str(bad)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 1 and "F821" in out.stdout and "undefined_name_xyz" in out.stdout
