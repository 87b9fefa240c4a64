"""Looking up a family of a benchmark listed before SLM imports neither SLM's families nor XGBoost, which they
import (moved from tests/test_plugins_common.py, whose engine check names no benchmark)."""
from randml_core import plugins, testing
from tests.test_plugins_common import families_lookup


def test_an_earlier_benchmarks_family_imports_neither_slm_nor_xgboost(cli_env):
    names = [name for name, _ in plugins.packages()]
    earlier = next(f for name in names[:names.index("slm")] for f in testing.families(name))
    [(found, loaded, imported)] = families_lookup([earlier], ["xgboost", "randml_papers.slm.families"], cli_env)
    assert found and "randml_papers.slm" not in loaded and imported == []
    [(found, loaded, imported)] = families_lookup(["slm_dt"], ["xgboost"], cli_env)
    assert found and "randml_papers.slm" in loaded and imported == ["xgboost"]
