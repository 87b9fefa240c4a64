"""Tests for randml_core.models.elmboost (Andrecut 2023, ELM ridge-regression boosting).

References are computed a different way from the implementation: projections are
re-drawn through ``SeedSequence(seed).spawn(...)`` (the code uses ``spawn_key``), ridge
solutions come from ``numpy.linalg.lstsq`` on the augmented system
``[H; sqrt(mu) I] W = [Y; 0]`` (the code uses Cholesky of ``H^T H + mu I``), and the
level/step recursion is written literally from Eqs. (7)-(19) (the code keeps one
running residual).
"""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_digits
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

import randml_core.models.elmboost as elmboost
from randml_core.models.elmboost import (
    ELMBoostClassifier,
    ELMBoostNormalizer,
    RidgeELMClassifier,
)


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    # The machine has 2 cores shared with other jobs; on these small problems a
    # multi-threaded OpenBLAS spends most of its time spinning.  One thread keeps the
    # file fast and does not change any result asserted here beyond rounding.
    with threadpool_limits(limits=1):
        yield


def _normalise_by_hand(X):
    X = np.sqrt(X)
    X = X - X.mean(axis=1, keepdims=True)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


_DIGITS = load_digits()
_XALL = _normalise_by_hand(_DIGITS.data.astype(np.float64))
_YALL = _DIGITS.target
# Small fixed split (digits are not ordered by class).
X_TR, Y_TR = _XALL[:300], _YALL[:300]
X_TE, Y_TE = _XALL[300:450], _YALL[300:450]


def _proj_ref(seed, level, step, n_hidden, n_features):
    """R_t^l drawn through the documented spawn tree (independent of spawn_key use)."""
    ss = np.random.SeedSequence(seed).spawn(level + 1)[level].spawn(step + 1)[step]
    return np.random.default_rng(ss).standard_normal((n_hidden, n_features))


def _act_ref(Z, activation):
    return np.tanh(Z) if activation == "tanh" else np.where(Z >= 0, 1.0, -1.0)


def _ridge_lstsq(H, T, mu):
    J = H.shape[1]
    A = np.vstack([H, np.sqrt(mu) * np.eye(J)])
    b = np.vstack([T, np.zeros((J, T.shape[1]))])
    return np.linalg.lstsq(A, b, rcond=None)[0]


def _onehot(y, classes):
    return (y[:, None] == classes[None, :]).astype(np.float64)


def _paper_reference(X, y, Xt, L, T, alpha, mu, J, seed, activation):
    """Eqs. (7)-(19) written literally: per-level targets Y'_{l-1}, per-step sums, Y_l."""
    classes = np.unique(y)
    Y = _onehot(y, classes)
    M = X.shape[1]
    Ws, Y_levels = [], []
    Yprime = Y  # Y'_{-1} = Y (Eq. 7)
    for lev in range(L):
        Hs, Wl = [], []
        for t in range(T):
            R = _proj_ref(seed, lev, t, J, M)
            H = _act_ref(X @ R.T, activation)  # Eq. (20)
            target = Yprime - alpha * sum((Hp @ Wp for Hp, Wp in zip(Hs, Wl)), np.zeros_like(Y))
            Wl.append(_ridge_lstsq(H, target, mu))  # Eqs. (8), (10), (14), (15)
            Hs.append(H)
        Y_levels.append(alpha * sum(H @ W for H, W in zip(Hs, Wl)))  # Eqs. (11), (16)
        Yprime = Y - sum(Y_levels)  # Eqs. (12), (17)
        Ws.append(Wl)
    Yt = np.zeros((Xt.shape[0], len(classes)))
    for lev in range(L):
        for t in range(T):
            R = _proj_ref(seed, lev, t, J, M)
            Yt += alpha * _act_ref(Xt @ R.T, activation) @ Ws[lev][t]  # Eqs. (18)-(19)
    return np.array(Ws), Yt


# --------------------------------------------------------------------------- ridge step


@pytest.mark.parametrize("activation", ["tanh", "sign"])
def test_single_ridge_step_matches_lstsq_on_augmented_system(activation):
    X = X_TR.copy()
    X[5] = 0.0  # a zero row: sign(0) must give +1 (Eq. 22, documented choice)
    mu, J = 0.7, 40
    m = ELMBoostClassifier(
        n_levels=1, n_steps=1, alpha=1.0, ridge=mu, n_hidden=J, activation=activation, dtype="float64", random_state=3
    ).fit(X, Y_TR)
    R = _proj_ref(m.seed_, 0, 0, J, X.shape[1])
    H = _act_ref(X @ R.T, activation)
    if activation == "sign":
        assert_array_equal(H[5], np.ones(J))
    W_ref = _ridge_lstsq(H, _onehot(Y_TR, m.classes_), mu)
    assert m.coefs_.shape == (1, 1, J, 10)
    assert_allclose(m.coefs_[0, 0], W_ref, rtol=1e-8, atol=1e-10)
    # Prediction (Eqs. 5-6) with the projection regenerated independently.
    S_ref = _act_ref(X_TE @ R.T, activation) @ W_ref
    assert_allclose(m.decision_function(X_TE), S_ref, rtol=1e-8, atol=1e-10)
    assert_array_equal(m.predict(X_TE), m.classes_[S_ref.argmax(1)])


def test_float32_ridge_step_close_to_float64_reference():
    m = ELMBoostClassifier(n_levels=1, n_steps=1, alpha=1.0, random_state=1).fit(X_TR, Y_TR)
    assert m.coefs_.dtype == np.float32
    R = _proj_ref(m.seed_, 0, 0, 64, 64)
    W_ref = _ridge_lstsq(np.tanh(X_TR @ R.T), _onehot(Y_TR, m.classes_), 1.0)
    assert_allclose(m.coefs_[0, 0], W_ref, rtol=0, atol=2e-4 * np.abs(W_ref).max())


# ----------------------------------------------------------------- boosting recursion


@pytest.mark.parametrize("activation", ["tanh", "sign"])
def test_levels_and_steps_follow_paper_equations(activation):
    L, T, alpha, mu, J = 3, 2, 0.5, 0.6, 24
    m = ELMBoostClassifier(
        n_levels=L, n_steps=T, alpha=alpha, ridge=mu, n_hidden=J, activation=activation, dtype="float64", random_state=7
    ).fit(X_TR, Y_TR)
    W_ref, S_ref = _paper_reference(X_TR, Y_TR, X_TE, L, T, alpha, mu, J, m.seed_, activation)
    assert m.coefs_.shape == W_ref.shape
    assert_allclose(m.coefs_, W_ref, rtol=1e-7, atol=1e-9)
    assert_allclose(m.decision_function(X_TE), S_ref, rtol=1e-7, atol=1e-9)


def test_one_level_one_step_equals_plain_ridge_elm():
    base = RidgeELMClassifier(ridge=0.5, random_state=11).fit(X_TR, Y_TR)
    same = ELMBoostClassifier(n_levels=1, n_steps=1, alpha=1.0, ridge=0.5, random_state=11).fit(X_TR, Y_TR)
    half = ELMBoostClassifier(n_levels=1, n_steps=1, alpha=0.5, ridge=0.5, random_state=11).fit(X_TR, Y_TR)
    assert base.coefs_.shape == (1, 1, 64, 10)
    assert_array_equal(base.coefs_, same.coefs_)
    assert_array_equal(base.decision_function(X_TE), same.decision_function(X_TE))
    # With T = 1 the first target is Y itself whatever alpha is (Eq. 8); the output is
    # alpha * H W (Eq. 11), so the arg-max (Eq. 5) is the plain ridge ELM's.
    assert_array_equal(half.coefs_, base.coefs_)
    assert_allclose(half.decision_function(X_TE), 0.5 * base.decision_function(X_TE), rtol=1e-6)
    assert_array_equal(half.predict(X_TE), base.predict(X_TE))


def test_training_residual_is_non_increasing_and_matches_staged_scores():
    m = ELMBoostClassifier(n_levels=4, n_steps=3, alpha=0.5, ridge=1.0, dtype="float64", random_state=2)
    m.fit(X_TR, Y_TR)
    Y = _onehot(Y_TR, m.classes_)
    mse_level = [np.mean((Y - S) ** 2) for S in m.staged_decision_function(X_TR)]
    assert_allclose(m.train_mse_, mse_level, rtol=1e-10)
    # ||E - a H W||^2 <= ||E||^2 - a (2 - a) ||H W||^2  (ridge optimality), step by step.
    mse_step = [np.mean((Y - S) ** 2) for S in m.staged_decision_function(X_TR, per_step=True)]
    assert np.all(np.diff([np.mean(Y**2)] + mse_step) < 0)


def test_boosting_beats_plain_ridge_elm_on_digits():
    Xtr, ytr, Xte, yte = _XALL[:1200], _YALL[:1200], _XALL[1200:], _YALL[1200:]
    plain = RidgeELMClassifier(random_state=0).fit(Xtr, ytr).score(Xte, yte)
    boosted = ELMBoostClassifier(n_levels=3, n_steps=10, random_state=0).fit(Xtr, ytr).score(Xte, yte)
    assert boosted >= plain + 0.02
    assert boosted > 0.95


# ------------------------------------------------------------- projections and memory


def test_projections_regenerated_at_predict_equal_those_used_in_fit(monkeypatch):
    calls = []
    real = elmboost.projection_matrix

    def spy(seed, level, step, *args, **kwargs):
        R = real(seed, level, step, *args, **kwargs)
        calls.append((level, step, np.array(R, copy=True)))
        return R

    monkeypatch.setattr(elmboost, "projection_matrix", spy)
    m = ELMBoostClassifier(n_levels=2, n_steps=3, n_hidden=20, random_state=5).fit(X_TR, Y_TR)
    fit_calls = list(calls)
    calls.clear()
    m.predict(X_TE)
    pred_calls = list(calls)
    assert [c[:2] for c in fit_calls] == [(lev, t) for lev in range(2) for t in range(3)]
    assert [c[:2] for c in pred_calls] == [c[:2] for c in fit_calls]
    for (_, _, Rf), (_, _, Rp) in zip(fit_calls, pred_calls):
        assert_array_equal(Rf, Rp)
    # All six differ from one another and equal the documented derivation.
    assert len({R.tobytes() for *_, R in fit_calls}) == 6
    for lev, t, R in fit_calls:
        assert_array_equal(R, _proj_ref(m.seed_, lev, t, 20, 64).astype(np.float32))


def test_fitted_model_stores_only_W_and_seed():
    L, T, J, K = 3, 4, 64, 10
    m = ELMBoostClassifier(n_levels=L, n_steps=T, random_state=0).fit(X_TR, Y_TR)
    arrays = {k: v for k, v in vars(m).items() if isinstance(v, np.ndarray)}
    assert set(arrays) == {"coefs_", "classes_", "train_mse_"}
    assert m.coefs_.nbytes == L * T * J * K * 4
    blob = pickle.dumps(m)
    # The projections would take L*T*J*M*4 = 196 kB; the pickle is W plus small change.
    assert len(blob) < m.coefs_.nbytes + 4096
    m2 = pickle.loads(blob)
    assert_array_equal(m2.decision_function(X_TE), m.decision_function(X_TE))


def test_float32_and_float64_use_the_same_projections():
    m32 = ELMBoostClassifier(n_levels=2, n_steps=3, dtype="float32", random_state=4).fit(X_TR, Y_TR)
    m64 = ELMBoostClassifier(n_levels=2, n_steps=3, dtype="float64", random_state=4).fit(X_TR, Y_TR)
    assert m32.seed_ == m64.seed_
    assert m32.coefs_.dtype == np.float32 and m64.coefs_.dtype == np.float64
    assert_allclose(m32.decision_function(X_TE), m64.decision_function(X_TE), atol=1e-3)


def test_random_state_semantics():
    a = ELMBoostClassifier(n_levels=1, n_steps=2, random_state=0).fit(X_TR, Y_TR)
    b = ELMBoostClassifier(n_levels=1, n_steps=2, random_state=0).fit(X_TR, Y_TR)
    c = ELMBoostClassifier(n_levels=1, n_steps=2, random_state=1).fit(X_TR, Y_TR)
    d = ELMBoostClassifier(n_levels=1, n_steps=2, random_state=np.random.RandomState(0)).fit(X_TR, Y_TR)
    assert a.seed_ == b.seed_ == d.seed_ and a.seed_ != c.seed_
    assert_array_equal(a.coefs_, b.coefs_)
    assert not np.allclose(a.coefs_, c.coefs_)


# ------------------------------------------------------------------------ staged output


def test_staged_scores_equal_fits_truncated_at_that_level():
    kw = dict(n_steps=3, alpha=0.5, n_hidden=32, random_state=9)
    full = ELMBoostClassifier(n_levels=4, **kw).fit(X_TR, Y_TR)
    staged = list(full.staged_decision_function(X_TE))
    staged_labels = list(full.staged_predict(X_TE))
    per_step = list(full.staged_decision_function(X_TE, per_step=True))
    assert len(staged) == 4 and len(per_step) == 12
    for lev in range(4):
        part = ELMBoostClassifier(n_levels=lev + 1, **kw).fit(X_TR, Y_TR)
        assert_array_equal(part.coefs_, full.coefs_[: lev + 1])
        assert_allclose(staged[lev], part.decision_function(X_TE), rtol=1e-6, atol=1e-6)
        assert_array_equal(staged_labels[lev], part.predict(X_TE))
        assert_array_equal(per_step[3 * lev + 2], staged[lev])
    assert_array_equal(staged[-1], full.decision_function(X_TE))


@pytest.mark.parametrize("binary", [False, True])
def test_fit_staged_eval_matches_staged_decision_function(binary):
    y = (Y_TR >= 5).astype(int) if binary else Y_TR
    kw = dict(n_levels=3, n_steps=2, random_state=6)
    m = ELMBoostClassifier(**kw)
    scores = m.fit_staged_eval(X_TR, y, X_TE)
    scores_steps = ELMBoostClassifier(**kw).fit_staged_eval(X_TR, y, X_TE, per_step=True)
    plain = ELMBoostClassifier(**kw).fit(X_TR, y)
    assert_array_equal(m.coefs_, plain.coefs_)
    expected = np.stack(list(plain.staged_decision_function(X_TE)))
    assert scores.shape == ((3, len(X_TE)) if binary else (3, len(X_TE), 10))
    assert_allclose(scores, expected, rtol=1e-6, atol=1e-6)
    assert_allclose(scores_steps[1::2], scores, rtol=1e-6, atol=1e-6)
    if binary:  # decision = Y~[:, 1] - Y~[:, 0]; > 0 means classes_[1]
        S = np.zeros((len(X_TE), 2))
        for lev in range(3):
            for t in range(2):
                R = _proj_ref(m.seed_, lev, t, 64, 64)
                S += 0.5 * np.tanh(X_TE @ R.T) @ m.coefs_[lev, t]
        assert_allclose(scores[-1], S[:, 1] - S[:, 0], atol=1e-4)
        assert_array_equal(m.predict(X_TE), np.where(S[:, 1] > S[:, 0], 1, 0))


# ---------------------------------------------------------------- numerics, validation


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tiny_ridge_falls_back_and_interpolates(dtype):
    # J = 40 > N = 6 and mu ~ 0: Cholesky of H^T H + mu I fails; the fallback must still
    # return the (near) minimum-norm interpolant, i.e. H W = Y on the training rows.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 3))
    y = np.array([0, 1, 0, 1, 2, 2])
    m = ELMBoostClassifier(n_levels=1, n_steps=1, alpha=1.0, ridge=1e-30, n_hidden=40, dtype=dtype, random_state=0)
    m.fit(X, y)
    assert_allclose(m.decision_function(X), np.eye(3)[y], atol=1e-4)


@pytest.mark.parametrize(
    "params",
    [
        {"alpha": 0.0},
        {"alpha": 1.5},
        {"ridge": 0.0},
        {"n_levels": 0},
        {"n_steps": 1.5},
        {"n_hidden": 0},
        {"activation": "relu"},
        {"dtype": "float16"},
    ],
)
def test_invalid_parameters_raise_in_fit_not_init(params):
    m = ELMBoostClassifier(**params)  # no validation in __init__
    with pytest.raises(ValueError):
        m.fit(X_TR[:20], Y_TR[:20])


@pytest.mark.parametrize("activation", ["tanh", "sign"])
@pytest.mark.parametrize("scale", ["n_samples", "trace"])
def test_ridge_scale_adds_the_scaled_lambda_to_the_unnormalised_gram(activation, scale):
    # One step, alpha = 1: W solves (H^T H + lam I) W = Y with lam = mu N or mu tr(H^T H) / J,
    # H rebuilt from the documented spawn tree and the minimiser taken by least squares.
    mu, J, N = 0.3, 30, X_TR.shape[0]
    m = ELMBoostClassifier(n_levels=1, n_steps=1, alpha=1.0, ridge=mu, n_hidden=J, activation=activation,
                           dtype="float64", random_state=5, ridge_scale=scale).fit(X_TR, Y_TR)
    H = _act_ref(X_TR @ _proj_ref(m.seed_, 0, 0, J, X_TR.shape[1]).T, activation)
    lam = mu * N if scale == "n_samples" else mu * np.sum(H * H) / J
    if activation == "sign":
        assert lam == pytest.approx(mu * N)  # every diagonal entry of H^T H is N for +-1 entries
    assert_allclose(m.coefs_[0, 0], _ridge_lstsq(H, _onehot(Y_TR, m.classes_), lam), rtol=1e-8, atol=1e-12)
    # the literal reading with ridge = lam is the same fit; the default (literal mu) is not
    lit = ELMBoostClassifier(n_levels=1, n_steps=1, alpha=1.0, ridge=lam, n_hidden=J, activation=activation,
                             dtype="float64", random_state=5).fit(X_TR, Y_TR)
    assert_allclose(m.coefs_, lit.coefs_, rtol=1e-10, atol=1e-14)
    default = ELMBoostClassifier(n_levels=1, n_steps=1, alpha=1.0, ridge=mu, n_hidden=J, activation=activation,
                                 dtype="float64", random_state=5).fit(X_TR, Y_TR)
    assert default.get_params()["ridge_scale"] == "none"
    # ||W(lam)|| decreases strictly in lam on every column (ridge path), and lam = mu N or mu tr/J > mu here
    assert (np.linalg.norm(default.coefs_[0, 0], axis=0) > np.linalg.norm(m.coefs_[0, 0], axis=0)).all()


def test_ridge_scale_boosting_matches_paper_reference_with_lambda_n():
    # Over levels and steps, "n_samples" is the paper's Eqs. (7)-(19) with lambda = mu N.
    L, T, alpha, mu, J = 2, 3, 0.5, 0.02, 25
    N = X_TR.shape[0]
    m = ELMBoostClassifier(n_levels=L, n_steps=T, alpha=alpha, ridge=mu, n_hidden=J, dtype="float64",
                           random_state=9, ridge_scale="n_samples").fit(X_TR, Y_TR)
    Ws, Yt = _paper_reference(X_TR, Y_TR, X_TE, L, T, alpha, mu * N, J, m.seed_, "tanh")
    assert_allclose(m.coefs_, Ws, rtol=1e-7, atol=1e-10)
    assert_allclose(m.decision_function(X_TE), Yt, rtol=1e-7, atol=1e-10)


def test_invalid_ridge_scale_names_the_parameter():
    with pytest.raises(ValueError, match="ridge_scale must be one of"):
        ELMBoostClassifier(ridge_scale="N").fit(X_TR[:20], Y_TR[:20])


# --------------------------------------------------------------------- normaliser (21)


def test_normalizer_eq21_by_hand():
    X = np.array([[1.0, 4.0, 9.0, 16.0], [0.0, 0.0, 0.0, 0.0], [4.0, 4.0, 4.0, 4.0]])
    out = ELMBoostNormalizer().fit_transform(X)
    # sqrt -> [1, 2, 3, 4]; minus mean 2.5 -> [-1.5, -0.5, 0.5, 1.5]; norm sqrt(5).
    assert_allclose(out[0], np.array([-1.5, -0.5, 0.5, 1.5]) / np.sqrt(5.0), rtol=1e-15)
    assert_array_equal(out[1:], 0.0)  # constant rows have no direction -> zero vector
    assert_array_equal(X[0], [1.0, 4.0, 9.0, 16.0])  # copy=True leaves input alone
    # signed variant: [-4, 0, 4, 1] -> [-2, 0, 2, 1] -> minus 0.25 -> norm sqrt(8.75)
    s = ELMBoostNormalizer(sqrt="signed").fit_transform(np.array([[-4.0, 0.0, 4.0, 1.0]]))
    assert_allclose(s[0], np.array([-2.25, -0.25, 1.75, 0.75]) / np.sqrt(8.75), rtol=1e-15)
    # no sqrt: [1, 2, 3, 4] is already the centred/normed example's input
    n = ELMBoostNormalizer(sqrt=False).fit_transform(np.array([[1.0, 2.0, 3.0, 4.0]]))
    assert_allclose(n[0], out[0], rtol=1e-15)
    x32 = ELMBoostNormalizer().fit_transform(X.astype(np.float32))
    assert x32.dtype == np.float32
    with pytest.raises(ValueError, match="Negative values"):
        ELMBoostNormalizer().fit_transform(-X)
    # Agrees with the hand formula on real data (used for the fixtures above).
    assert_allclose(ELMBoostNormalizer().fit_transform(_DIGITS.data[:50]), _XALL[:50], rtol=1e-12)


def test_normalizer_per_pixel_mean_by_hand():
    # center="feature": <x_n> is the per-pixel mean of sqrt(x) over the fitted rows.
    X = np.array([[1.0, 4.0], [9.0, 0.0]])  # sqrt -> [[1, 2], [3, 0]], pixel means [2, 1]
    n = ELMBoostNormalizer(center="feature").fit(X)
    assert_allclose(n.mean_, [2.0, 1.0], rtol=1e-15)
    r = 1 / np.sqrt(2.0)
    assert_allclose(n.transform(X), [[-r, r], [r, -r]], rtol=1e-15)  # centred [[-1, 1], [1, -1]], unit norm
    # a new row is centred with the training means: [16, 0] -> [4, 0] - [2, 1] = [2, -1] -> / sqrt(5)
    assert_allclose(n.transform(np.array([[16.0, 0.0]])), [[2 / np.sqrt(5), -1 / np.sqrt(5)]], rtol=1e-15)
    assert_array_equal(n.transform(np.array([[4.0, 1.0]])), [[0.0, 0.0]])  # equal to the mean: no direction
    # the default per-image reading differs on the same rows: [1, 2] -> [-0.5, 0.5] -> [-r, r]; [3, 0] -> [r, -r]
    assert_allclose(ELMBoostNormalizer().fit_transform(np.array([[1.0, 4.0], [16.0, 0.0]])), [[-r, r], [r, -r]])
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        ELMBoostNormalizer(center="feature").transform(X)
    with pytest.raises(ValueError, match="center must be"):
        ELMBoostNormalizer(center="pixel").fit(X)


# ------------------------------------------------------------------ scikit-learn checks

# No check is skipped or expected to fail (expected_failed_checks returns {}).  The one
# check scikit-learn itself may skip, ``check_array_api_input``, raises SkipTest inside
# scikit-learn when SCIPY_ARRAY_API is unset; these estimators do not claim array-API
# support.  Small schedules keep the ~50 checks per estimator fast.
_CHECKED = [
    ELMBoostClassifier(n_levels=2, n_steps=3, random_state=0),
    ELMBoostClassifier(n_levels=2, n_steps=2, activation="sign", dtype="float64", random_state=0),
    RidgeELMClassifier(random_state=0),
    ELMBoostNormalizer(),
    ELMBoostNormalizer(sqrt="signed"),
    ELMBoostNormalizer(center="feature"),
    ELMBoostClassifier(n_levels=2, n_steps=2, ridge_scale="trace", random_state=0),
]


@parametrize_with_checks(_CHECKED, expected_failed_checks=lambda est: {})
def test_sklearn_compatible(estimator, check):
    check(estimator)
