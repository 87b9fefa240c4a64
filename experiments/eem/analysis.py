"""EEM paper Section 4 / Table 1: how well the optimised term tracks the full D_CS.

For a hidden layer (random projection to H) and a random linear operator beta, the projected class
Gaussians are N(m+-, S+-) with m+- = beta^T m+-, S+- = beta^T Sigma+- beta (Ledoit-Wolf Sigma). The
paper computes Spearman's rank correlation between D_CS of those Gaussians (Eq. 3, corrected in
ERRATA) and the term (m+ - m-)^2 / (S+ + S-) that EEM maximises, over 100 random hidden layers x
100 random beta per dataset. The paper does not say how beta is drawn: we use N(0, I_h).

``families.py`` registers the analysis as the family ``eem_dcs_probe`` for the runner.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr
from sklearn.base import BaseEstimator
from sklearn.utils.validation import validate_data

from randml_core.models.divergence import dcs_gaussian
from randml_core.models._common import check_binary, int_seed
from randml_core.models.eem import _lw_covariance
from randml_core.family import CellResult, Split, guard, timed
from randml_core.models.hidden import activate, draw_hidden


class DCSCorrelationProbe(BaseEstimator):
    """Spearman correlation between D_CS and its optimised term over random layers and betas.

    Fitted: ``spearman_`` (over all n_layers x n_betas pairs), ``spearman_per_layer_`` (one per layer),
    ``dcs_`` and ``term_`` (n_layers, n_betas), ``saturated_fraction_`` (mean share of hidden units that
    are constant on the whole dataset: the sigmoid saturation of Section 7.3), ``near_one_fraction_``
    (share of all activations above 0.999).
    """

    def __init__(self, n_hidden=100, activation="rbf", n_layers=100, n_betas=100, random_state=None):
        self.n_hidden = n_hidden
        self.activation = activation
        self.n_layers = n_layers
        self.n_betas = n_betas
        self.random_state = random_state

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_binary(y, type(self).__name__)
        pos = y == np.unique(y)[1]
        streams = np.random.SeedSequence(int_seed(self.random_state)).spawn(int(self.n_layers))
        h = int(self.n_hidden)
        saturated, near_one = [], []
        dcs = np.empty((len(streams), int(self.n_betas)))
        term = np.empty_like(dcs)
        for i, ss in enumerate(streams):
            layer_seed, beta_seed = ss.spawn(2)
            W, b = draw_hidden(X.shape[1], h, int(layer_seed.generate_state(1)[0]))
            H = activate(X, W, b, self.activation)
            saturated.append(float(np.mean(np.ptp(H, axis=0) < 1e-6)))  # units constant on every row
            near_one.append(float(np.mean(H > 0.999)))                   # activations within 1e-3 of 1
            (Sp, _), (Sn, _) = _lw_covariance(H[pos]), _lw_covariance(H[~pos])
            B = np.random.default_rng(beta_seed).standard_normal((int(self.n_betas), h))
            mp, mn = B @ H[pos].mean(0), B @ H[~pos].mean(0)
            sp = np.einsum("ij,jk,ik->i", B, Sp, B)
            sn = np.einsum("ij,jk,ik->i", B, Sn, B)
            dcs[i] = dcs_gaussian(mp, sp, mn, sn)
            term[i] = (mp - mn) ** 2 / (sp + sn)
        ok = np.isfinite(dcs) & np.isfinite(term)
        self.dcs_, self.term_ = dcs, term
        self.saturated_fraction_ = float(np.mean(saturated))
        self.near_one_fraction_ = float(np.mean(near_one))
        self.spearman_ = float(spearmanr(dcs[ok], term[ok]).statistic)
        self.spearman_per_layer_ = np.array([spearmanr(d[m], t[m]).statistic if m.sum() > 2 else np.nan
                                             for d, t, m in zip(dcs, term, ok)])
        return self


def evaluate_probe(split: Split, settings: list[dict]) -> list[CellResult]:
    out = []
    for params in settings:
        def one(params=params):
            probe, secs = timed(lambda: DCSCorrelationProbe(**params, random_state=split.seed)
                                 .fit(split.X_train, split.y_train))
            return CellResult(params, None, secs, 0.0, extras={
                "spearman": probe.spearman_, "spearman_layer_mean": float(np.nanmean(probe.spearman_per_layer_)),
                "spearman_layer_std": float(np.nanstd(probe.spearman_per_layer_)),
                "saturated_fraction": probe.saturated_fraction_, "near_one_fraction": probe.near_one_fraction_})
        out.append(guard(params, one))
    return out

