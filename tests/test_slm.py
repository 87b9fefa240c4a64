"""Tests of the SLM / SLR models (randml_core.models.slm).

Every expected value is computed a different way from the code under test: brute-force
loops, closed forms, finite differences or hand-worked geometry.
"""

import math
from collections import Counter
from itertools import product

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from randml_core.models.slm import (
    SLMBoostClassifier,
    SLMBoostRegressor,
    SLMClassifier,
    SLMForestClassifier,
    SLMForestRegressor,
    SLMRegressor,
    discriminant_feature_test,
    route_codes,
)
from randml_core.models.slm_ensemble import _BinaryLogLoss, _MultinomialLogLoss, _SquaredError
from randml_core.models.slm_tree import _candidate_coefficients, _envelope, _sample_supports, _SLMTree


# ------------------------------------------------------------------------------ helpers
def _entropy_bits(labels):
    n = len(labels)
    return -sum(c / n * math.log2(c / n) for c in Counter(labels).values())


def _mse(values):
    m = sum(values) / len(values)
    return sum((v - m) ** 2 for v in values) / len(values)


def _brute_dft(x, y, n_bins, loss):
    """Eqs. (11)-(15) with plain Python loops: thresholds min + b (max - min) / B."""
    lo, hi = min(x), max(x)
    best, best_t = math.inf, None
    for b in range(1, n_bins):
        t = lo + b * (hi - lo) / n_bins
        left = [yy for xx, yy in zip(x, y) if xx < t]
        right = [yy for xx, yy in zip(x, y) if xx >= t]
        if not left or not right:
            continue
        c = (len(left) * loss(left) + len(right) * loss(right)) / len(x)
        if c < best - 1e-12:
            best, best_t = c, t
    return best, best_t


def _diagonal_band(n=81, delta=0.05):
    """Points on both sides of the line x1 + x2 = 0 at normal offset ±delta/sqrt(2).

    A hyperplane separates the classes only if its normal is within ~delta/2 rad of
    (1, 1)/sqrt(2); no integer vector with |a_1| <= 10, |a_2| <= 6 other than (1, 1) is.
    """
    t = np.linspace(-1, 1, n)
    X = np.vstack([np.column_stack([t, -t + delta]), np.column_stack([t, -t - delta])])
    y = np.r_[np.ones(n, int), np.zeros(n, int)]
    return X, y


# ------------------------------------------------------------------------- DFT (11)-(15)
def test_dft_hand_worked_example():
    # x = 0,1,2,3 with labels 0,1,0,1.  B = 2: t = 1.5, both sides {0,1} -> 1 bit.
    # B = 4: t = 0.75 -> left {0} (0 bit), right {1,0,1} (h(1/3) bits), weight 3/4.
    x = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 1, 0, 1])
    cost, thr = discriminant_feature_test(x, y, n_bins=2)
    assert cost[0] == pytest.approx(1.0) and thr[0] == pytest.approx(1.5)
    h13 = -(1 / 3) * math.log2(1 / 3) - (2 / 3) * math.log2(2 / 3)
    cost, thr = discriminant_feature_test(x, y, n_bins=4)
    assert cost[0] == pytest.approx(0.75 * h13) and thr[0] == pytest.approx(0.75)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_dft_matches_brute_force(task):
    rng = np.random.RandomState(0)
    # integer features on [0, 16]: with B = 16 every threshold is an integer, so many
    # samples sit exactly on a threshold and the ">= goes right" rule is exercised.
    X = rng.randint(0, 17, size=(40, 4)).astype(float)
    X[0, :] = 0
    X[1, :] = 16
    X[:, 3] = rng.rand(40) * 7 - 3  # plus one continuous feature
    if task == "classification":
        y = rng.randint(0, 3, size=40)
        loss = _entropy_bits
    else:
        y = rng.randn(40) * 5 + X[:, 0]
        loss = _mse
    cost, thr = discriminant_feature_test(X, y, n_bins=16, task=task)
    for d in range(X.shape[1]):
        c_ref, t_ref = _brute_dft(list(X[:, d]), list(y), 16, loss)
        assert cost[d] == pytest.approx(c_ref, rel=1e-10, abs=1e-12)
        assert thr[d] == pytest.approx(t_ref, rel=1e-12)


def test_dft_constant_feature_is_infinite():
    X = np.column_stack([np.ones(10), np.arange(10.0)])
    cost, thr = discriminant_feature_test(X, np.arange(10) % 2)
    assert np.isinf(cost[0]) and np.isnan(thr[0]) and np.isfinite(cost[1])


# ------------------------------------------------------------ projection vectors (19)-(22)
def test_envelope_matches_fig2_reading():
    # A_d = round(10 exp(-0.5 (d - 1))), d = 1..5, floor at 1: 10, 6.07, 3.68, 2.23, 1.35
    assert _envelope(5, 10.0, 0.5).tolist() == [10, 6, 4, 2, 1]


def test_exhaustive_grid_is_all_primitive_directions():
    A = _envelope(2, 10.0, 0.5)  # (10, 6): 21 * 13 = 273 points <= 1000, enumerated
    C = _candidate_coefficients(2, A, 1.0, 5, 1000, rng=None)  # no randomness used
    ref = set()
    for a, b in product(range(-10, 11), range(-6, 7)):
        if (a, b) == (0, 0):
            continue
        g = math.gcd(a, b)
        a, b = a // g, b // g
        if a < 0 or (a == 0 and b < 0):
            a, b = -a, -b
        ref.add((a, b))
    assert {tuple(r) for r in C.tolist()} == ref


def test_random_vectors_respect_envelope_and_selection_count():
    rng = np.random.RandomState(3)
    A = _envelope(8, 10.0, 0.5)
    C = _candidate_coefficients(8, A, 1.0, 3, 2000, rng)
    assert np.all(np.abs(C) <= A[None, :])
    assert np.all((C != 0).sum(axis=1) <= 3)
    assert len({tuple(r) for r in C.tolist()}) == len(C)  # de-duplicated
    for d in range(8):  # every basis vector is a candidate
        assert np.any(np.all(C == np.eye(8, dtype=int)[d], axis=1))
    # p_d decays with rank: the top feature is non-zero far more often than the last
    nz = (C != 0).mean(axis=0)
    assert nz[0] > 2 * nz[-1]


@pytest.mark.parametrize("n_selected", [1, 2])
def test_support_sampling_follows_eq19(n_selected):
    # p_d = exp(-alpha d) / Z; with P = 2 draws without replacement, coordinate d is in
    # the support with probability p_d + sum_{j != d} p_j p_d / (1 - p_j).
    alpha, D, n = 0.7, 5, 40000
    p = np.exp(-alpha * np.arange(1, D + 1))
    p /= p.sum()
    if n_selected == 1:
        incl = p
    else:
        incl = np.array([p[d] + sum(p[j] * p[d] / (1 - p[j]) for j in range(D) if j != d) for d in range(D)])
    mask = _sample_supports(n, D, alpha, n_selected, np.random.RandomState(0))
    assert np.all(mask.sum(axis=1) == n_selected)
    se = np.sqrt(incl * (1 - incl) / n)
    assert np.all(np.abs(mask.mean(axis=0) - incl) < 5 * se)


# ------------------------------------------------------------------ one SLM node split
def test_single_split_finds_the_known_oblique_hyperplane():
    X, y = _diagonal_band()
    # the best axis-aligned split is poor (independent check with sklearn's stump)
    stump = DecisionTreeClassifier(max_depth=1, criterion="entropy").fit(X, y)
    assert stump.score(X, y) < 0.8
    axis_cost, _ = discriminant_feature_test(X, y)
    assert axis_cost.min() > 0.4
    clf = SLMClassifier(max_depth=1, max_hyperplanes=1, random_state=0).fit(X, y)
    w = clf.tree_.weights[0][0] * np.sign(clf.tree_.weights[0][0][0])
    assert clf.tree_.features[0].tolist() in ([0, 1], [1, 0])
    w_full = np.zeros(2)
    w_full[clf.tree_.features[0]] = w
    np.testing.assert_allclose(w_full, [2**-0.5, 2**-0.5], atol=1e-12)
    assert clf.score(X, y) == 1.0
    assert clf.nodes_per_level_ == [1, 2] and clf.n_hyperplanes_ == 1


def test_single_slr_split_fits_an_oblique_step():
    X, c = _diagonal_band()
    y = np.where(c == 1, 3.0, -1.0)
    reg = SLMRegressor(max_depth=1, max_hyperplanes=1, random_state=0).fit(X, y)
    np.testing.assert_allclose(reg.predict(X), y, atol=1e-12)
    np.testing.assert_allclose(reg.predict([[0.5, 0.5], [-0.5, -0.5]]), [3.0, -1.0])


# ------------------------------------------------------------------- 2^q child routing
def test_route_codes_hand_example():
    proj = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    # bit j = [a_j^T x >= b_j], code = sum 2^j bit_j; equality goes to S_+ (Eq. 9)
    assert route_codes(proj, np.zeros(2)).tolist() == [0, 1, 2, 3, 3]
    proj3 = np.array([[5.0, 0.0, 2.0], [0.0, 0.0, 0.0]])
    assert route_codes(proj3, np.array([1.0, 1.0, 1.0])).tolist() == [1 + 4, 0]


def test_four_quadrants_give_a_four_way_split():
    g = np.linspace(0.1, 1.0, 10)
    pts = np.array(list(product(g, g)))
    X = np.vstack([pts * [sx, sy] for sx, sy in ((-1, -1), (1, -1), (-1, 1), (1, 1))])
    y = np.repeat([0, 1, 2, 3], len(pts))  # class = quadrant
    clf = SLMClassifier(max_depth=1, random_state=0).fit(X, y)
    t = clf.tree_
    assert clf.n_hyperplanes_ == 2 and clf.nodes_per_level_ == [1, 4] and clf.depth_ == 1
    assert clf.n_parameters_ == (2 + 1) * 2  # Eq. (37) with D0 = 2
    W = np.zeros((2, 2))
    W[:, t.features[0]] = t.weights[0]
    # the two hyperplanes are the axes (|cos| = 0 between them)
    np.testing.assert_allclose(np.sort(np.abs(W), axis=0), [[0, 0], [1, 1]], atol=1e-12)
    assert clf.score(X, y) == 1.0
    # each sample lands in the child indexed by its own sign pattern, computed here
    # one hyperplane at a time
    Xs = (X - clf.mean_) / clf.scale_
    code = np.zeros(len(X), int)
    for j in range(2):
        code += (Xs @ W[j] >= t.thresholds[0][j]).astype(int) << j
    np.testing.assert_array_equal(clf.apply(X), t.children[0][code])
    assert len(set(code.tolist())) == 4


def test_empty_cell_falls_back_to_parent_prediction():
    # hand-built tree: root cut by x0 >= 0 and x1 >= 0; cell code 2 (x0 < 0, x1 >= 0) empty
    t = _SLMTree()
    root = t.add_node(0, [0.5, 0.5], 4)
    kids = [t.add_node(1, v, 1) for v in ([1, 0], [0, 1], [0.25, 0.75])]
    t.features[root] = np.array([0, 1])
    t.weights[root] = np.eye(2)
    t.thresholds[root] = np.zeros(2)
    t.children[root] = np.array([kids[0], kids[1], -1, kids[2]])
    t.finalize()
    X = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    assert t.apply(X).tolist() == [1, 2, 0, 3, 3]
    np.testing.assert_allclose(t.predict_value(X)[2], [0.5, 0.5])
    assert t.nodes_per_level == [1, 3] and t.n_hyperplanes == 2 and t.n_parameters == 6


def test_model_size_attributes_are_consistent():
    X, y = make_moons(300, noise=0.25, random_state=1)
    X = np.column_stack([X, np.random.RandomState(1).randn(300, 4)])
    clf = SLMClassifier(n_discriminant=3, random_state=0, n_projections=300).fit(X, y)
    t = clf.tree_
    n_children = sum(int((c >= 0).sum()) for c in t.children if c is not None)
    assert sum(clf.nodes_per_level_) == 1 + n_children == t.node_count
    assert clf.depth_ == len(clf.nodes_per_level_) - 1
    assert clf.n_hyperplanes_ == sum(len(b) for b in t.thresholds if b is not None)
    assert clf.n_parameters_ == (3 + 1) * clf.n_hyperplanes_  # Eq. (37), D0 = 3
    assert all(len(f) == 3 for f in t.features if f is not None)


def test_max_discriminant_caps_d0_and_is_inert_below_the_cap():
    X, y = make_moons(300, noise=0.25, random_state=1)
    X = np.column_stack([X, np.random.RandomState(1).randn(300, 6)])  # D = 8
    # hand-worked D0: ceil(0.5 * 8) = 4, capped at 3; an int 6 capped at 3; None -> 8 -> 3
    from randml_core.models.slm_tree import _resolve_d0
    assert [_resolve_d0(0.5, 8, 3), _resolve_d0(6, 8, 3), _resolve_d0(None, 8, 3), _resolve_d0(0.5, 8)] == [3, 3, 3, 4]
    capped = SLMClassifier(n_discriminant=0.5, max_discriminant=3, random_state=0, n_projections=300).fit(X, y)
    assert all(len(f) == 3 for f in capped.tree_.features if f is not None)
    assert capped.n_parameters_ == (3 + 1) * capped.n_hyperplanes_  # Eq. (37) with D0 = 3
    # a cap >= D0 changes nothing: the same tree, node for node, for each estimator kind
    for cls, kw in ((SLMClassifier, dict(n_discriminant=0.5)),
                    (SLMForestClassifier, dict(n_estimators=3, exhaustive=False)),
                    (SLMBoostClassifier, dict(n_estimators=5, max_depth=2))):
        a = cls(random_state=0, n_projections=100, **kw).fit(X, y)
        b = cls(random_state=0, n_projections=100, max_discriminant=8, **kw).fit(X, y)
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
        c = cls(random_state=0, n_projections=100, max_discriminant=2, **kw).fit(X, y)
        assert c.n_parameters_ == 3 * c.n_hyperplanes_  # D0 = 2 under the cap
    with pytest.raises(ValueError, match="max_discriminant must be an integer >= 1"):
        SLMClassifier(max_discriminant=0).fit(X, y)


def test_stopping_rules():
    X, y = make_moons(200, noise=0.3, random_state=0)
    assert SLMClassifier(max_depth=2, random_state=0).fit(X, y).depth_ <= 2
    big = SLMClassifier(min_samples_split=60, random_state=0).fit(X, y)
    t = big.tree_
    assert all(t.n_samples[i] >= 60 for i in range(t.node_count) if not t.is_leaf(i))
    # min_loss: root entropy is exactly 1 bit (100 / 100), so 1.0 stops at the root
    assert SLMClassifier(min_loss=1.0, random_state=0).fit(X, y).nodes_per_level_ == [1]
    t = SLMClassifier(min_loss=0.9, random_state=0).fit(X, y).tree_
    entropy = [-(p[p > 0] * np.log2(p[p > 0])).sum() for p in t.value]
    assert all(entropy[i] > 0.9 for i in range(t.node_count) if not t.is_leaf(i))
    assert t.node_count > 1 and min(entropy) <= 0.9


# --------------------------------------------------------------------------- SLM Boost
def _fd(f, x, eps):
    return (f(x + eps) - f(x - eps)) / (2 * eps), (f(x + eps) - 2 * f(x) + f(x - eps)) / eps**2


@pytest.mark.parametrize("loss", [_BinaryLogLoss, _SquaredError])
def test_boost_gradient_hessian_scalar_losses(loss):
    rng = np.random.RandomState(0)
    y = rng.randint(0, 2, 20).astype(float) if loss is _BinaryLogLoss else rng.randn(20) * 3
    f = rng.randn(20) * 2
    g, h = loss.grad_hess(y, f[:, None])
    g_fd, _ = _fd(lambda z: loss.loss(y, z[:, None]), f, 1e-5)
    _, h_fd = _fd(lambda z: loss.loss(y, z[:, None]), f, 1e-3)
    np.testing.assert_allclose(g[:, 0], g_fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(h[:, 0], h_fd, rtol=1e-4, atol=1e-6)


def test_boost_gradient_hessian_multinomial():
    rng = np.random.RandomState(1)
    y = rng.randint(0, 4, 15)
    F = rng.randn(15, 4)
    g, h = _MultinomialLogLoss.grad_hess(y, F)
    for k in range(4):
        e = np.zeros_like(F)
        e[:, k] = 1.0

        def f(z, k=k):
            return _MultinomialLogLoss.loss(y, F + (z - F[:, k])[:, None] * e)

        g_fd, _ = _fd(f, F[:, k], 1e-5)
        _, h_fd = _fd(f, F[:, k], 1e-3)
        np.testing.assert_allclose(g[:, k], g_fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(h[:, k], h_fd, rtol=1e-4, atol=1e-6)


def test_boost_regressor_stumps_follow_closed_form():
    # depth-0 trees: every round adds lr * sum(y - f) / (n + lambda) to all samples, so
    # f_t = mean(y) (1 - (1 - c)^t) with c = lr n / (n + lambda)  (init 0, Eq. 27)
    rng = np.random.RandomState(0)
    X, y = rng.randn(30, 3), rng.randn(30) + 4.0
    lr, lam, n = 0.5, 2.0, 30
    reg = SLMBoostRegressor(n_estimators=6, max_depth=0, learning_rate=lr, reg_lambda=lam).fit(X, y)
    c = lr * n / (n + lam)
    for t, pred in enumerate(reg.staged_predict(X[:3]), start=1):
        np.testing.assert_allclose(pred, y.mean() * (1 - (1 - c) ** t), rtol=1e-12)
        np.testing.assert_allclose(
            reg.train_loss_[t - 1], np.mean(0.5 * (y - y.mean() * (1 - (1 - c) ** t)) ** 2), rtol=1e-12
        )


def test_boost_classifier_stumps_are_newton_steps():
    # depth-0 trees on binary log loss: scalar Newton steps f <- f - lr G / (H + lambda)
    rng = np.random.RandomState(0)
    X = rng.randn(40, 2)
    y = (rng.rand(40) < 0.8).astype(int)
    lr, lam = 0.3, 1.0
    clf = SLMBoostClassifier(n_estimators=5, max_depth=0, learning_rate=lr, reg_lambda=lam).fit(X, y)
    f = 0.0
    for raw in clf.staged_decision_function(X[:2]):
        p = 1 / (1 + math.exp(-f))
        G, H = sum(p - yi for yi in y), 40 * p * (1 - p)
        f -= lr * G / (H + lam)
        np.testing.assert_allclose(raw, f, rtol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_boost_staged_outputs_and_learning(n_classes):
    X, y = make_moons(300, noise=0.2, random_state=0)
    if n_classes == 3:
        y = np.where((y == 1) & (X[:, 0] > 1.0), 2, y)
    Xtr, ytr, Xte, yte = X[:200], y[:200], X[200:], y[200:]
    clf = SLMBoostClassifier(n_estimators=15, n_projections=200, random_state=0).fit(Xtr, ytr)
    staged = list(clf.staged_predict_proba(Xte))
    assert len(staged) == 15
    np.testing.assert_allclose(staged[-1], clf.predict_proba(Xte))
    np.testing.assert_allclose(staged[-1].sum(axis=1), 1.0)
    labels = list(clf.staged_predict(Xte))
    np.testing.assert_array_equal(labels[-1], clf.predict(Xte))
    # round 1 starts from f = 0 (all probabilities 1/K before it); loss goes down
    assert clf.train_loss_[0] < math.log(n_classes)
    assert clf.train_loss_[-1] < 0.5 * clf.train_loss_[0]
    assert np.mean(labels[-1] == yte) > 0.85
    assert len(clf.estimators_[0]) == (1 if n_classes == 2 else n_classes)


# -------------------------------------------------------------------------- SLM Forest
def test_forest_of_one_deterministic_tree_equals_the_tree():
    # 2 features -> D0 = 2 -> the integer grid (273 points) is enumerated: no randomness
    X, y = make_moons(200, noise=0.3, random_state=2)
    tree_a = SLMClassifier(random_state=1).fit(X, y)
    tree_b = SLMClassifier(random_state=99).fit(X, y)
    forest = SLMForestClassifier(n_estimators=1, random_state=5).fit(X, y)
    Xt = np.random.RandomState(0).uniform(-2, 3, size=(100, 2))
    np.testing.assert_array_equal(tree_a.predict_proba(Xt), tree_b.predict_proba(Xt))
    np.testing.assert_array_equal(forest.predict_proba(Xt), tree_a.predict_proba(Xt))
    np.testing.assert_array_equal(forest.predict(Xt), tree_a.predict(Xt))
    assert forest.n_hyperplanes_ == tree_a.n_hyperplanes_
    yr = X[:, 0] ** 2 + X[:, 1]
    np.testing.assert_array_equal(
        SLMForestRegressor(n_estimators=1, random_state=5).fit(X, yr).predict(Xt),
        SLMRegressor(random_state=0).fit(X, yr).predict(Xt),
    )


def test_forest_on_a_2d_set_is_diverse_only_when_not_exhaustive():
    # D0 = 2: the grid (21 x 13 = 273 points) fits in 300 projections. Enumerated (the paper's rule for a
    # small search space), every tree is the same tree; drawn at random (exhaustive=False), the trees differ.
    X, y = make_moons(200, noise=0.3, random_state=2)
    Xt = np.random.RandomState(0).uniform(-2, 3, size=(200, 2))
    same = SLMForestClassifier(n_estimators=4, n_projections=300, random_state=0).fit(X, y)
    p = [t.predict_proba(Xt) for t in same.estimators_]
    assert all(np.array_equal(q, p[0]) for q in p[1:])
    diverse = SLMForestClassifier(n_estimators=4, n_projections=300, exhaustive=False, random_state=0).fit(X, y)
    p = [t.predict_proba(Xt) for t in diverse.estimators_]
    assert not all(np.array_equal(q, p[0]) for q in p[1:])

    def hyperplanes(t):
        return b"".join(w.tobytes() + b.tobytes() for w, b in zip(t.tree_.weights, t.tree_.thresholds) if w is not None)
    assert len({hyperplanes(t) for t in diverse.estimators_}) >= 2  # random candidates: the trees differ
    assert len({hyperplanes(t) for t in same.estimators_}) == 1
    A = _envelope(2, 10.0, 0.5)
    C = _candidate_coefficients(2, A, 1.0, 5, 300, np.random.RandomState(1), exhaustive=False)
    assert np.all(np.abs(C) <= A[None, :]) and len(C) < 273  # a random part of the grid (duplicates merged)
    with pytest.raises(ValueError, match="exhaustive must be a bool"):
        SLMClassifier(exhaustive="no").fit(X, y)


def test_forest_staged_outputs_and_vote():
    rng = np.random.RandomState(0)
    X = rng.randn(150, 5)
    y = (X[:, 0] + X[:, 1] - X[:, 2] > 0).astype(int) + (X[:, 3] > 1)
    f = SLMForestClassifier(n_estimators=4, n_projections=100, max_depth=3, random_state=0).fit(X, y)
    Xt = rng.randn(40, 5)
    probas = [t.predict_proba(Xt) for t in f.estimators_]
    # trees differ (random projections) although all see the same data
    assert not all(np.array_equal(p, probas[0]) for p in probas[1:])
    for k, (sp, sl) in enumerate(zip(f.staged_predict_proba(Xt), f.staged_predict(Xt)), start=1):
        np.testing.assert_allclose(sp, sum(probas[:k]) / k)
        votes = np.array([[sum(np.argmax(p[i]) == c for p in probas[:k]) for c in range(3)] for i in range(40)])
        np.testing.assert_array_equal(sl, f.classes_[np.argmax(votes, axis=1)])
    assert k == 4
    fr = SLMForestRegressor(n_estimators=3, n_projections=100, max_depth=3, random_state=0).fit(X, X[:, 0])
    preds = [t.predict(Xt) for t in fr.estimators_]
    for k, sp in enumerate(fr.staged_predict(Xt), start=1):
        np.testing.assert_allclose(sp, sum(preds[:k]) / k)


def test_invalid_parameters_raise_in_fit():
    X, y = make_moons(40, random_state=0)
    for bad in (dict(n_bins=1), dict(cos_threshold=1.5), dict(n_discriminant=1.5), dict(max_hyperplanes=0)):
        clf = SLMClassifier(**bad)  # no validation in __init__
        with pytest.raises(ValueError):
            clf.fit(X, y)
    with pytest.raises(ValueError):
        SLMBoostClassifier(learning_rate=0).fit(X, y)
    with pytest.raises(ValueError):
        SLMForestClassifier(voting="soft-ish").fit(X, y)


# ------------------------------------------------------------- pickling (numba kernels)
@pytest.mark.parametrize(
    "make",
    [
        lambda: SLMClassifier(n_projections=60, random_state=0),
        lambda: SLMRegressor(n_projections=60, random_state=0),
        lambda: SLMForestClassifier(n_estimators=2, n_projections=40, random_state=0),
        lambda: SLMBoostClassifier(n_estimators=3, n_projections=40, random_state=0),
        lambda: SLMBoostRegressor(n_estimators=3, n_projections=40, random_state=0),
    ],
)
def test_pickled_model_predicts_the_same_and_refits_the_same(make):
    import pickle

    X, y = make_moons(150, noise=0.3, random_state=3)
    X = np.column_stack([X, np.random.RandomState(3).randn(150, 3)])
    est = make()
    if isinstance(est, (SLMRegressor, SLMBoostRegressor)):
        y = X[:, 0] - 2 * X[:, 1] ** 2
    est.fit(X, y)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    # an unfitted pickled estimator refits to the very same model
    again = pickle.loads(pickle.dumps(make())).fit(X, y)
    np.testing.assert_array_equal(again.predict(X), est.predict(X))


# ------------------------------------------------------------- scikit-learn conventions
# Small configurations keep the ~55 checks per estimator fast.  No check is expected
# to fail (SLMBoostClassifier raises a ValueError on one-class y, which
# check_classifiers_one_label accepts).  The only skip is scikit-learn's own:
# check_array_api_input skips itself unless SCIPY_ARRAY_API=1 is set (with it set the
# check passes for all six estimators).
@parametrize_with_checks(
    [
        SLMClassifier(n_projections=50, random_state=0),
        SLMRegressor(n_projections=30, min_samples_split=5, random_state=0),
        SLMForestClassifier(n_estimators=3, n_projections=30, random_state=0),
        SLMForestRegressor(n_estimators=3, n_projections=20, min_samples_split=5, random_state=0),
        SLMBoostClassifier(n_estimators=5, n_projections=30, random_state=0),
        SLMBoostRegressor(n_estimators=5, n_projections=30, random_state=0),
    ],
    expected_failed_checks=lambda est: {},
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
