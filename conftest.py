"""Suite-wide fixtures, for the engine's tests (``tests/``) and each benchmark's (``experiments/<paper>/tests/``).
The suite is hermetic: it sees the same data on every machine.

At import (before any test, so subprocesses inherit it): downloads are forbidden
(``RANDML_OFFLINE=1``), optional system data such as Debian's Fashion-MNIST is hidden
(``RANDML_SYSTEM_DATA=0``) and the download cache is an empty session directory
(``RANDML_DATA_CACHE``; the model-check memo too, ``RANDML_CHECKS_CACHE``), so a warm ``datasets/cache`` on a developer's machine is never what makes a
test pass. In-process sockets are blocked by pytest-socket (``--disable-socket`` in pyproject.toml).
A test that wants the machine's optional data opts in with ``@pytest.mark.system_data`` and is
skipped, with the reason, where that data is absent.
"""
import atexit
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent


def in_repo(package: str) -> bool:
    """Whether the benchmark package ``package`` lives in this repository (not one installed into site-packages,
    which the venv inside the repository also holds): the engine's checks that name this repository's benchmarks
    leave another installed package's out (its name may be an ordinary word of the engine's text)."""
    from randml_core.plugins import folders
    return any(Path(f).resolve().is_relative_to(REPO) and "site-packages" not in Path(f).parts
               for f in folders(package))


def shipped(rel: str) -> Path:
    """The shipped config file ``rel`` (``"experiment/smoke.yaml"``) from the first shipped config dir that has it:
    the engine's conf/ or a benchmark's (randml_core/searchpath.py)."""
    from randml_core.paths import shipped_config_dirs
    for d in shipped_config_dirs():
        if (d / rel).is_file():
            return d / rel
    raise FileNotFoundError(f"no shipped config {rel}")

try:  # urllib3 probes IPv6 with a socket at import; let it do so before sockets are blocked
    import urllib3.util.connection  # noqa: F401
except ImportError:  # pragma: no cover
    pass

os.environ["RANDML_OFFLINE"] = "1"
os.environ["RANDML_SYSTEM_DATA"] = "0"
os.environ["RANDML_DATA_CACHE"] = tempfile.mkdtemp(prefix="randml-test-cache-")
os.environ["RANDML_CHECKS_CACHE"] = tempfile.mkdtemp(prefix="randml-test-checks-")  # randml_core/checkmemo.py
for _session_dir in (os.environ["RANDML_DATA_CACHE"], os.environ["RANDML_CHECKS_CACHE"]):  # gone after the run
    atexit.register(shutil.rmtree, _session_dir, ignore_errors=True)

# A suite started in the background (`make test &`, nohup) inherits SIGINT ignored, and so would every subprocess
# it starts: the Ctrl-C tests (tests/test_artefacts.py, test_store_faults.py) would then test nothing and fail.
# Python's own handler is restored; a caught signal is reset to the default at exec, so subprocesses get it too.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config):
    config.addinivalue_line("markers", "system_data: uses optional data installed on the machine by hand "
                                       "(skipped where absent)")


@pytest.fixture(autouse=True)
def _system_data_opt_in(request, monkeypatch):
    if request.node.get_closest_marker("system_data") is not None:
        monkeypatch.setenv("RANDML_SYSTEM_DATA", "1")


@pytest.fixture(autouse=True)
def _forget_unreachable_hosts():
    """A test that fakes a network failure must not make the next test's downloads fail fast."""
    yield
    base = sys.modules.get("randml_core.data.sources.base")
    if base is not None:
        base._UNREACHABLE.clear()


@pytest.fixture
def temp_dataset():
    """``make(name, X, y)`` registers a binary dataset of those arrays (tests/arrays.py) until the test ends, and
    returns its name."""
    from randml_core.data import DatasetSpec, register
    from randml_core.data.registry import unregister
    from tests.arrays import ArraySource
    names = []

    def make(name, X, y):
        register(DatasetSpec(name=name, task="binary", papers=(), sources=[ArraySource(X, y)], expected={},
                             licence="n/a", citation="n/a"), replace=True)
        names.append(name)
        return name
    yield make
    for n in names:
        unregister(n)


@pytest.fixture
def script():
    """``script("predict_scale")``: the module of ``scripts/predict_scale.py`` (scripts are not a package)."""
    import importlib.util

    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    return load


@pytest.fixture
def compose():
    """Compose the Hydra config with overrides and validate it into an ExperimentSpec."""
    from hydra import compose as hcompose, initialize_config_dir
    from omegaconf import OmegaConf
    from randml_core.config import build_spec

    def _compose(*overrides, raw=False):
        with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
            cfg = hcompose(config_name="config", overrides=list(overrides))
        container = OmegaConf.to_container(cfg, resolve=True)
        return container if raw else build_spec(container)
    return _compose


@pytest.fixture
def randml_cmd():
    """argv prefix that runs the CLI of this checkout."""
    return [sys.executable, "-m", "randml_core.cli"]


@pytest.fixture
def cli_env(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env
