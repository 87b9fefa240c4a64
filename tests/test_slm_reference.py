"""The compiled SLM split search against the pure-numpy one it replaced.

``_ref_best_splits`` / ``_ref_best_splits_blocked`` / ``_ref_hist`` below are the
vectorised numpy split search (DFT of Eqs. 11-15 on every candidate projection) as it was
before the numba kernels of ``randml_core.models.slm_split_kernels``: a full float
(n, m) bin-index matrix, a near-boundary re-test, and ``np.bincount`` histograms;
``_ref_canonical_directions``, ``_ref_grow_tree_impl`` and ``_ref_apply`` are the numpy
candidate-pool reduction, tree growth and sample routing of the same version.  The fast
code must give bit-identical histograms, costs and thresholds, and whole trees / forests
/ boosted ensembles grown with either must be identical node for node, with identical
predictions.  Nothing here is a stored output of our own code: every expected value is
recomputed by the reference.
"""

import math
from collections import deque

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine, make_classification

from randml_core.models import slm_tree
from randml_core.models.slm import (
    SLMBoostClassifier,
    SLMBoostRegressor,
    SLMClassifier,
    SLMForestClassifier,
    SLMForestRegressor,
    SLMRegressor,
)
from randml_core.models.slm_tree import _EntropyCriterion, _MSECriterion, _NewtonCriterion
from randml_core.models.slm_split_kernels import canonical_rows


# ----------------------------------------------------------------- the slow reference
def _ref_hist(crit, flat, n_cells, node):
    """Per-cell sums with np.bincount over the row-major flattening of ``flat``."""
    if isinstance(crit, _EntropyCriterion):
        code = flat * crit.K + node[:, None]
        h = np.bincount(code.ravel(), minlength=n_cells * crit.K).astype(float)
        h = h.reshape(n_cells, crit.K)
        return np.concatenate([h.sum(axis=1, keepdims=True), h], axis=1)
    s = node[0] if isinstance(crit, _MSECriterion) else node
    out = np.empty((n_cells, 3))
    fl = flat.ravel()
    out[:, 0] = np.bincount(fl, minlength=n_cells)
    for j in (1, 2):
        w = np.broadcast_to(s[:, j : j + 1], flat.shape).ravel()
        out[:, j] = np.bincount(fl, weights=w, minlength=n_cells)
    return out


def _ref_bins(P, n_bins):
    """(bin index matrix, per-column min, width, ok, thresholds), all in numpy."""
    B = int(n_bins)
    pmin = P.min(axis=0)
    pmax = P.max(axis=0)
    width = (pmax - pmin) / B
    ok = pmax > pmin
    T = pmin[:, None] + width[:, None] * np.arange(1, B)[None, :]
    safe_w = np.where(ok, width, 1.0)
    q = (P - pmin) / safe_w
    idx = np.floor(q)
    tol = 1e-9 + 8 * np.finfo(float).eps * (np.abs(pmin) + np.abs(pmax)) / safe_w
    q -= idx
    near = (q < tol) | (q > 1.0 - tol)
    np.clip(idx, 0, B - 1, out=idx)
    r, c = np.nonzero(near)
    if r.size:
        v, k = P[r, c], idx[r, c]
        k -= (v < pmin[c] + width[c] * k) & (k > 0)
        k += (v >= pmin[c] + width[c] * (k + 1)) & (k < B - 1)
        idx[r, c] = k
    idx = idx.astype(np.intp)
    idx[:, ~ok] = 0
    return idx, ok, T


def _ref_H(P, crit, node, n_bins):
    idx, ok, T = _ref_bins(P, n_bins)
    m, B = P.shape[1], int(n_bins)
    flat = idx + np.arange(m)[None, :] * B
    return _ref_hist(crit, flat, m * B, node).reshape(m, B, -1), ok, T


def _ref_best_splits(P, crit, node, n_bins):
    H, ok, T = _ref_H(P, crit, node, n_bins)
    m = P.shape[1]
    left = np.cumsum(H, axis=1)[:, :-1, :]
    total = left[:, -1:, :] + H[:, -1:, :]
    right = total - left
    cost = crit.cost(left) + crit.cost(right)
    good = crit.valid(left) & crit.valid(right) & ok[:, None]
    cost = np.where(good, cost, np.inf)
    b = np.argmin(cost, axis=1)
    rows = np.arange(m)
    return cost[rows, b], T[rows, b]


def _ref_best_splits_blocked(X, W, crit, node, n_bins):
    n, m = X.shape[0], W.shape[0]
    step = max(1, slm_tree._BLOCK // max(n, 1))
    costs, thrs = np.empty(m), np.empty(m)
    for s in range(0, m, step):
        P = X @ W[s : s + step].T
        costs[s : s + step], thrs[s : s + step] = _ref_best_splits(P, crit, node, n_bins)
    return costs, thrs


def _ref_canonical_directions(C):
    """Candidate pool reduction in numpy: drop zero rows, divide by the gcd, first
    non-zero entry positive, unique rows (sorted)."""
    C = C[np.any(C != 0, axis=1)]
    g = np.gcd.reduce(np.abs(C), axis=1)
    C = C // g[:, None]
    first = np.argmax(C != 0, axis=1)
    sign = np.sign(C[np.arange(len(C)), first])
    C = C * sign[:, None]
    base = 2 * int(np.abs(C).max(initial=0)) + 1
    if C.shape[1] * math.log2(base) < 62:
        key = (C + base // 2) @ (base ** np.arange(C.shape[1] - 1, -1, -1, dtype=np.int64))
        _, first_rows = np.unique(key, return_index=True)
        return C[first_rows]
    return np.unique(C, axis=0)


def _ref_grow_tree_impl(X, crit, p, rng):
    """Breadth-first growth with the reference search and argsort / unique / split
    partitions of a node's samples into its cells."""
    n, D = X.shape
    d0 = slm_tree._resolve_d0(p["n_discriminant"], D, p.get("max_discriminant"))
    envelope_full = slm_tree._envelope(d0, p["envelope_scale"], p["envelope_decay"])
    tree = slm_tree._SLMTree()
    max_depth = np.inf if p["max_depth"] is None else p["max_depth"]
    eps = 1e-12 * crit.scale
    root_idx = np.arange(n)
    node = crit.node_stats(root_idx)
    tot = crit.totals(node)
    queue = deque([(tree.add_node(0, crit.value(tot), n), root_idx, node, tot)])
    while queue:
        nid, idx, node, tot = queue.popleft()
        depth = tree.depth[nid]
        ns = idx.size
        if depth >= max_depth or ns < p["min_samples_split"] or crit.loss(tot) <= p["min_loss"] + eps:
            continue
        Xn = X[idx]
        parent = crit.cost(tot)
        need = p.get("min_gain", 0.0) + 1e-9 * abs(parent) + eps * ns
        fcost, _ = _ref_best_splits(Xn, crit, node, p["n_bins"])
        forder = np.argsort(fcost, kind="stable")
        forder = forder[np.isfinite(fcost[forder])][:d0]
        if forder.size == 0:
            continue
        C = slm_tree._candidate_coefficients(
            forder.size, envelope_full[: forder.size], p["alpha"], p["n_selected"], p["n_projections"], rng
        )
        W = C / np.linalg.norm(C, axis=1, keepdims=True)
        Xs = Xn[:, forder]
        costs, thrs = _ref_best_splits_blocked(Xs, W, crit, node, p["n_bins"])
        costs = np.where(parent - costs > need, costs, np.inf)
        sel = slm_tree._select_minimax(W, costs, p["n_pool"], p["cos_threshold"], p["max_hyperplanes"])
        if sel.size == 0:
            continue
        Wsel, bsel = W[sel], thrs[sel]
        codes = slm_tree.route_codes(Xs @ Wsel.T, bsel)
        order = np.argsort(codes, kind="stable")
        ids, starts = np.unique(codes[order], return_index=True)
        if ids.size < 2:
            continue
        tree.features[nid] = forder
        tree.weights[nid] = Wsel
        tree.thresholds[nid] = bsel
        children = np.full(1 << sel.size, -1, dtype=np.intp)
        for code, part in zip(ids, np.split(idx[order], starts[1:])):
            cnode = crit.node_stats(part)
            ctot = crit.totals(cnode)
            cid = tree.add_node(depth + 1, crit.value(ctot), part.size)
            children[code] = cid
            queue.append((cid, part, cnode, ctot))
        tree.children[nid] = children
    return tree.finalize()


def _ref_apply(self, X):
    """_SLMTree.apply with argsort / unique / split."""
    out = np.zeros(X.shape[0], dtype=np.intp)
    stack = [(0, np.arange(X.shape[0]))]
    while stack:
        i, idx = stack.pop()
        if self.children[i] is None or idx.size == 0:
            out[idx] = i
            continue
        codes = slm_tree.route_codes(X[np.ix_(idx, self.features[i])] @ self.weights[i].T, self.thresholds[i])
        child = self.children[i][codes]
        miss = child < 0
        out[idx[miss]] = i
        idx, child = idx[~miss], child[~miss]
        order = np.argsort(child, kind="stable")
        idx, child = idx[order], child[order]
        ids, starts = np.unique(child, return_index=True)
        for c, part in zip(ids, np.split(idx, starts[1:])):
            stack.append((int(c), part))
    return out


@pytest.fixture
def reference_split_search(monkeypatch):
    """Context in which every SLM tree grows, and routes samples, with the reference."""

    def use():
        monkeypatch.setattr(slm_tree, "_best_splits", _ref_best_splits)
        monkeypatch.setattr(slm_tree, "_best_splits_blocked", _ref_best_splits_blocked)
        monkeypatch.setattr(slm_tree, "_canonical_directions", _ref_canonical_directions)
        monkeypatch.setattr(slm_tree, "_grow_tree_impl", _ref_grow_tree_impl)
        monkeypatch.setattr(slm_tree._SLMTree, "apply", _ref_apply)

    return use


# ------------------------------------------------------------------------ test inputs
def _criteria(rng, n):
    """Every criterion in the settings that take different code paths."""
    out = []
    for K in (2, 3, 5):
        if n >= K:
            y = rng.randint(0, K, n)
            y[:K] = np.arange(K)
            out.append(_EntropyCriterion(y, K, 1 if K != 3 else 4))
    out.append(_MSECriterion(rng.randn(n) * 3 + 1, 2))
    g, h = rng.randn(n), rng.rand(n) * 0.25
    out.append(_NewtonCriterion(g, h, 1.0, 1, 0.5))  # counts implied by min_child_weight
    out.append(_NewtonCriterion(g, h, 0.5, 3, 0.0))  # counts needed
    idx = np.arange(n)
    return [(c, c.node_stats(idx)) for c in out]


def _matrices():
    rng = np.random.RandomState(0)
    yield "gaussian", rng.randn(500, 40)
    # integer values on [0, 16]: with B = 16 many samples sit exactly on a threshold
    Z = rng.randint(0, 17, size=(300, 12)).astype(float)
    Z[0], Z[1] = 0, 16
    yield "ties-on-thresholds", Z
    # a constant column, a two-valued column, a column with one outlier
    C = rng.randn(200, 5)
    C[:, 1] = 3.25
    C[:, 2] = np.where(rng.rand(200) < 0.5, -1.0, 2.0)
    C[:, 3] = 0.0
    C[7, 3] = 1e-300
    yield "constant-and-degenerate", C
    # large offset: thresholds far from zero, float error in min + b * width matters
    yield "large-offset", 1e8 + rng.rand(400, 6) * 1e-3
    # thresholds recomputed: values placed exactly at min + b * width
    lo, wd = -0.3, 0.7 / 16
    E = lo + wd * rng.randint(0, 17, size=(250, 4)).astype(float)
    yield "exact-boundaries", E
    yield "tiny-2", rng.randn(2, 7)
    yield "tiny-3", np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0]])
    yield "projections", rng.randn(400, 8) @ rng.randint(-10, 11, size=(8, 60)).astype(float)


@pytest.mark.parametrize("name,P", list(_matrices()), ids=[n for n, _ in _matrices()])
@pytest.mark.parametrize("n_bins", [2, 16, 37])
def test_histograms_costs_thresholds_are_bit_identical(name, P, n_bins):
    rng = np.random.RandomState(len(name) + n_bins)
    for crit, node in _criteria(rng, P.shape[0]):
        H_ref, ok, T = _ref_H(P, crit, node, n_bins)
        pmin, pmax = slm_tree.column_min_max(np.ascontiguousarray(P))
        np.testing.assert_array_equal(pmin, P.min(axis=0))
        np.testing.assert_array_equal(pmax, P.max(axis=0))
        width = (pmax - pmin) / n_bins
        safe_w = np.where(ok, width, 1.0)
        tol = 1e-9 + 8 * np.finfo(float).eps * (np.abs(pmin) + np.abs(pmax)) / safe_w
        for got, want in zip(slm_tree.bin_setup(pmin, pmax, n_bins), (width, safe_w, tol, ok)):
            np.testing.assert_array_equal(got, want)
        H = crit.hist(np.ascontiguousarray(P), (pmin, safe_w, width, tol, ok, n_bins), node)
        assert H.shape == H_ref.shape
        if getattr(crit, "_counts_implied", False):  # column 0 (counts) is not accumulated
            H, H_ref = H[..., 1:], H_ref[..., 1:]
        np.testing.assert_array_equal(H, H_ref)  # counts and sums to the last bit
        c_ref, t_ref = _ref_best_splits(P, crit, node, n_bins)
        c, t = slm_tree._best_splits(P, crit, node, n_bins)
        np.testing.assert_array_equal(c, c_ref)
        np.testing.assert_array_equal(t, t_ref)


def test_canonical_directions_match_the_numpy_reduction():
    rng = np.random.RandomState(0)
    for t in range(200):
        d, n, A = rng.randint(1, 12), rng.randint(0, 300), rng.randint(1, 12)
        C = rng.randint(-A, A + 1, size=(n, d)).astype(np.int64)
        if t % 5 == 0:
            C[::3] = 0  # zero rows are dropped
        if t % 7 == 0:
            C = np.vstack([C, -4 * C])  # multiples collapse onto one direction
        got, want = slm_tree._canonical_directions(C), _ref_canonical_directions(C)
        assert got.dtype == want.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    big = rng.randint(-(10**6), 10**6, size=(40, 9)).astype(np.int64)  # no int64 key: np.unique rows
    np.testing.assert_array_equal(slm_tree._canonical_directions(big), _ref_canonical_directions(big))


def test_wide_sparse_candidates_keep_np_unique_order():
    """D0 >= 15: rows too wide for one int64 key go through the sparse key sort, which must
    give np.unique(axis=0)'s rows and order (the order breaks cost ties between candidates)."""
    rng = np.random.RandomState(1)
    used_sparse = 0
    for t in range(150):
        D, n, A = rng.randint(15, 160), rng.randint(1, 300), rng.randint(1, 11)
        P = rng.randint(1, 6) if t % 4 else rng.randint(1, D + 1)  # every 4th: dense rows, np.unique
        C = np.zeros((n, D), dtype=np.int64)
        for i in range(n):
            cols = rng.choice(max(P, rng.randint(1, D + 1)), size=P, replace=False)
            C[i, cols] = rng.randint(-A, A + 1, size=P)
        C = np.vstack([C, np.eye(D, dtype=np.int64), -3 * C[: n // 3]])  # basis rows, multiples
        rows, amax = canonical_rows(C.copy())
        used_sparse += slm_tree._sparse_lex_order(rows, 2 * int(amax) + 1) is not None
        np.testing.assert_array_equal(slm_tree._canonical_directions(C), _ref_canonical_directions(C))
    assert 100 <= used_sparse < 150  # both paths were exercised


def test_nan_column_is_unsplittable_as_in_the_reference():
    P = np.random.RandomState(4).randn(60, 4)
    P[5, 1] = np.nan
    P[0, 3] = np.nan  # NaN in the first row: the min / max must still propagate it
    for crit, node in _criteria(np.random.RandomState(5), 60):
        c, t = slm_tree._best_splits(P, crit, node, 16)
        with np.errstate(invalid="ignore"):  # the reference casts the NaN bins, then resets them
            c_ref, t_ref = _ref_best_splits(P, crit, node, 16)
        np.testing.assert_array_equal(c, c_ref)
        np.testing.assert_array_equal(t, t_ref)
        assert np.isinf(c[[1, 3]]).all() and np.isfinite(c[[0, 2]]).all()


def test_non_finite_and_underflowing_ranges_do_not_break_the_kernels():
    # bin width (5e-324 - 0) / 16 underflows to 0; inf makes the width inf: both columns
    # cannot be split, the finite one is unaffected
    X = np.column_stack([[0.0, 5e-324, 0.0, 5e-324], [0.0, 1.0, 2.0, 3.0], [1.0, np.inf, 2.0, 3.0]])
    crit = _EntropyCriterion(np.array([0, 1, 0, 1]), 2, 1)
    c, t = slm_tree._best_splits(X, crit, crit.node_stats(np.arange(4)), 16)
    c_ref, t_ref = _ref_best_splits(X[:, [1]], crit, crit.node_stats(np.arange(4)), 16)
    assert np.isinf(c[[0, 2]]).all()
    assert c[1] == c_ref[0] and t[1] == t_ref[0]


def test_fortran_ordered_input_gives_the_same_splits():
    P = np.asfortranarray(np.random.RandomState(1).randn(100, 9))
    crit, node = _criteria(np.random.RandomState(2), 100)[0]
    for got, want in zip(slm_tree._best_splits(P, crit, node, 16), _ref_best_splits(P, crit, node, 16)):
        np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------- whole models, seeds
def _tree_arrays(t):
    """Every stored number of a fitted _SLMTree, in node order."""
    out = [t.value, t.depth, t.n_samples]
    for i in range(t.node_count):
        for a in (t.features[i], t.weights[i], t.thresholds[i], t.children[i]):
            out.append(np.array([]) if a is None else a)
    return out


def _assert_same_trees(a, b):
    assert a.node_count == b.node_count
    for x, y in zip(_tree_arrays(a), _tree_arrays(b)):
        np.testing.assert_array_equal(x, y)


def _trees(est):
    if hasattr(est, "tree_"):
        return [est.tree_]
    if isinstance(est.estimators_[0], list):  # boosting: rounds x outputs
        return [t for rnd in est.estimators_ for t in rnd]
    return [e.tree_ for e in est.estimators_]


def _outputs(est, X):
    out = [est.predict(X)]
    if hasattr(est, "predict_proba"):
        out.append(est.predict_proba(X))
    return out


def _datasets():
    X, y = load_iris(return_X_y=True)
    yield "iris", X, y, "clf"
    X, y = load_wine(return_X_y=True)
    yield "wine", X, y, "clf"
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", X[::2], y[::2], "clf"
    X, y = make_classification(400, n_features=10, n_informative=6, n_redundant=2, random_state=0)
    yield "make_classification", X, y, "clf"
    X, y = load_diabetes(return_X_y=True)
    yield "diabetes", X[::2], y[::2], "reg"
    rng = np.random.RandomState(5)
    Xt = rng.randint(0, 4, size=(120, 5)).astype(float)  # heavy ties, duplicate rows
    Xt[:, 2] = 1.0  # a constant feature
    yield "ties-constant", Xt, (Xt[:, 0] + Xt[:, 1] + rng.randint(0, 2, 120) > 3).astype(int), "clf"
    yield "ties-constant-reg", Xt, Xt[:, 0] * 2.0 - Xt[:, 3] + rng.randn(120) * 0.1, "reg"
    yield "tiny", np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0], [4.0, 0.5]]), np.array(
        [0, 1, 0, 1, 1]
    ), "clf"


def _models(kind, seed):
    common = dict(n_projections=120, random_state=seed)
    if kind == "clf":
        return [
            SLMClassifier(n_discriminant=0.6, **common),
            SLMClassifier(min_samples_leaf=3, n_bins=8, max_hyperplanes=2, **common),
            SLMForestClassifier(n_estimators=3, **common),
            SLMBoostClassifier(n_estimators=4, **common),
            SLMBoostClassifier(n_estimators=3, min_child_weight=0.0, min_samples_leaf=2, **common),
        ]
    return [
        SLMRegressor(min_samples_split=5, **common),
        SLMForestRegressor(n_estimators=2, max_depth=6, **common),
        SLMBoostRegressor(n_estimators=4, **common),
    ]


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("name,X,y,kind", list(_datasets()), ids=[d[0] for d in _datasets()])
def test_models_match_the_reference_split_search(name, X, y, kind, seed, reference_split_search):
    fast = [m.fit(X, y) for m in _models(kind, seed)]
    Xq = np.vstack([X, X[:20] + 0.01 * np.random.RandomState(seed).randn(min(20, len(X)), X.shape[1])])
    fast_out = [_outputs(m, Xq) for m in fast]
    reference_split_search()
    slow = [m.fit(X, y) for m in _models(kind, seed)]
    for f, s, fo in zip(fast, slow, fast_out):
        tf, ts = _trees(f), _trees(s)
        assert len(tf) == len(ts)
        for a, b in zip(tf, ts):
            _assert_same_trees(a, b)
        for x, z in zip(fo, _outputs(s, Xq)):
            np.testing.assert_array_equal(x, z)
    # the reference really was swapped in (and the fast code out)
    assert slm_tree._best_splits is _ref_best_splits
    assert slm_tree._canonical_directions is _ref_canonical_directions
    assert slm_tree._grow_tree_impl is _ref_grow_tree_impl


def test_group_by_code_is_a_stable_argsort():
    rng = np.random.RandomState(0)
    for n, k in ((0, 1), (1, 2), (50, 2), (1000, 8), (333, 64)):
        codes = rng.randint(0, k, n).astype(np.intp)
        order, counts = slm_tree.group_by_code(codes, k)
        np.testing.assert_array_equal(order, np.argsort(codes, kind="stable"))
        np.testing.assert_array_equal(counts, np.bincount(codes, minlength=k))
