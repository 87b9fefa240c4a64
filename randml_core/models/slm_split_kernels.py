"""Compiled inner loops of the SLM split search (the DFT histograms, Eqs. 11-15).

Why hand-written: the split search bins every (sample, candidate projection) pair into
one of B equal-width bins and sums per-bin statistics.  In numpy that is a dozen passes
over an (n_samples, n_candidates) matrix plus ``np.bincount`` on index arrays as large;
no library offers "per-column equal-width binning + per-bin weighted histogram" in one
pass, so these loops are compiled with numba (lazily, on first call; cached on disk
with ``cache=True``).

Bit-for-bit contract with the numpy code they replace (kept as a slow reference in
``tests/test_slm_reference.py``):

* a value's bin is computed with the very same float operations, in the same order, as
  the vectorised code: q = (p - min) / safe_width, k = floor(q), "near a boundary" when
  q - k < tol or > 1 - tol, k clipped to [0, B - 1], near entries re-tested against
  t_k = min + width * k and t_{k+1}, bin 0 for a constant column.  numba does not
  contract a * b + c into an FMA unless fastmath is on, and it is off here;
  ``error_model="numpy"`` only drops Python's division-by-zero check (no division by
  zero can occur: safe_width > 0), which lets LLVM vectorise the per-row bin loop;
* per-bin weighted sums are accumulated in increasing sample order, the order in which
  ``np.bincount(flat.ravel(), weights=...)`` adds them over the row-major (n, m) index
  matrix; counts are exact integers;
* the split costs repeat the criteria's element-wise numpy formulas (cumulative sums in
  ``np.cumsum`` order); the only reduction with a numpy-defined order, the sum of the
  entropy class terms over K >= 3 classes, is left to numpy;
* the candidate reduction and the sample partitions are integer-only (gcd, sign, a stable
  counting sort equal to ``np.argsort(kind="stable")``).

Inputs are finite in the estimators (``validate_data``); for non-finite values the kernels
give bin 0 rather than an out-of-range write (numba does not check bounds).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "column_min_max",
    "bin_setup",
    "best_per_column",
    "class_histograms",
    "weighted_histograms",
    "entropy_terms",
    "entropy_split_costs_binary",
    "mse_split_costs",
    "newton_split_costs",
    "canonical_rows",
    "group_by_code",
]

_JIT = dict(cache=True, nogil=True, error_model="numpy")
_INLINE = dict(_JIT, inline="always")  # small helpers: compiled into their callers


@njit(**_JIT)
def column_min_max(P):
    """(min, max) of every column of the non-empty 2-D array ``P``; a NaN propagates, as
    in ``P.min(axis=0)``."""
    n, m = P.shape
    lo = P[0].copy()
    hi = P[0].copy()
    for i in range(1, n):
        row = P[i]
        for j in range(m):
            v = row[j]
            l = lo[j]
            h = hi[j]
            lo[j] = v if (v < l or v != v) else l
            hi[j] = v if (v > h or v != v) else h
    return lo, hi


@njit(**_JIT)
def bin_setup(lo, hi, B):
    """Per-column (width, safe width, tolerance, ok) of B equal bins on [lo, hi].

    width = (hi - lo) / B; ok = hi > lo; safe width = width, or 1 for a constant column;
    tol = 1e-9 + 8 eps (|lo| + |hi|) / safe width: the float error allowed on the bin
    coordinate before a value is re-tested against the thresholds themselves.
    """
    m = lo.shape[0]
    wd = np.empty(m)
    sw = np.empty(m)
    tl = np.empty(m)
    ok = np.empty(m, dtype=np.bool_)
    c = 8.0 * np.finfo(np.float64).eps
    for j in range(m):
        wd[j] = (hi[j] - lo[j]) / B
        # a range so small that its bin width underflows to 0 is treated as constant
        # (the numpy code divided by zero there and failed on the NaN bin indices)
        ok[j] = hi[j] > lo[j] and wd[j] > 0.0
        sw[j] = wd[j] if ok[j] else 1.0
        tl[j] = 1e-9 + c * (abs(lo[j]) + abs(hi[j])) / sw[j]
    return wd, sw, tl, ok


@njit(**_JIT)
def best_per_column(cost, ok, lo, wd):
    """Lowest cost of every row of ``cost`` (m, B-1) and its threshold lo + wd (b + 1).

    The first minimum wins (np.argmin); a constant column (not ok) gets +inf and the
    first threshold.
    """
    m, nb = cost.shape
    best = np.empty(m)
    thr = np.empty(m)
    for j in range(m):
        b = 0
        v = np.inf if not ok[j] else cost[j, 0]
        if ok[j] and v == v:
            for t in range(1, nb):
                c = cost[j, t]
                if c != c:  # NaN is the minimum for np.argmin
                    b, v = t, c
                    break
                if c < v:
                    b, v = t, c
        best[j] = v
        thr[j] = lo[j] + wd[j] * (b + 1)
    return best, thr


@njit(**_INLINE)
def _fix_bin(v, k, lo, wd, ok, B):
    # Rare part: re-test a near-boundary value with the thresholds' own float operations.
    if not ok:
        return 0
    if v < lo + wd * k and k > 0:
        k -= 1.0
    if v >= lo + wd * (k + 1.0) and k < B - 1:
        k += 1.0
    return int(k)


_ROWS = 64  # rows binned at once before their histogram updates


@njit(**_JIT)
def _chunk_cells(P, r0, r1, lo, sw, wd, tl, tl1, ok, B, base, cells):
    """cells[i - r0, j] = j * B + bin of P[i, j] for rows r0..r1-1 (base[j] = j * B).

    The first loop is the vectorisable common case (floor, clip, near flag per row); a
    row with a near-boundary entry is redone entry by entry with the exact re-test.
    Cell ids are int32 (AVX2 converts doubles to int32 in vectors, not to int64); the
    (m * B, s) histogram they index could not be allocated long before m * B nears 2^31.
    """
    m = P.shape[1]
    top = float(B - 1)
    for i in range(r0, r1):
        row = P[i]
        out = cells[i - r0]
        near = False
        for j in range(m):
            q = (row[j] - lo[j]) / sw[j]
            k = np.floor(q)
            f = q - k
            # clip to [0, B - 1]; written so that a NaN (only from non-finite input) gives
            # bin 0 instead of an out-of-range cell
            k = top if k > top else (k if k >= 0.0 else 0.0)
            out[j] = base[j] + np.int32(k)
            near |= (f < tl[j]) | (f > tl1[j])
        if near:
            for j in range(m):
                q = (row[j] - lo[j]) / sw[j]
                k = np.floor(q)
                f = q - k
                if (f < tl[j]) | (f > tl1[j]):
                    k = top if k > top else (k if k >= 0.0 else 0.0)
                    out[j] = base[j] + _fix_bin(row[j], k, lo[j], wd[j], ok[j], B)


@njit(**_JIT)
def class_histograms(P, lo, sw, wd, tl, ok, B, y, K):
    """Per-column, per-bin class counts: (m, B, K + 1) float, column 0 = bin count.

    ``lo, sw, wd, tl, ok`` are per-column min, safe bin width (1 for a constant column),
    bin width, boundary tolerance and "column not constant"; ``y`` holds codes 0..K-1.
    """
    n, m = P.shape
    C = np.zeros((m * B, K + 1), dtype=np.int64)
    cells = np.empty((_ROWS, m), dtype=np.int32)
    base = (np.arange(m) * B).astype(np.int32)
    tl1 = 1.0 - tl
    for r0 in range(0, n, _ROWS):
        r1 = min(n, r0 + _ROWS)
        _chunk_cells(P, r0, r1, lo, sw, wd, tl, tl1, ok, B, base, cells)
        for i in range(r0, r1):
            c = y[i] + 1
            row = cells[i - r0]
            for j in range(m):
                C[row[j], c] += 1
    for r in range(m * B):
        s = 0
        for c in range(1, K + 1):
            s += C[r, c]
        C[r, 0] = s
    return C.astype(np.float64).reshape(m, B, K + 1)


@njit(**_JIT)
def weighted_histograms(P, lo, sw, wd, tl, ok, B, a, b, counts=True):
    """Per-column, per-bin [count, sum a, sum b]: (m, B, 3) float, sums in sample order.

    ``counts=False`` leaves column 0 at zero (for a caller that does not need it).
    """
    n, m = P.shape
    H = np.zeros((m * B, 3))
    cells = np.empty((_ROWS, m), dtype=np.int32)
    base = (np.arange(m) * B).astype(np.int32)
    tl1 = 1.0 - tl
    for r0 in range(0, n, _ROWS):
        r1 = min(n, r0 + _ROWS)
        _chunk_cells(P, r0, r1, lo, sw, wd, tl, tl1, ok, B, base, cells)
        for i in range(r0, r1):
            ai = a[i]
            bi = b[i]
            row = cells[i - r0]
            for j in range(m):
                r = row[j]
                if counts:
                    H[r, 0] += 1.0
                H[r, 1] += ai
                H[r, 2] += bi
    return H.reshape(m, B, 3)


# --------------------------------------------------------------------------------------
# From histograms to split costs.  left = cumsum over bins 0..b-1 (np.cumsum order),
# total = left[B - 2] + H[B - 1], right = total - left; every cost below is the same
# element-wise formula as the criterion's numpy ``cost`` (no reduction order involved).
# --------------------------------------------------------------------------------------
@njit(**_INLINE)
def _left_total(H, j):
    B, s = H.shape[1], H.shape[2]
    tot = H[j, 0].copy()
    for b in range(1, B - 1):
        for c in range(s):
            tot[c] = tot[c] + H[j, b, c]
    for c in range(s):
        tot[c] = tot[c] + H[j, B - 1, c]
    return tot


@njit(**_JIT)
def entropy_terms(H, xl, min_leaf):
    """x log2 x of left / right counts, looked up in ``xl`` (xl[c] = c log2 c, by numpy).

    Returns (left count term (m, B-1), left class terms (m, B-1, K), right count term,
    right class terms, valid) so that numpy can sum the class terms over the last axis
    exactly as ``_EntropyCriterion.cost`` does.
    """
    m, B, s = H.shape
    K = s - 1
    lc = np.empty((m, B - 1))
    rc = np.empty((m, B - 1))
    lk = np.empty((m, B - 1, K))
    rk = np.empty((m, B - 1, K))
    good = np.empty((m, B - 1), dtype=np.bool_)
    left = np.empty(s)
    for j in range(m):
        tot = _left_total(H, j)
        for b in range(B - 1):
            for c in range(s):
                left[c] = H[j, 0, c] if b == 0 else left[c] + H[j, b, c]
            r0 = tot[0] - left[0]
            lc[j, b] = xl[int(left[0])]
            rc[j, b] = xl[int(r0)]
            for c in range(K):
                lk[j, b, c] = xl[int(left[c + 1])]
                rk[j, b, c] = xl[int(tot[c + 1] - left[c + 1])]
            good[j, b] = (left[0] >= min_leaf) & (r0 >= min_leaf)
    return lc, lk, rc, rk, good


@njit(**_INLINE)
def _mse_cost(n, s1, s2):
    c = s2 - (s1 * s1 / n if n > 0 else 0.0)
    return c if (c >= 0.0 or c != c) else 0.0


@njit(**_JIT)
def mse_split_costs(H, min_leaf):
    """cost(left) + cost(right) of _MSECriterion, +inf where a side is too small."""
    m, B, _ = H.shape
    out = np.empty((m, B - 1))
    for j in range(m):
        tot = _left_total(H, j)
        l0, l1, l2 = H[j, 0, 0], H[j, 0, 1], H[j, 0, 2]
        for b in range(B - 1):
            if b > 0:
                l0 = l0 + H[j, b, 0]
                l1 = l1 + H[j, b, 1]
                l2 = l2 + H[j, b, 2]
            r0, r1, r2 = tot[0] - l0, tot[1] - l1, tot[2] - l2
            if l0 >= min_leaf and r0 >= min_leaf:
                out[j, b] = _mse_cost(l0, l1, l2) + _mse_cost(r0, r1, r2)
            else:
                out[j, b] = np.inf
    return out


@njit(**_INLINE)
def _newton_cost(g, h, lam):
    den = h + lam
    return -0.5 * (g * g) / den if den > 0 else 0.0


@njit(**_JIT)
def newton_split_costs(H, lam, min_leaf, min_child_weight):
    """cost(left) + cost(right) of _NewtonCriterion, +inf where a side is not valid."""
    m, B, _ = H.shape
    out = np.empty((m, B - 1))
    for j in range(m):
        tot = _left_total(H, j)
        l0, l1, l2 = H[j, 0, 0], H[j, 0, 1], H[j, 0, 2]
        for b in range(B - 1):
            if b > 0:
                l0 = l0 + H[j, b, 0]
                l1 = l1 + H[j, b, 1]
                l2 = l2 + H[j, b, 2]
            r0, r1, r2 = tot[0] - l0, tot[1] - l1, tot[2] - l2
            if l0 >= min_leaf and r0 >= min_leaf and l2 >= min_child_weight and r2 >= min_child_weight:
                out[j, b] = _newton_cost(l1, l2, lam) + _newton_cost(r1, r2, lam)
            else:
                out[j, b] = np.inf
    return out


@njit(**_JIT)
def entropy_split_costs_binary(H, xl, min_leaf):
    """cost(left) + cost(right) of _EntropyCriterion for K = 2 classes, inf if invalid.

    With two classes numpy's ``.sum(axis=-1)`` of the class terms is the single addition
    t1 + t2 (all terms are >= +0), so the whole cost is element-wise and done here.
    """
    m, B, _ = H.shape
    out = np.empty((m, B - 1))
    for j in range(m):
        tot = _left_total(H, j)
        l0, l1, l2 = H[j, 0, 0], H[j, 0, 1], H[j, 0, 2]
        for b in range(B - 1):
            if b > 0:
                l0 = l0 + H[j, b, 0]
                l1 = l1 + H[j, b, 1]
                l2 = l2 + H[j, b, 2]
            r0, r1, r2 = tot[0] - l0, tot[1] - l1, tot[2] - l2
            if l0 >= min_leaf and r0 >= min_leaf:
                cl = xl[int(l0)] - (xl[int(l1)] + xl[int(l2)])
                cr = xl[int(r0)] - (xl[int(r1)] + xl[int(r2)])
                out[j, b] = cl + cr
            else:
                out[j, b] = np.inf
    return out


# --------------------------------------------------------------------------------------
# Candidate directions: integer rows reduced to a canonical representative (Sec. II-B2).
# --------------------------------------------------------------------------------------
@njit(**_INLINE)
def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@njit(**_JIT)
def canonical_rows(C):
    """Non-zero rows of the int64 matrix C divided by their gcd, first non-zero entry
    made positive; returns (rows, largest |entry|).  Integer arithmetic only."""
    n, d = C.shape
    out = np.empty((n, d), dtype=np.int64)
    r = 0
    amax = 0
    for i in range(n):
        g = 0
        first = 0
        for k in range(d):
            v = abs(C[i, k])
            if v != 0 and g == 0:
                first = C[i, k]
            g = _gcd(v, g) if g else v
        if g == 0:
            continue
        s = 1 if first > 0 else -1
        for k in range(d):
            v = s * (C[i, k] // g)
            out[r, k] = v
            amax = max(amax, abs(v))
        r += 1
    return out[:r], amax


@njit(**_JIT)
def group_by_code(codes, n_codes):
    """Stable counting sort of ``codes`` (ints in [0, n_codes)): (order, counts).

    ``order`` is the permutation np.argsort(codes, kind="stable") returns; the rows of
    code k are order[sum(counts[:k]) : sum(counts[:k + 1])], in their original order.
    """
    counts = np.zeros(n_codes, dtype=np.int64)
    for i in range(codes.shape[0]):
        counts[codes[i]] += 1
    pos = np.empty(n_codes, dtype=np.int64)
    s = 0
    for k in range(n_codes):
        pos[k] = s
        s += counts[k]
    order = np.empty(codes.shape[0], dtype=np.int64)
    for i in range(codes.shape[0]):
        c = codes[i]
        order[pos[c]] = i
        pos[c] += 1
    return order, counts
