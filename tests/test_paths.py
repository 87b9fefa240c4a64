"""randml_core/paths.py decides every default location once; the data sources and the checks memo ask it."""
from pathlib import Path

from randml_core import paths
from randml_core.checkmemo import cache_dir
from randml_core.data.sources.base import data_cache_root

from conftest import REPO


def test_a_source_checkout_keeps_its_caches_in_the_repository(monkeypatch):
    monkeypatch.delenv("RANDML_DATA_CACHE", raising=False)
    monkeypatch.delenv("RANDML_CHECKS_CACHE", raising=False)
    assert paths.source_checkout() == REPO
    assert data_cache_root() == REPO / "datasets" / "cache" == paths.data_cache()
    assert cache_dir() == REPO / ".cache" / "checks"
    assert paths.conf_dir() == REPO / "conf"


def test_an_installed_copy_uses_the_per_user_cache_and_the_variables_win(monkeypatch, tmp_path):
    monkeypatch.delenv("RANDML_DATA_CACHE", raising=False)
    monkeypatch.delenv("RANDML_CHECKS_CACHE", raising=False)
    monkeypatch.setattr(paths, "source_checkout", lambda: None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # platformdirs' per-user cache on Linux
    assert data_cache_root() == tmp_path / "xdg" / "randml" / "data"
    assert cache_dir() == tmp_path / "xdg" / "randml" / "checks"
    monkeypatch.setenv("RANDML_DATA_CACHE", str(tmp_path / "shared"))
    monkeypatch.setenv("RANDML_CHECKS_CACHE", str(tmp_path / "memo"))
    assert data_cache_root() == tmp_path / "shared" and cache_dir() == tmp_path / "memo"


def test_the_default_store_follows_the_working_directory(monkeypatch, tmp_path):
    monkeypatch.delenv("RANDML_STORE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert paths.default_store() == tmp_path / "results" / "store"
    monkeypatch.setenv("RANDML_STORE", "rel/store")
    assert paths.default_store() == Path(tmp_path / "rel" / "store")
