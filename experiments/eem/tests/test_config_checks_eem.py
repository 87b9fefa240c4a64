"""The EEM models' config checks (moved from tests/test_config_checks.py, whose engine cases run the engine's tiny
experiment): LS-SVM C=-1 and EEKM gamma=-1 were stored as ok; n_hidden=2.5 was fitted as 2 under another key; a
bogus activation of an EEM variant. Each is refused at compose, naming the key, the bad value and the fix."""
import pytest

from randml_core.config import ConfigError

BAD = [
    ("models.lssvm.grid.C=[-1.0]", "models.lssvm.grid.C=-1.0", "range"),
    ("models.eekm.grid.gamma=[-1.0]", "models.eekm.grid.gamma=-1.0", "range"),
    ("models.eem.grid.n_hidden=[2.5]", "models.eem.grid.n_hidden=2.5", "int"),
    ("models.eem.grid.n_hidden=[abc]", "models.eem.grid.n_hidden='abc'", "int"),
    ("models.eem.variants.EEM-sig.activation=bogus", "models.eem.variants.EEM-sig.activation='bogus'", "sig"),
    ("experiment.svm_max_iter=abc", "experiment.svm_max_iter='abc'", "integer"),
    ("experiment.svm_max_iter=0", "experiment.svm_max_iter=0", "positive"),
    ("models.svm.grid.C=[1.0,1.0]", "lists a value twice", "twice"),
]


@pytest.mark.parametrize("override,names,hint", BAD, ids=[b[0] for b in BAD])
def test_bad_eem_model_value_is_refused_with_key_and_hint(compose, override, names, hint):
    with pytest.raises(ConfigError) as ei:
        compose("experiment=smoke", override)
    msg = str(ei.value)
    assert names in msg and hint in msg, msg


def test_valid_values_pass_and_integral_floats_are_not_truncated(compose):
    spec = compose("experiment=smoke", "models.eem.grid.n_hidden=[10,30]", "n_jobs=-1")
    assert {s["n_hidden"] for v in spec.variants if v.family == "eem" for s in v.settings()} == {10, 30}


def test_quick_profile_applies_only_the_model_configs_own_quick_blocks(compose):
    paper, quick = compose("experiment=smoke"), compose("experiment=smoke", "profile=quick")
    grids = {v.family: v.grid for v in quick.variants}
    assert grids["svm"] == {"gamma": [0.1, 1.0], "C": [1.0, 100.0]}  # conf/model/svm.yaml quick block
    assert grids["welm"] == {"n_hidden": [100]}
    assert {v.family: v.grid for v in paper.variants}["welm"] == {"n_hidden": [10, 30]}  # smoke's own grid
