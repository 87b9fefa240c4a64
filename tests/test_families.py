"""One common check for every accelerated family: its shared-work evaluator gives the same predictions
as the generic path (:func:`randml_core.family.evaluate_plain`: one plain fit of the family's estimator
per setting, same split, same seed). Families that run through evaluate_plain already (SLM, MeMd) are
the generic path; the analysis probes (eem_dcs_probe, pri_smo_sweep) predict nothing."""
import numpy as np
import pytest

from randml_core.data import load_dataset
from randml_core.family import FAMILIES, Split, evaluate_plain
from randml_core.preprocess import preprocess

ACCELERATED = {
    # family: (dataset, preprocessing, settings)
    "welm": ("heart", "minmax", [{"activation": a, "n_hidden": h} for a in ("sig", "rbf") for h in (10, 40)]),
    "eem": ("heart", "minmax", [{"activation": a, "n_hidden": h} for a in ("sig", "nsig") for h in (10, 40)]),
    "eekm": ("heart", "minmax", [{"n_hidden": h, "gamma": g} for h in (10, 40) for g in (0.1, 1.0)]),
    "lssvm": ("heart", "minmax", [{"gamma": g, "C": c} for g in (0.1, 1.0) for c in (1.0, 100.0)]),
    "svm": ("heart", "minmax", [{"gamma": g, "C": c} for g in (0.1, 1.0) for c in (1.0, 100.0)]),
    "elm_ridge_boost": ("digits-8x8", "none", [{"activation": a, "n_levels": n, "n_steps": 3, "alpha": 0.5,
                                                "ridge": 1.0} for a in ("tanh", "sign") for n in (1, 2)]),
}


#: families whose evaluator is evaluate_plain with extras (probabilities, staged predictions, model size)
PLAIN_WRAPPERS = {"memd", "memd_dme", "memd_linear_svm", "slm_boost", "slm_dt", "slm_forest", "slm_rf", "slm_svc",
                  "slm_tree", "slm_xgb", "slr_boost", "slr_dt", "slr_forest", "slr_rf", "slr_svr", "slr_tree", "slr_xgb"}
PROBES = {"eem_dcs_probe", "pri_smo_sweep"}  # analysis families: no predictions to compare


def test_every_family_with_its_own_evaluator_is_classified():
    """A new family with its own evaluator fails here until it is added to ACCELERATED (and so checked
    against the generic path), or named as a plain wrapper or a probe."""
    own = {name for name in FAMILIES.all() if FAMILIES[name].evaluate is not None  # the papers' families
           and FAMILIES[name].evaluate.__module__.startswith("experiments.")}  # (not test doubles)
    assert own - PLAIN_WRAPPERS - PROBES == set(ACCELERATED)


@pytest.mark.parametrize("name", list(ACCELERATED))
def test_shared_work_equals_the_generic_path(name):
    dataset, prep, settings = ACCELERATED[name]
    ds = load_dataset(dataset)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(ds.y))[:400]
    tr, te = idx[: 2 * len(idx) // 3], idx[2 * len(idx) // 3:]
    Xtr, Xte = preprocess(prep, ds.X[tr], ds.X[te])
    fam = FAMILIES[name]
    opts = {"preprocessing": prep}
    fast = fam.evaluate(Split(Xtr, ds.y[tr], Xte, 11, opts), settings)
    plain = evaluate_plain(fam, Split(Xtr, ds.y[tr], Xte, 11, opts), settings)
    for s, f, p in zip(settings, fast, plain):
        assert f.error is None and p.error is None, (s, f.error, p.error)
        np.testing.assert_array_equal(f.y_pred, p.y_pred, err_msg=f"{name} {s}")
