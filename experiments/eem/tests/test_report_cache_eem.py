"""EEM Table 4's report module declares ``CONTEXT_ONLY = True`` (moved from tests/test_report_cache.py, whose engine
version runs the generic report of the engine's tiny experiment): an unchanged smoke report is up to date; a
module of the user's beside it that does not declare it makes the report rebuild every time."""
from tests.test_report_cache import context_only_checks


def test_a_context_only_report_module_is_skipped_when_unchanged_and_others_always_rebuild(tmp_path, cli_env):
    """EEM Table 4's report module reads nothing but the report context (``CONTEXT_ONLY = True``): an unchanged
    smoke report is up to date; a module of the user's beside it that does not declare it (it may read other
    files) makes the report rebuild every time."""
    import importlib
    assert importlib.import_module("randml_papers.eem.table4").CONTEXT_ONLY is True
    assert not getattr(importlib.import_module("randml_papers.slm.table1"), "CONTEXT_ONLY", False)
    context_only_checks(tmp_path, cli_env, "smoke", "synthetic-binary", "randml_papers.eem.table4")
