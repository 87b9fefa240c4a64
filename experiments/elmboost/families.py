"""ELM ridge boosting on images (Andrecut 2023, Section 3): the runner family ``elm_ridge_boost``.

One cell = one model setting on a dataset's fixed train/test split and one model seed:

- preprocessing: the per-sample normalisation of Eq. (21) (:class:`ELMBoostNormalizer`, sqrt,
  centre, unit norm) on the raw pixels, inside the model (the experiment sets
  ``preprocessing: none``; the evaluator refuses anything else, since a per-feature scaling
  before Eq. (21) is not the paper's);
- model: :class:`ELMBoostClassifier` (float32, Cholesky, one GEMM per product), ``J = M``;
- staged scores: the test accuracy after every level l = 0..L-1 is stored in the ``staged``
  column (stage ``s`` = levels fitted = l + 1), from the same pass as the fit
  (``fit_staged_eval``: each projection is drawn once and applied to the training and test rows);
- noise robustness (paper, Conclusion: "if 10% of the pixels in the images are randomly set to
  zero ..."): a variant with ``test_noise=0.1`` is scored on a corrupted copy of the test set,
  :func:`zero_pixels` (exactly ``round(0.1 * 784) = 78`` pixels of every test image, chosen
  uniformly without replacement, set to 0 in the raw 0..255 image before Eq. (21)). The
  corruption is seeded by ``noise_seed`` only (default 0), so every model seed and both
  activations see the same corrupted images (paired comparisons); the training set is clean.

Shared work: settings that differ only in ``n_levels`` and ``test_noise`` are one fit, with
``L = max(n_levels)`` and the clean and noisy test sets stacked into one evaluation block. A
setting with fewer levels takes the first ``n_levels`` stages, which equal a separate fit with that
``n_levels`` exactly (the projection of (level, step) does not depend on ``n_levels``; tested).
``fit_seconds`` of such a setting is the shared pass's wall time times ``n_levels / L`` (the
estimate of a standalone fit, including the same-pass test evaluation); ``predict_seconds`` is 0
because prediction happened inside that pass. Extras (``x_*`` columns): ``shared_seconds``,
``shared_levels``, ``gflops_per_s`` (achieved rate of the shared pass, flops of
:func:`boost_flops`), ``train_mse`` (training residual after the setting's last level).

Importing this module registers the family for the runner.
"""
from __future__ import annotations

import time
from collections import OrderedDict

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from randml_core.models.elmboost import ELMBoostClassifier, ELMBoostNormalizer
from randml_core.family import CellResult, Family, Split, register_family

__all__ = ["ELMBoostImageClassifier", "zero_pixels", "boost_flops", "evaluate_elmboost", "FAMILY", "SHARED_KEYS"]

#: parameters that do not change the fit (settings differing only in these share one pass)
SHARED_KEYS = ("n_levels", "test_noise")


def zero_pixels(X, fraction: float, seed: int = 0, pixels: str = "all") -> np.ndarray:
    """A copy of ``X`` with ``round(fraction * n_features)`` entries of every row set to zero.

    The entries are chosen uniformly without replacement per row: row ``i`` zeroes the
    ``k`` smallest of ``rng.random(n_features)`` where ``rng = default_rng(SeedSequence(seed))``
    draws the rows in order (row ``i`` of an ``n``-row call equals row ``i`` of a longer call).
    ``pixels="foreground"`` (sensitivity study only) draws the ``k`` among the row's nonzero
    entries (all of them when it has fewer than ``k``): the same keys, with the zero entries'
    keys pushed above every nonzero one.
    """
    X = np.array(X, dtype=np.float64 if np.asarray(X).dtype.kind in "iub" else None, copy=True)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"test_noise must be in [0, 1], got {fraction!r}")
    if pixels not in ("all", "foreground"):
        raise ValueError(f"pixels must be 'all' (uniform over the image) or 'foreground' (nonzero pixels only), "
                         f"got {pixels!r}")
    n, d = X.shape
    k = int(round(fraction * d))
    if k == 0 or n == 0:
        return X
    keys = np.random.default_rng(np.random.SeedSequence(int(seed))).random((n, d))
    if pixels == "foreground":
        keys[X == 0] += 2.0  # keys are in [0, 1): background is chosen only after every foreground pixel
    cols = np.argpartition(keys, k - 1, axis=1)[:, :k]
    X[np.arange(n)[:, None], cols] = 0
    return X


def boost_flops(n_train: int, n_features: int, n_hidden: int, n_classes: int, n_steps_total: int,
                n_eval: int = 0) -> float:
    """Floating-point operations of a fit (+ same-pass evaluation) of ``n_steps_total`` ridge steps.

    Per step: ``X R^T`` 2 N M J, ``H^T H`` N J (J + 1) (symmetric rank-N update), ``H^T E`` and
    ``H W`` 4 N J K, Cholesky J^3 / 3, two triangular solves 2 J^2 K; evaluation 2 N_e M J +
    2 N_e J K. Elementwise work (activation, residual update) is not counted.
    """
    n, m, j, k, e = map(float, (n_train, n_features, n_hidden, n_classes, n_eval))
    per_step = 2 * n * m * j + n * j * (j + 1) + 4 * n * j * k + j ** 3 / 3 + 2 * j * j * k
    per_step += 2 * e * m * j + 2 * e * j * k
    return per_step * n_steps_total


class ELMBoostImageClassifier(ClassifierMixin, BaseEstimator):
    """Eq. (21) normalisation + :class:`ELMBoostClassifier`, with an optional seeded test-time
    corruption (the paper's noise-robustness probe).

    ``fit`` normalises the (clean) training images and fits the booster. ``predict``,
    ``decision_function`` and the staged versions first apply :func:`zero_pixels` with
    ``test_noise`` and ``noise_seed`` to their input (when ``test_noise > 0``), then Eq. (21).
    ``test_noise`` is therefore an evaluation parameter, not a model parameter: the fitted
    booster does not depend on it. Other parameters: see :class:`ELMBoostClassifier`
    (paper setting: ``n_levels=20, n_steps=50, alpha=0.5, ridge=1.0, n_hidden=None`` (J = M)).
    ``normalize=False`` skips Eq. (21) (for already normalised input).
    """

    def __init__(self, n_levels=20, n_steps=50, alpha=0.5, ridge=1.0, n_hidden=None, activation="tanh",
                 dtype="float32", normalize=True, test_noise=0.0, noise_seed=0, random_state=None):
        self.n_levels = n_levels
        self.n_steps = n_steps
        self.alpha = alpha
        self.ridge = ridge
        self.n_hidden = n_hidden
        self.activation = activation
        self.dtype = dtype
        self.normalize = normalize
        self.test_noise = test_noise
        self.noise_seed = noise_seed
        self.random_state = random_state

    def _booster(self, n_levels=None) -> ELMBoostClassifier:
        return ELMBoostClassifier(n_levels=self.n_levels if n_levels is None else n_levels, n_steps=self.n_steps,
                                  alpha=self.alpha, ridge=self.ridge, n_hidden=self.n_hidden,
                                  activation=self.activation, dtype=self.dtype, random_state=self.random_state)

    def _train_input(self, X):
        X = np.asarray(X, dtype=np.float64)
        out = ELMBoostNormalizer().fit_transform(X) if self.normalize else X
        return out.astype(np.dtype(self.dtype), copy=False)

    def _test_input(self, X, test_noise=None):
        noise = self.test_noise if test_noise is None else test_noise
        X = np.asarray(X, dtype=np.float64)
        if noise:
            X = zero_pixels(X, float(noise), int(self.noise_seed))
        out = ELMBoostNormalizer().fit_transform(X) if self.normalize else X
        return out.astype(np.dtype(self.dtype), copy=False)

    def fit(self, X, y):
        self.booster_ = self._booster().fit(self._train_input(X), y)
        self.classes_ = self.booster_.classes_
        self.n_features_in_ = self.booster_.n_features_in_
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        return self.booster_.decision_function(self._test_input(X))

    def predict(self, X):
        check_is_fitted(self)
        return self.booster_.predict(self._test_input(X))

    def staged_decision_function(self, X):
        check_is_fitted(self)
        yield from self.booster_.staged_decision_function(self._test_input(X))

    def staged_predict(self, X):
        check_is_fitted(self)
        yield from self.booster_.staged_predict(self._test_input(X))


def _group(settings: list[dict]) -> "OrderedDict[str, list[int]]":
    groups: OrderedDict[str, list[int]] = OrderedDict()
    for i, p in enumerate(settings):
        key = repr(sorted((k, v) for k, v in p.items() if k not in SHARED_KEYS))
        groups.setdefault(key, []).append(i)
    return groups


def _labels(booster: ELMBoostClassifier, scores: np.ndarray) -> np.ndarray:
    return booster._labels(scores)


def evaluate_elmboost(split: Split, settings: list[dict]) -> list[CellResult]:
    """Runner evaluator: one shared fit per group of settings (see the module docstring)."""
    prep = split.options.get("preprocessing") or "minmax"
    if prep != "none":
        msg = (f"ValueError: elm_ridge_boost normalises every image with Eq. (21) itself; "
               f"set experiment.preprocessing: none (got {prep!r})")
        return [CellResult(p, None, error=msg) for p in settings]
    out: list[CellResult | None] = [None] * len(settings)
    n_test = split.X_test.shape[0]
    for idx in _group(settings).values():
        group = [settings[i] for i in idx]
        try:
            base = {k: v for k, v in group[0].items() if k not in SHARED_KEYS}
            L = max(int(p.get("n_levels", ELMBoostImageClassifier().n_levels)) for p in group)
            noises = sorted({float(p.get("test_noise", 0.0)) for p in group})
            est = ELMBoostImageClassifier(**base, n_levels=L, random_state=split.seed)
            booster = est._booster()
            t0 = time.perf_counter()
            Xtr = est._train_input(split.X_train)
            Xev = np.concatenate([est._test_input(split.X_test, nz) for nz in noises]) if n_test else None
            if Xev is None:
                booster.fit(Xtr, split.y_train)
                scores = None
            else:
                scores = booster.fit_staged_eval(Xtr, split.y_train, Xev)
            secs = time.perf_counter() - t0
            j = booster.n_hidden_
            flops = boost_flops(Xtr.shape[0], Xtr.shape[1], j, len(booster.classes_), L * booster.n_steps,
                                0 if Xev is None else Xev.shape[0])
        except Exception as exc:  # the whole group failed: record it for each of its settings
            msg = f"{type(exc).__name__}: {exc}"
            for i in idx:
                out[i] = CellResult(settings[i], None, error=msg)
            continue
        for i in idx:
            p = settings[i]
            lv = int(p.get("n_levels", L))
            block = noises.index(float(p.get("test_noise", 0.0)))
            rows = slice(block * n_test, (block + 1) * n_test)
            staged = None
            y_pred = None
            if scores is not None:
                staged = [(s + 1, _labels(booster, scores[s][rows]), None) for s in range(lv)]
                y_pred = staged[-1][1]
            extras = {"shared_seconds": secs, "shared_levels": L, "gflops_per_s": flops / secs / 1e9,
                      "train_mse": float(booster.train_mse_[lv - 1])}
            out[i] = CellResult(p, y_pred, secs * lv / L, 0.0, True, extras=extras, staged=staged)
    return out


FAMILY = Family("elm_ridge_boost", ELMBoostImageClassifier, "1", evaluate_elmboost,
                check=("digits-8x8", "none", [{"activation": a, "n_levels": n, "n_steps": 3, "alpha": 0.5, "ridge": 1.0}
                                              for a in ("tanh", "sign") for n in (1, 2)]),
                # the shared pass's seconds, levels and rate depend on the task's other cells: not the cell's result
                volatile=("shared_seconds", "shared_levels", "gflops_per_s"))
register_family(FAMILY)
