"""family.maker: the estimator a cell fits is the one scikit-learn's clone + set_params give (the general path,
family.make_estimator over family.builder), whether it takes the direct path (a flat estimator's class called once)
or not; mutable constructor arguments are never shared between cells; an estimator clone refuses, a nested one,
or a parameter the template lacks takes the general path."""
import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from randml_core.family import _DIRECT, builder, make_estimator, maker, target_family

NODES = [
    ({"_target_": "sklearn.svm.SVC", "kernel": "rbf"}, [{"C": 3.0, "gamma": 0.5}, {"C": 0.1}], True),
    ({"_target_": "sklearn.ensemble.RandomForestClassifier", "n_estimators": 5}, [{"max_depth": 3}], True),
    ({"_target_": "sklearn.linear_model.LogisticRegression", "class_weight": {"0": 1.0, "1": 2.0}}, [{"C": 2.0}],
     True),
    ({"_target_": "sklearn.neighbors.KNeighborsClassifier"}, [{"n_neighbors": 3}], True),  # no random_state
    ({"_target_": "sklearn.pipeline.make_pipeline", "_args_": [{"_target_": "sklearn.preprocessing.StandardScaler"},
                                                               {"_target_": "sklearn.svm.SVC"}]},
     [{"svc__C": 2.0}], False),  # nested: the general path
]


def _params(est):
    """Every parameter, nested ones included (an estimator or a list of steps by its repr: a copy is not the same
    object)."""
    return {k: repr(v) if hasattr(v, "get_params") or isinstance(v, list) else v
            for k, v in est.get_params(deep=True).items()}


@pytest.mark.parametrize("node, settings, direct", NODES, ids=[n["_target_"].split(".")[-1] for n, _, _ in NODES])
def test_the_direct_path_builds_what_clone_and_set_params_build(node, settings, direct):
    family = target_family(node)
    make, build = maker(family), builder(family)
    assert (_DIRECT[family] is not None) is direct
    for params in settings:
        for seed in (0, 7):
            ours, general = make(params, seed), make_estimator(family, params, seed, build)
            assert type(ours) is type(general) and _params(ours) == _params(general)
            if "random_state" in ours.get_params():
                assert ours.get_params()["random_state"] == seed
    a, b = make(settings[0], 0), make(settings[0], 0)
    for k, v in a.get_params(deep=False).items():
        if isinstance(v, dict):  # class_weight
            assert v == b.get_params(deep=False)[k] and v is not b.get_params(deep=False)[k]  # copied per cell


def test_a_seed_in_the_params_wins_and_an_unknown_param_fails_as_set_params_does():
    family = target_family({"_target_": "sklearn.ensemble.RandomForestClassifier", "n_estimators": 3})
    make = maker(family)
    assert make({"random_state": 5}, 0).random_state == 5
    with pytest.raises(ValueError, match="Invalid parameter 'bogus'"):
        make({"bogus": 1}, 0)


class Doubling(ClassifierMixin, BaseEstimator):
    """An estimator whose __init__ changes its argument: clone refuses it."""

    def __init__(self, C=1.0):
        self.C = C * 2

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_an_estimator_clone_refuses_takes_the_general_path():
    family = target_family({"_target_": "tests.test_estimator_maker.Doubling"})
    make = maker(family)
    assert _DIRECT[family] is None
    est = make({"C": 3.0}, 0)
    assert est.C == 3.0  # set_params after the build, as the general path does (the direct path would give 6.0)
