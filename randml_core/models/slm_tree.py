"""Subspace Learning Machine trees (Fu, Yang, Mishra, Kuo, arXiv 2205.05296).

One algorithm of one paper in one module (split search, tree growth, routing); the compiled kernels
are apart in slm_split_kernels.py.

One SLM tree (classification, Sec. II) and one SLR tree (regression, Sec. V), plus the
shared machinery the ensembles in :mod:`randml_core.models.slm_ensemble` reuse: the
discriminant feature test (DFT, Eqs. 11-15), the probabilistic integer projection
vectors (Eqs. 16-22), the mini-max cosine selection of q hyperplanes (Eqs. 23-24) and
the 2^q-ary node split (Sec. II-B4).  Equation numbers follow the paper; the paper's
text lost its formulas, so they are read from ``shared/papers/slm_equations.md``.

A node's split search projects its samples on all candidate vectors at once (one BLAS
product per block of candidates) and bins / histograms / scores every projection in the
compiled loops of :mod:`.slm_split_kernels`, which reproduce the float operations of the
earlier numpy code bit for bit (that code is kept as a reference in
``tests/test_slm_reference.py``).
"""

from __future__ import annotations

import math
from collections import deque
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from .slm_split_kernels import (
    best_per_column,
    bin_setup,
    class_histograms,
    column_min_max,
    canonical_rows,
    entropy_split_costs_binary,
    entropy_terms,
    group_by_code,
    mse_split_costs,
    newton_split_costs,
    weighted_histograms,
)

__all__ = [
    "SLMClassifier",
    "SLMRegressor",
    "discriminant_feature_test",
]

# Largest (n_samples * n_candidates) block handled at once by the split search.
_BLOCK = 4_000_000


# --------------------------------------------------------------------------------------
# Split criteria.  Each works on per-bin sums of per-sample statistics; column 0 of the
# sums is always the sample count.  ``cost`` returns the *total* cost of a set, so the
# cost of a split is cost(left) + cost(right); divided by the node size it is Eq. (13).
# --------------------------------------------------------------------------------------
def _xlog2x(c):
    c = np.asarray(c, dtype=float)
    return c * np.log2(np.where(c > 0, c, 1.0))


class _EntropyCriterion:
    """Eq. (14): N * H(p) with H in bits, from class counts (sums = [count, counts...])."""

    def __init__(self, y_codes, n_classes, min_samples_leaf):
        self.y = np.asarray(y_codes, dtype=np.intp)
        self.K = int(n_classes)
        self.min_samples_leaf = min_samples_leaf
        self.scale = 1.0
        self._xl = None

    def node_stats(self, idx):
        return self.y[idx]

    def totals(self, yn):
        counts = np.bincount(yn, minlength=self.K).astype(float)
        return np.concatenate([[counts.sum()], counts])

    def hist(self, P, bins, yn):
        # (m, B, 1 + K): [count, class counts] of every (candidate, bin) cell.
        return class_histograms(P, *bins, yn, self.K)

    def split_costs(self, H):
        """cost(left) + cost(right) for every bin boundary of H (m, B, 1 + K); inf if invalid.

        c log2 c is looked up in a table made by ``_xlog2x`` itself (counts are exact
        integers), and the class terms are summed by numpy as in ``cost``, so the values
        are those of ``cost(left) + cost(right)``.
        """
        if self._xl is None:
            self._xl = _xlog2x(np.arange(self.y.size + 1, dtype=float))
        if self.K == 2:
            return entropy_split_costs_binary(H, self._xl, self.min_samples_leaf)
        lc, lk, rc, rk, good = entropy_terms(H, self._xl, self.min_samples_leaf)
        return np.where(good, (lc - lk.sum(axis=-1)) + (rc - rk.sum(axis=-1)), np.inf)

    def cost(self, sums):
        return _xlog2x(sums[..., 0]) - _xlog2x(sums[..., 1:]).sum(axis=-1)

    def valid(self, sums):
        return sums[..., 0] >= self.min_samples_leaf

    def loss(self, sums):
        return self.cost(sums) / sums[..., 0]

    def value(self, sums):
        return sums[1:] / sums[0]


class _MSECriterion:
    """SLR cost (Sec. V-A): sum of squared deviations from the set mean (N * MSE)."""

    def __init__(self, y, min_samples_leaf):
        self.y = np.asarray(y, dtype=float)
        self.min_samples_leaf = min_samples_leaf
        var = float(np.var(self.y)) if self.y.size else 0.0
        self.scale = var if var > 0 else 1.0

    def node_stats(self, idx):
        yn = self.y[idx]
        mu = yn.mean()
        yc = yn - mu  # centred: no cancellation in Syy - Sy^2 / N
        return np.column_stack([np.ones_like(yc), yc, yc * yc]), mu

    def totals(self, node):
        s, mu = node
        return np.concatenate([s.sum(axis=0), [mu]])

    def hist(self, P, bins, node):
        # (m, B, 3): [count, sum yc, sum yc^2] of every (candidate, bin) cell.
        s, _ = node
        return weighted_histograms(P, *bins, np.ascontiguousarray(s[:, 1]), np.ascontiguousarray(s[:, 2]))

    def split_costs(self, H):
        """cost(left) + cost(right) for every bin boundary of H (m, B, 3); inf if invalid."""
        return mse_split_costs(H, self.min_samples_leaf)

    def cost(self, sums):
        n = sums[..., 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            c = sums[..., 2] - np.where(n > 0, sums[..., 1] ** 2 / np.where(n > 0, n, 1), 0.0)
        return np.maximum(c, 0.0)

    def valid(self, sums):
        return sums[..., 0] >= self.min_samples_leaf

    def loss(self, sums):
        return self.cost(sums[..., :3]) / sums[..., 0]

    def value(self, sums):
        return np.array([sums[3] + sums[1] / sums[0]])


class _NewtonCriterion:
    """Second-order boosting cost (Eqs. 32-35 with XGBoost's L2 term): -G^2 / (2 (H + lambda)).

    sums = [count, G, H]; the optimal leaf weight of a set is -G / (H + lambda).
    """

    def __init__(self, g, h, reg_lambda, min_samples_leaf, min_child_weight):
        self.g = np.asarray(g, dtype=float)
        self.h = np.asarray(h, dtype=float)
        self.lam = float(reg_lambda)
        self.min_samples_leaf = min_samples_leaf
        self.min_child_weight = float(min_child_weight)
        mh = float(np.mean(self.h)) if self.h.size else 0.0
        sc = float(np.mean(self.g**2)) / mh if mh > 0 else 0.0
        self.scale = sc if sc > 0 else 1.0

    def node_stats(self, idx):
        return np.column_stack([np.ones(len(idx)), self.g[idx], self.h[idx]])

    def totals(self, s):
        return s.sum(axis=0)

    def hist(self, P, bins, s):
        # (m, B, 3): [count, G, H] of every (candidate, bin) cell.  With min_samples_leaf
        # <= 1 and min_child_weight > 0 the count test is implied (an empty side has
        # H = 0 < min_child_weight), so the counts are not accumulated.
        return weighted_histograms(
            P, *bins, np.ascontiguousarray(s[:, 1]), np.ascontiguousarray(s[:, 2]), not self._counts_implied
        )

    @property
    def _counts_implied(self):
        return self.min_samples_leaf <= 1 and self.min_child_weight > 0

    def split_costs(self, H):
        """cost(left) + cost(right) for every bin boundary of H (m, B, 3); inf if invalid."""
        min_leaf = 0 if self._counts_implied else self.min_samples_leaf
        return newton_split_costs(H, self.lam, min_leaf, self.min_child_weight)

    def cost(self, sums):
        den = sums[..., 2] + self.lam
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.where(den > 0, -0.5 * sums[..., 1] ** 2 / np.where(den > 0, den, 1), 0.0)
        return c

    def valid(self, sums):
        return (sums[..., 0] >= self.min_samples_leaf) & (sums[..., 2] >= self.min_child_weight)

    def loss(self, sums):
        return np.inf  # no "minimum loss" stopping rule for boosted trees

    def value(self, sums):
        den = sums[2] + self.lam
        return np.array([-sums[1] / den if den > 0 else 0.0])


# --------------------------------------------------------------------------------------
# Vectorised DFT on many 1-D projections at once (Eqs. 11-15).
# --------------------------------------------------------------------------------------
def _best_splits(P, crit, node, n_bins):
    """Best bin-boundary threshold of every column of ``P`` (n_samples, m).

    Thresholds are t_b = min + b (max - min) / B, b = 1..B-1; left = {p < t_b}
    (Eq. 11), right = {p >= t_b} (Eq. 12).  Returns (total cost, threshold) per column;
    cost is +inf for a constant column or when no threshold gives two valid sides.

    A sample's bin is the number of thresholds <= p: floor((p - min) / width) first,
    then the entries within float error of a bin boundary are re-tested with the
    comparisons p >= t_b used at prediction time (t_b recomputed with the very same
    float operations as T).  The binning, the per-bin sums and the costs are the compiled
    loops of :mod:`.slm_split_kernels` (same float operations as the numpy criteria).
    """
    P = np.ascontiguousarray(P, dtype=float)
    n, m = P.shape
    if n == 0:
        raise ValueError("the split search needs at least one sample, got an empty (0, m) matrix")
    B = int(n_bins)
    pmin, pmax = column_min_max(P)
    width, safe_w, tol, ok = bin_setup(pmin, pmax, B)
    H = crit.hist(P, (pmin, safe_w, width, tol, ok, B), node)  # (m, B, s)
    # bins 0..b-1 go left; cost(left) + cost(right), inf where a side is not valid
    cost = crit.split_costs(H)  # (m, B-1)
    return best_per_column(cost, ok, pmin, width)  # first arg-min b, t_b = min + width b


def _best_splits_blocked(X, W, crit, node, n_bins):
    """_best_splits on the projections X @ W.T, in column blocks to bound memory."""
    n = X.shape[0]
    m = W.shape[0]
    step = max(1, _BLOCK // max(n, 1))
    costs = np.empty(m)
    thrs = np.empty(m)
    buf = np.empty(n * min(step, m))  # one output buffer for every block's product
    for s in range(0, m, step):
        Wb = W[s : s + step]
        P = buf[: n * Wb.shape[0]].reshape(n, Wb.shape[0])
        np.matmul(X, Wb.T, out=P)  # the same BLAS call as X @ Wb.T, written in place
        costs[s : s + step], thrs[s : s + step] = _best_splits(P, crit, node, n_bins)
    return costs, thrs


def discriminant_feature_test(X, y, n_bins=16, task="classification"):
    """Discriminant feature test (DFT, Eqs. 11-15) of every column of ``X``.

    For each feature the range [min, max] is cut into ``n_bins`` equal bins; each of the
    ``n_bins - 1`` interior boundaries t_b splits the samples into {x < t_b} and
    {x >= t_b}, and the split cost is the sample-weighted mean of the two sides' losses
    (Eq. 13): entropy in bits (Eq. 14) for ``task="classification"``, MSE for
    ``task="regression"``.  Returns ``(cost, threshold)`` arrays of length n_features
    with the minimum cost over thresholds (Eq. 15) and its arg-min threshold (first one
    on ties); a constant feature gets cost ``inf`` and threshold ``nan``.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    idx = np.arange(X.shape[0])
    if task == "classification":
        _, codes = np.unique(y, return_inverse=True)
        crit = _EntropyCriterion(codes, codes.max() + 1, 1)
    elif task == "regression":
        crit = _MSECriterion(y.astype(float), 1)
    else:
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
    cost, thr = _best_splits(X, crit, crit.node_stats(idx), n_bins)
    thr = np.where(np.isfinite(cost), thr, np.nan)
    return cost / X.shape[0], thr


# --------------------------------------------------------------------------------------
# Probabilistic integer projection vectors (Eqs. 16-22).
# --------------------------------------------------------------------------------------
def _envelope(n_dims, scale, decay):
    """A_d = max(1, round(A_0 exp(-beta (d - 1)))), d = 1..D0 (Eq. 21)."""
    d = np.arange(n_dims)
    return np.maximum(1, np.rint(scale * np.exp(-decay * d))).astype(np.int64)


def _canonical_directions(C):
    """Drop zero rows; divide by the gcd; first non-zero entry positive; unique rows,
    in lexicographic order.

    a and c*a (c != 0) give the same hyperplane family, so they are tested once.
    """
    C, amax = canonical_rows(np.ascontiguousarray(C, dtype=np.int64))
    base = 2 * int(amax) + 1
    if C.shape[1] * math.log2(base) < 62:  # encode rows as one int64 key: fast unique
        key = (C + base // 2) @ (base ** np.arange(C.shape[1] - 1, -1, -1, dtype=np.int64))
        _, first_rows = np.unique(key, return_index=True)
        return C[first_rows]
    order = _sparse_lex_order(C, base)
    if order is None:
        return np.unique(C, axis=0)
    return C[order]


def _sparse_lex_order(C, base):
    """Indices of the unique rows of C in lexicographic order (what np.unique(C, axis=0)
    returns), from the non-zeros only; None when the rows are not sparse enough to gain.

    Wide D0 makes np.unique(axis=0) the bulk of a node (D0 = 2308: 1.2 s of 1.5 s): it
    compares whole rows, while a candidate has at most P random non-zeros or is a basis
    vector.  Each row becomes its sequence of (column c, value v) non-zeros, each pair a
    scalar key ordered as dense rows compare at the first column where they differ:
    a negative entry at c sorts below any row that is 0 at c, a positive one above, so
    keys run (c = 0, v < 0) < ... < (c = D-1, v < 0) < end-of-row < (c = D-1, v > 0) <
    ... < (c = 0, v > 0), by v within a column.  Rows padded with end-of-row keys compare
    like the dense rows; np.lexsort of the keys gives the order, equal neighbours the
    duplicates.
    """
    n, D = C.shape
    rows, cols = np.nonzero(C)  # row-major: columns ascend within a row
    nnz = np.bincount(rows, minlength=n)
    width = int(nnz.max(initial=0)) + 1
    if 4 * width > D:
        return None
    vals = C[rows, cols]
    end = D * base
    keys = np.where(vals < 0, cols * base + (vals + base // 2), end + (D - cols) * base + vals)
    K = np.full((n, width), end, dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(nnz)[:-1]))
    K[rows, np.arange(rows.size) - starts[rows]] = keys
    order = np.lexsort(K.T[::-1])
    Ks = K[order]
    first = np.concatenate(([True], np.any(Ks[1:] != Ks[:-1], axis=1)))
    return order[first]


def _sample_supports(n_draws, n_dims, alpha, n_selected, rng):
    """Boolean (n_draws, n_dims): P = min(n_selected, D0) coordinates per row, drawn
    without replacement with p_d ∝ exp(-alpha d) (Eq. 19).  Gumbel-top-k: the P largest
    log p_d + Gumbel noise are a weighted sample without replacement."""
    P = min(int(n_selected), n_dims)
    mask = np.zeros((n_draws, n_dims), dtype=bool)
    if P >= n_dims:
        mask[:] = True
        return mask
    keys = -alpha * np.arange(n_dims)[None, :] + rng.gumbel(size=(n_draws, n_dims))
    sel = np.argpartition(-keys, P - 1, axis=1)[:, :P]
    mask[np.arange(n_draws)[:, None], sel] = True
    return mask


def _candidate_coefficients(n_dims, envelope, alpha, n_selected, n_projections, rng, exhaustive=True):
    """Integer orientation vectors in the ranked discriminant subspace (Eqs. 18-20).

    If ``exhaustive`` and the full grid prod_d (2 A_d + 1) has at most ``n_projections``
    points it is enumerated (no randomness; Sec. II-B2: "When the search space ... is
    relatively small ..., we exhaustively test all the values").  Otherwise each of the
    ``n_projections`` draws selects
    P = min(n_selected, D0) coordinates without replacement with probabilities
    p_d ∝ exp(-alpha d) (Eq. 19, via the Gumbel-top-k trick) and draws each selected
    coefficient uniformly from {-A_d..A_d} (Eq. 20); the rest are 0.  The D0 basis
    vectors are always added.
    """
    A = envelope
    grid = math.prod(int(2 * a + 1) for a in A)
    if exhaustive and grid <= n_projections:
        axes = [np.arange(-a, a + 1) for a in A]
        C = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, n_dims)
    else:
        mask = _sample_supports(n_projections, n_dims, alpha, n_selected, rng)
        coef = rng.randint(-A, A + 1, size=(n_projections, n_dims))
        C = np.where(mask, coef, 0)
    C = np.vstack([C, np.eye(n_dims, dtype=C.dtype)])
    return _canonical_directions(C.astype(np.int64))


# --------------------------------------------------------------------------------------
# Tree structure and growth.
# --------------------------------------------------------------------------------------
class _SLMTree:
    """Flat storage of a fitted SLM/SLR tree (node 0 is the root).

    Internal node i holds ``features[i]`` (indices of its discriminant subspace),
    ``weights[i]`` (q, D0) unit projection vectors, ``thresholds[i]`` (q,) and
    ``children[i]`` (2^q,) child ids, -1 for a cell that held no training sample.
    """

    def __init__(self):
        self.depth = []
        self.value = []
        self.n_samples = []
        self.features = []
        self.weights = []
        self.thresholds = []
        self.children = []

    def add_node(self, depth, value, n):
        self.depth.append(depth)
        self.value.append(value)
        self.n_samples.append(n)
        self.features.append(None)
        self.weights.append(None)
        self.thresholds.append(None)
        self.children.append(None)
        return len(self.depth) - 1

    def finalize(self):
        self.value = np.asarray(self.value, dtype=float)
        self.depth = np.asarray(self.depth, dtype=np.intp)
        self.n_samples = np.asarray(self.n_samples, dtype=np.intp)
        return self

    @property
    def node_count(self):
        return len(self.depth)

    def is_leaf(self, i):
        return self.children[i] is None

    # model size, counted as the paper's appendix counts it (Eq. 37)
    @property
    def n_hyperplanes(self):
        return int(sum(len(t) for t in self.thresholds if t is not None))

    @property
    def n_parameters(self):
        return int(sum(w.size + len(t) for w, t in zip(self.weights, self.thresholds) if w is not None))

    @property
    def max_depth(self):
        return int(self.depth.max())

    @property
    def nodes_per_level(self):
        return [int(c) for c in np.bincount(self.depth)]

    def apply(self, X):
        """Id of the node where each row of X stops (a leaf, or an internal node
        whose routed cell was empty at training time)."""
        out = np.zeros(X.shape[0], dtype=np.intp)
        stack = [(0, np.arange(X.shape[0]))]
        while stack:
            i, idx = stack.pop()
            if self.children[i] is None or idx.size == 0:
                out[idx] = i
                continue
            kids = self.children[i]
            codes = route_codes(X[np.ix_(idx, self.features[i])] @ self.weights[i].T, self.thresholds[i])
            # rows grouped by cell, each group in its order in idx (a stable sort)
            order, counts = group_by_code(codes, kids.size)
            idx = idx[order]
            ends = np.cumsum(counts)
            for code in np.flatnonzero(counts):
                part = idx[ends[code] - counts[code] : ends[code]]
                if kids[code] < 0:  # empty at training time: the parent's prediction
                    out[part] = i
                else:
                    stack.append((int(kids[code]), part))
        return out

    def predict_value(self, X):
        return self.value[self.apply(X)]


def route_codes(proj, thresholds):
    """Child index of each sample for q hyperplanes: sum_j 2^j [a_j^T x >= b_j].

    ``proj`` is (n, q) of projections a_j^T x; bit j is 1 on the half-space S_+ of
    Eq. (9).  The 2^q codes index the intersections of the half-spaces.
    """
    bits = np.asarray(proj) >= np.asarray(thresholds)[None, :]
    return bits.astype(np.intp) @ (1 << np.arange(bits.shape[1], dtype=np.intp))


def _select_minimax(W, costs, n_pool, cos_threshold, max_hyperplanes):
    """Mini-max |cos| selection (Sec. II-B3) among the ``n_pool`` lowest-cost vectors.

    The first pick is the lowest cost; each next pick minimises its largest |cos| with
    the vectors already picked; stop when that value exceeds ``cos_threshold`` or when
    ``max_hyperplanes`` are picked.  ``costs`` of non-improving candidates are inf.
    """
    order = np.argsort(costs, kind="stable")
    order = order[np.isfinite(costs[order])][:n_pool]
    if order.size == 0:
        return order
    Wp = W[order]
    G = np.abs(Wp @ Wp.T)
    chosen = [0]
    worst = G[0].copy()
    worst[0] = np.inf
    while len(chosen) < max_hyperplanes:
        j = int(np.argmin(worst))
        if not worst[j] <= cos_threshold:
            break
        chosen.append(j)
        worst = np.maximum(worst, G[j])
        worst[chosen] = np.inf
    return order[chosen]


def _resolve_d0(n_discriminant, n_features, max_discriminant=None):
    """D0 from ``n_discriminant`` (None = all, an int, or a fraction of n_features), then
    capped at ``max_discriminant`` (None = no cap)."""
    if n_discriminant is None:
        d0 = n_features
    elif isinstance(n_discriminant, Integral):
        d0 = max(1, min(int(n_discriminant), n_features))
    else:
        d0 = max(1, min(n_features, int(math.ceil(float(n_discriminant) * n_features))))
    return d0 if max_discriminant is None else min(d0, int(max_discriminant))


def _grow_tree(X, crit, p, rng):
    """Grow one SLM tree breadth-first on (standardised) X with criterion ``crit``.

    ``p`` is a dict of the tree hyper-parameters (see SLMClassifier).  BLAS is kept to
    one thread: the products are thin (D0 columns) and threads only add overhead.
    """
    with _blas_controller().limit(limits=1, user_api="blas"):
        return _grow_tree_impl(X, crit, p, rng)


_CONTROLLER = []


def _blas_controller():
    # Inspecting the loaded BLAS libraries is slow; do it once per process.
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def _grow_tree_impl(X, crit, p, rng):
    n, D = X.shape
    d0 = _resolve_d0(p["n_discriminant"], D, p.get("max_discriminant"))
    envelope_full = _envelope(d0, p["envelope_scale"], p["envelope_decay"])
    tree = _SLMTree()
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
        # Step 1: DFT of every input dimension at this node; keep the D0 best (Eq. 17).
        fcost, _ = _best_splits(Xn, crit, node, p["n_bins"])
        forder = np.argsort(fcost, kind="stable")
        forder = forder[np.isfinite(fcost[forder])][:d0]
        if forder.size == 0:
            continue
        # Step 2: probabilistic integer projections in that subspace (Eqs. 18-22).
        C = _candidate_coefficients(
            forder.size, envelope_full[: forder.size], p["alpha"], p["n_selected"], p["n_projections"], rng,
            p.get("exhaustive", True),
        )
        W = C / np.linalg.norm(C, axis=1, keepdims=True)
        Xs = Xn[:, forder]
        costs, thrs = _best_splits_blocked(Xs, W, crit, node, p["n_bins"])
        costs = np.where(parent - costs > need, costs, np.inf)
        # Step 3: q hyperplanes by the mini-max cosine rule (Sec. II-B3).
        sel = _select_minimax(W, costs, p["n_pool"], p["cos_threshold"], p["max_hyperplanes"])
        if sel.size == 0:
            continue
        Wsel, bsel = W[sel], thrs[sel]
        codes = route_codes(Xs @ Wsel.T, bsel)
        order, counts = group_by_code(codes, 1 << sel.size)  # stable: rows keep their order
        ids = np.flatnonzero(counts)
        if ids.size < 2:
            continue
        tree.features[nid] = forder
        tree.weights[nid] = Wsel
        tree.thresholds[nid] = bsel
        children = np.full(1 << sel.size, -1, dtype=np.intp)
        for code, part in zip(ids, np.split(idx[order], np.cumsum(counts[ids])[:-1])):
            cnode = crit.node_stats(part)
            ctot = crit.totals(cnode)
            cid = tree.add_node(depth + 1, crit.value(ctot), part.size)
            children[code] = cid
            queue.append((cid, part, cnode, ctot))
        tree.children[nid] = children
    return tree.finalize()


# --------------------------------------------------------------------------------------
# Parameter checks shared by all SLM estimators.
# --------------------------------------------------------------------------------------
TREE_PARAMS = (
    "max_depth",
    "min_samples_split",
    "min_samples_leaf",
    "min_loss",
    "n_bins",
    "n_discriminant",
    "max_discriminant",
    "alpha",
    "n_selected",
    "envelope_scale",
    "envelope_decay",
    "n_projections",
    "n_pool",
    "cos_threshold",
    "max_hyperplanes",
    "exhaustive",
)


def check_tree_params(est):
    """Validate the tree hyper-parameters of ``est`` (called in fit); returns a dict."""
    p = {k: getattr(est, k) for k in TREE_PARAMS if hasattr(est, k)}
    p.setdefault("min_loss", -np.inf)

    def _int(name, lo, allow_none=False):
        v = p[name]
        if allow_none and v is None:
            return
        if isinstance(v, bool) or not isinstance(v, Integral) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}{' or None' if allow_none else ''}, got {v!r}")

    def _real(name, lo, hi=np.inf):
        v = p[name]
        if isinstance(v, bool) or not isinstance(v, Real) or not (lo <= v <= hi):
            raise ValueError(f"{name} must be a real number in [{lo}, {hi}], got {v!r}")

    _int("max_depth", 0, allow_none=True)
    _int("min_samples_split", 2)
    _int("min_samples_leaf", 1)
    _int("n_bins", 2)
    _int("n_selected", 1)
    _int("max_discriminant", 1, allow_none=True)
    _int("n_projections", 1)
    _int("n_pool", 1)
    _int("max_hyperplanes", 1)
    if p["max_hyperplanes"] > 16:
        raise ValueError("max_hyperplanes must be <= 16 (a node has up to 2**q children)")
    _real("alpha", 0.0)
    _real("envelope_scale", 1.0)
    _real("envelope_decay", 0.0)
    _real("cos_threshold", 0.0, 1.0)
    if p["min_loss"] is None or not isinstance(p["min_loss"], Real):
        raise ValueError(f"min_loss must be a real number, got {p['min_loss']!r}")
    if "exhaustive" in p and not isinstance(p["exhaustive"], (bool, np.bool_)):
        raise ValueError(f"exhaustive must be a bool, got {p['exhaustive']!r}")
    nd = p["n_discriminant"]
    if nd is not None:
        if isinstance(nd, bool) or not isinstance(nd, Real) or nd <= 0:
            raise ValueError(f"n_discriminant must be None, an int >= 1 or a float in (0, 1], got {nd!r}")
        if not isinstance(nd, Integral) and nd > 1:
            raise ValueError(f"a float n_discriminant must lie in (0, 1], got {nd!r}")
    return p


def standardize_fit(X, standardize):
    if standardize:
        mean = X.mean(axis=0)
        scale = X.std(axis=0)
        scale[scale == 0] = 1.0
    else:
        mean = np.zeros(X.shape[1])
        scale = np.ones(X.shape[1])
    return mean, scale


# --------------------------------------------------------------------------------------
# Estimators.
# --------------------------------------------------------------------------------------
_TREE_DOC_PARAMS = """
    max_depth : int or None, default=None
        Stopping rule 1 (Sec. II-B4): a node at depth >= max_depth (root depth 0) is a leaf.
    min_samples_split : int, default=2
        Stopping rule 2: a node with fewer samples is a leaf.
    min_samples_leaf : int, default=1
        Each side of a candidate hyperplane must keep this many samples (the 2^q cells
        are not checked; an empty cell is simply dropped).
    min_loss : float, default=0.0
        Stopping rule 3: a node whose loss (entropy in bits / MSE) is <= min_loss is a
        leaf ("less than" in the paper; <= so that 0 stops pure nodes).
    n_bins : int, default=16
        B of the DFT (Sec. II-B1): B - 1 equally spaced candidate thresholds.
    n_discriminant : int, float or None, default=None
        D0, size of the discriminant subspace kept after the per-feature DFT (step 1);
        an int, a fraction of n_features, or None for all features.
    max_discriminant : int or None, default=None
        Upper bound on D0 after ``n_discriminant`` is resolved (None = no bound): a
        fractional D0 grid stays a fraction on narrow data but does not grow with very
        wide data (every node builds D0 basis candidates of width D0).
    alpha : float, default=1.0
        Eq. (19): p_d ∝ exp(-alpha d), probability of picking the d-th ranked feature.
    n_selected : int, default=5
        P, number of non-zero coefficients per random vector (Fig. 2 uses 5).
    envelope_scale, envelope_decay : float, default=10.0, 0.5
        A_0 and beta of Eq. (21): A_d = max(1, round(A_0 exp(-beta (d - 1)))), the
        Fig. 2 values.
    n_projections : int, default=1000
        Number of random integer vectors drawn per node (p); if the full integer grid is
        no larger it is enumerated instead.
    n_pool : int, default=10
        Size R of the pool {a_1..a_R} (Eq. 23): the lowest-cost improving candidates.
    cos_threshold : float, default=0.5
        T_cos of the mini-max rule: stop adding hyperplanes when the best remaining
        candidate has max |cos| > cos_threshold with the chosen ones.
    max_hyperplanes : int, default=3
        Hard cap on q per node (up to 2^q children).
    exhaustive : bool, default=True
        Enumerate the integer grid when it has at most ``n_projections`` points (the
        paper's rule for a small search space); False always draws ``n_projections``
        vectors at random (Eqs. 19-20), which is what gives the trees of a forest their
        diversity when D0 is small (D0 = 2: the whole grid fits, every tree would be equal)."""

_TREE_DOC_CHOICES = """
    Choices where the paper is open (slm_equations.md sec. 11):

    * Features are z-scored on the training set before everything (``standardize``):
      integer coefficients in Eq. (20) only make sense for commensurate scales; the DFT
      itself is scale-free.  Hyperplanes are stored in the standardised coordinates.
    * The DFT ranking and D0 are recomputed at every node (the Forest section keeps "all
      feature dimensions as the input at each node splitting").
    * Thresholds: the B - 1 interior bin boundaries; left = {a^T x < t}; ties in cost go
      to the first candidate / lowest threshold.  Entropy is in bits.
    * Candidates: integer vectors are reduced to a canonical direction (divided by their
      gcd, sign fixed) and de-duplicated; the D0 basis vectors are always included so a
      node is never split worse than the best axis-aligned DFT split.  Vectors are
      normalised to ||a|| = 1 (Eq. 8).  When the whole grid prod (2 A_d + 1) fits in
      ``n_projections`` it is enumerated and the tree is deterministic.
    * Eq. (19) is read as a categorical law over ranks: each random vector gets
      P = min(n_selected, D0) distinct non-zero slots drawn without replacement with
      p_d ∝ exp(-alpha d); when D0 <= P every slot is used and alpha has no effect.
      Coefficients are uniform integers in [-A_d, A_d] (a selected one may draw 0).
    * The paper reports no value for n_projections, n_pool, T_cos or a cap on q; the
      defaults (1000, 10, 0.5, 3) are ours: 1000 as in the lab's C++ port, |cos| <= 0.5
      keeps hyperplanes >= 60 degrees apart, and q <= 3 matches the widest root split
      in the appendix (1 -> 8).
    * A candidate enters the pool only if it lowers the node cost; the node becomes a
      leaf when none does.  Children are the non-empty intersections of the 2q
      half-spaces; a test sample routed to an empty cell gets the parent's prediction.
    * Model size (Eq. 37): ``n_hyperplanes_`` = N_p, ``n_parameters_`` = sum over
      hyperplanes of (D0 + 1) = (D0 + 1) N_p when D0 is fixed; ``depth_`` is the deepest
      node (root 0) and ``nodes_per_level_`` counts non-empty nodes per depth, root
      included (the appendix's "1, 4, 8, ..." lists)."""


class _BaseSLMTree(BaseEstimator):
    def _fit_tree(self, X, crit):
        p = check_tree_params(self)
        if not isinstance(self.standardize, (bool, np.bool_)):
            raise ValueError(f"standardize must be a bool, got {self.standardize!r}")
        rng = check_random_state(self.random_state)
        self.mean_, self.scale_ = standardize_fit(X, self.standardize)
        self.tree_ = _grow_tree((X - self.mean_) / self.scale_, crit, p, rng)
        self.n_hyperplanes_ = self.tree_.n_hyperplanes
        self.n_parameters_ = self.tree_.n_parameters
        self.depth_ = self.tree_.max_depth
        self.nodes_per_level_ = self.tree_.nodes_per_level
        return self

    def _transform(self, X):
        check_is_fitted(self, "tree_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return (X - self.mean_) / self.scale_

    def apply(self, X):
        """Node id where each sample ends (a leaf, or the parent of an empty cell)."""
        Xs = self._transform(X)
        return self.tree_.apply(Xs)


class SLMClassifier(ClassifierMixin, _BaseSLMTree):
    __doc__ = f"""One SLM tree (Sec. II): a decision tree whose nodes split on q oblique
    hyperplanes into up to 2^q children.

    At each node: (1) DFT of every feature (Eqs. 11-15) and keep the D0 best (Eq. 17);
    (2) draw integer orientation vectors in that subspace (Eqs. 18-22) and find each
    one's best threshold by the DFT; (3) pick q of them by the mini-max |cos| rule
    (Eqs. 23-24); (4) recurse on the non-empty intersections of the half-spaces.
    Leaves predict the class distribution of their training samples.

    Parameters
    ----------{_TREE_DOC_PARAMS}
    standardize : bool, default=True
        z-score the features (see choices below).
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_ (when X has column names)
    mean_, scale_ : ndarray (n_features,), the standardisation.
    tree_ : fitted tree structure (``apply`` gives node ids).
    n_hyperplanes_, n_parameters_, depth_, nodes_per_level_ : model size (Table II).
{_TREE_DOC_CHOICES}

    Estimator checks: all scikit-learn checks pass, none is expected to fail;
    check_array_api_input is skipped by scikit-learn itself unless SCIPY_ARRAY_API=1
    (it passes when that is set).
    """

    def __init__(
        self,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_loss=0.0,
        n_bins=16,
        n_discriminant=None,
        max_discriminant=None,
        alpha=1.0,
        n_selected=5,
        envelope_scale=10.0,
        envelope_decay=0.5,
        n_projections=1000,
        n_pool=10,
        cos_threshold=0.5,
        max_hyperplanes=3,
        exhaustive=True,
        standardize=True,
        random_state=None,
    ):
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_loss = min_loss
        self.n_bins = n_bins
        self.n_discriminant = n_discriminant
        self.max_discriminant = max_discriminant
        self.alpha = alpha
        self.n_selected = n_selected
        self.envelope_scale = envelope_scale
        self.envelope_decay = envelope_decay
        self.n_projections = n_projections
        self.n_pool = n_pool
        self.cos_threshold = cos_threshold
        self.max_hyperplanes = max_hyperplanes
        self.exhaustive = exhaustive
        self.standardize = standardize
        self.random_state = random_state

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        crit = _EntropyCriterion(codes, len(self.classes_), self.min_samples_leaf)
        return self._fit_tree(X, crit)

    def predict_proba(self, X):
        Xs = self._transform(X)
        return self.tree_.predict_value(Xs)

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class SLMRegressor(RegressorMixin, _BaseSLMTree):
    __doc__ = f"""One SLR tree (Sec. V-A): the SLM tree with the MSE in place of the entropy
    in Eqs. (13)-(15); leaves predict the mean target of their training samples.

    Parameters
    ----------{_TREE_DOC_PARAMS.replace("(entropy in bits / MSE)", "(MSE)")}
    standardize : bool, default=True
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    n_features_in_, mean_, scale_, tree_, n_hyperplanes_, n_parameters_, depth_,
    nodes_per_level_ : as in SLMClassifier.
{_TREE_DOC_CHOICES}

    Estimator checks: all scikit-learn checks pass, none is expected to fail;
    check_array_api_input is skipped by scikit-learn itself unless SCIPY_ARRAY_API=1
    (it passes when that is set).
    """

    __init__ = SLMClassifier.__init__

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        crit = _MSECriterion(y, self.min_samples_leaf)
        return self._fit_tree(X, crit)

    def predict(self, X):
        Xs = self._transform(X)
        return self.tree_.predict_value(Xs)[:, 0]
