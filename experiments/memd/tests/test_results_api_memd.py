"""The make target that runs MeMd Table III, found in the benchmark's own make fragment (experiments/memd/memd.mk;
moved from tests/test_results_api.py, whose engine test reads the Makefile's leaderboard targets)."""
from randml_core.results import make_target


def test_table3_is_run_by_make_memd_table3():
    assert make_target("memd_table3") == "memd-table3"
