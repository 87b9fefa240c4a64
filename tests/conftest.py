import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


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
