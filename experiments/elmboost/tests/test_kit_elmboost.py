"""This benchmark under the plug-in kit (randml_core.testing): its shared-work families are the ones the kit's
shared-work check covers (a guard against a check dropped); the checks themselves run in tests/test_plugin_kit.py."""
from randml_core import plugins, testing
from randml_core.family import FAMILIES


def test_elmboost_is_installed_and_its_shared_work_families_are_checked():
    assert "elmboost" in dict(plugins.packages())
    checked = sorted(f for f in testing.families("elmboost") if isinstance(FAMILIES[f].check, tuple))
    assert checked == ['elm_ridge_boost']
    assert {f"family:{f}" for f in checked} <= {c.id for c in testing.checks("elmboost")}
