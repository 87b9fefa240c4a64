"""``backend=loky|dask|ray`` (randml_core/backends.py): the same stored frame whatever runs the tasks,
on local Dask and Ray clusters (TCP to 127.0.0.1 only), and bad choices refused before any work."""
import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from randml_core.cli import NEUTRAL_OVERRIDES
from randml_core.config import ConfigError
from randml_core.runner import VOLATILE_COLUMNS, make_plan, run
from randml_core.store import Store

SMALL = ("experiment=tiny", "dataset=heart", "protocol.repeats=2")  # 2 repeats x 3 folds = 6 tasks x 9 cells = 54
local_tcp = pytest.mark.allow_hosts(["127.0.0.1"])  # pytest-socket: sockets on, connections to 127.0.0.1 only
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"


def stable(frame):
    cols = sorted(c for c in frame.columns if c not in VOLATILE_COLUMNS)
    return frame[cols].sort_values("key").reset_index(drop=True)


def installed(module):
    return importlib.util.find_spec(module) is not None


@pytest.fixture(scope="module")
def loky_frame(tmp_path_factory):
    """The reference: the tiny run (heart) on loky with 2 worker processes."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from randml_core.config import build_spec
    with initialize_config_dir(config_dir=str(Path(__file__).resolve().parent.parent / "conf"), version_base="1.3"):
        spec = build_spec(OmegaConf.to_container(compose(config_name="config", overrides=list(SMALL)), resolve=True))
    store = tmp_path_factory.mktemp("loky")
    assert run(spec, str(store), n_jobs=2, progress=False).computed == 54
    return stable(Store(store, "tiny").read())


def check_equal(frame, loky_frame, store: Path):
    assert len(frame) == 54 and stable(frame).equals(loky_frame)
    assert list((store / "tiny" / "leases").glob("*.lease")) == []


# -- bit-identical frames -------------------------------------------------------------------------
@local_tcp
@pytest.mark.skipif(not installed("distributed"), reason="dask is not installed: pip install -e '.[dask]'")
def test_dask_local_cluster_stores_lokys_frame(compose, tmp_path, loky_frame):
    s = run(compose(*SMALL, "backend=dask"), str(tmp_path), n_jobs=2, progress=False, backend="dask")
    assert (s.computed, s.failed) == (54, 0)
    check_equal(Store(tmp_path, "tiny").read(), loky_frame, tmp_path)


@pytest.mark.slow
@local_tcp
@pytest.mark.skipif(not installed("distributed"), reason="dask is not installed: pip install -e '.[dask]'")
def test_dask_existing_cluster_by_address(compose, tmp_path, loky_frame):
    """backend_address: the run connects to a running scheduler (here a local one of 2 workers)."""
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cluster:
        spec = compose(*SMALL, "backend=dask", f"backend_address={cluster.scheduler_address}")
        s = run(spec, str(tmp_path), n_jobs=1, progress=False, backend="dask",
                backend_address=cluster.scheduler_address)
        with Client(cluster) as client:  # this cluster's scheduler ran the run's tasks
            prefixes = client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
        assert any("_as_under_loky" in p for p in prefixes), prefixes
    assert s.computed == 54
    check_equal(Store(tmp_path, "tiny").read(), loky_frame, tmp_path)


@local_tcp
@pytest.mark.skipif(not installed("ray"), reason="ray is not installed: pip install -e '.[ray]'")
def test_ray_local_cluster_stores_lokys_frame(compose, tmp_path, loky_frame):
    import ray
    s = run(compose(*SMALL, "backend=ray"), str(tmp_path), n_jobs=2, progress=False, backend="ray")
    assert (s.computed, s.failed) == (54, 0)
    assert not ray.is_initialized()  # the run's own local Ray is shut down
    check_equal(Store(tmp_path, "tiny").read(), loky_frame, tmp_path)


# -- refused before any work ----------------------------------------------------------------------
def test_unknown_backend_is_refused_naming_the_choices(compose, tmp_path):
    with pytest.raises(ConfigError, match=r"backend='lokky' is unknown; did you mean 'loky'\? choose one of "
                                          r"loky, dask, ray"):
        compose(*SMALL, "backend=lokky")
    with pytest.raises(ConfigError, match="backend='spark' is unknown"):
        run(compose(*SMALL), str(tmp_path / "s"), backend="spark")
    with pytest.raises(ConfigError, match=r"backend_address='tcp://127.0.0.1:8786' is set but backend=loky"):
        compose(*SMALL, "backend_address=tcp://127.0.0.1:8786")
    assert not (tmp_path / "s").exists()  # nothing was written


@pytest.mark.parametrize("backend,module", [("dask", "distributed"), ("ray", "ray")])
def test_missing_package_is_refused_with_the_install_command(compose, tmp_path, monkeypatch, backend, module):
    spec = compose(*SMALL)
    monkeypatch.setitem(sys.modules, module, None)  # `import <module>` now fails, as when not installed
    fix = rf"backend={backend} needs the '{module}' package, which is not installed: pip install -e '\.\[{backend}\]'"
    with pytest.raises(ConfigError, match=fix):
        compose(*SMALL, f"backend={backend}")
    with pytest.raises(ConfigError, match=fix):
        run(spec, str(tmp_path / "s"), backend=backend)
    assert not (tmp_path / "s").exists()


def test_cli_refuses_an_unknown_backend_with_exit_2(randml_cmd, cli_env, tmp_path):
    out = subprocess.run([*randml_cmd, "run", *SMALL, "backend=spark", f"store_dir={tmp_path}/s",
                          f"hydra.run.dir={tmp_path}/logs"], env=cli_env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "config error: backend='spark' is unknown; choose one of loky, dask, ray" in out.stderr
    assert not (tmp_path / "s").exists()


def test_backend_is_an_execution_option_not_part_of_a_cell(compose):
    """Like n_jobs: the config hash, the cell keys and the committed-report check ignore it."""
    plain = compose(*SMALL)
    other = compose(*SMALL, "backend=dask", "backend_address=tcp://10.0.0.1:8786") if installed("distributed") \
        else compose(*SMALL, "n_jobs=7")
    assert plain.config_hash() == other.config_hash()
    assert [c.key for _, c in make_plan(plain).cells()] == [c.key for _, c in make_plan(other).cells()]
    assert {"backend", "backend_address", "n_jobs"} <= NEUTRAL_OVERRIDES


# -- no orphans -----------------------------------------------------------------------------------
def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not installed("distributed"), reason="dask is not installed: pip install -e '.[dask]'")
def test_dask_workers_die_with_a_killed_run(tmp_path, randml_cmd, cli_env):
    """SIGKILL of a backend=dask run while its local workers compute: no worker is left after 10 s."""
    proc = subprocess.Popen([*randml_cmd, "run", "experiment=tiny", "protocol.repeats=30", "backend=dask",
                             "n_jobs=2", "progress=false", f"store_dir={tmp_path}/s", f"hydra.run.dir={tmp_path}/logs"],
                            env=cli_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and not list((tmp_path / "s" / "tiny").glob("part-*.parquet")):
        time.sleep(0.2)
    kids = _children(proc.pid)
    assert len(kids) >= 2, "the run did not start its dask workers"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    end = time.time() + 10
    while time.time() < end and any(_alive(k) for k in kids):
        time.sleep(0.5)
    left = [k for k in kids if _alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    assert left == [], f"orphans after SIGKILL: {left}"
