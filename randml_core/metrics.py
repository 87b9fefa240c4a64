"""Per-fold scores: GMean, balanced accuracy, accuracy, RMSE, log loss."""
from __future__ import annotations

import numpy as np


#: the metric columns a stored row can carry (classification: gmean, accuracy, balanced_accuracy, log_loss;
#: regression: rmse, mae), in the order messages list them
STORED_METRICS = ("gmean", "accuracy", "balanced_accuracy", "log_loss", "rmse", "mae")
REGRESSION_METRICS = ("rmse", "mae")  # the others score classification rows only


def metric_task(metric: str) -> str:
    """'regression' for a metric of regression rows (RMSE, MAE), else 'classification'."""
    return "regression" if metric in REGRESSION_METRICS else "classification"


def task_kind(task: str) -> str:
    """A dataset task (binary, multiclass, regression) as the kind of metric that scores it."""
    return "regression" if task == "regression" else "classification"


def confusion(y_true, y_pred, labels=None) -> tuple[np.ndarray, np.ndarray]:
    """Confusion matrix (rows: true class, columns: predicted) and its label order."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    labels = np.unique(y_true) if labels is None else np.asarray(labels)
    index = {lab: i for i, lab in enumerate(labels.tolist())}
    cm = np.zeros((len(labels), len(labels)), dtype=np.int64)
    ti = np.array([index[v] for v in y_true.tolist()], dtype=np.int64)
    pi = np.array([index.get(v, -1) for v in y_pred.tolist()], dtype=np.int64)
    valid = pi >= 0
    np.add.at(cm, (ti[valid], pi[valid]), 1)
    return cm, labels


def recalls(y_true, y_pred, labels=None) -> np.ndarray:
    cm, _ = confusion(y_true, y_pred, labels)
    support = cm.sum(1)
    if np.any(support == 0):
        raise ValueError("a class in `labels` has no true samples; its recall is undefined")
    return np.diag(cm) / support


def gmean(y_true, y_pred, labels=None) -> float:
    """Geometric mean of per-class recalls; binary: sqrt(TPR * TNR) (EEM paper Section 7)."""
    r = recalls(y_true, y_pred, labels)
    return float(np.prod(r) ** (1.0 / len(r)))


def balanced_accuracy(y_true, y_pred, labels=None) -> float:
    """Arithmetic mean of per-class recalls."""
    return float(np.mean(recalls(y_true, y_pred, labels)))


def accuracy(y_true, y_pred) -> float:
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def rmse(y_true, y_pred) -> float:
    """Root mean squared error. Where the squares overflow (targets near 1e200) it is computed on the errors
    scaled by their largest magnitude, so it stays finite whenever the answer is; the plain formula
    otherwise (the same bits as every stored value)."""
    with np.errstate(over="ignore", invalid="ignore"):
        d = np.asarray(y_true, float) - np.asarray(y_pred, float)
        value = float(np.sqrt(np.mean(d * d)))
    if not np.isfinite(value) and np.isfinite(d).all() and len(d):
        scale = float(np.max(np.abs(d)))
        value = scale * float(np.sqrt(np.mean((d / scale) ** 2))) if scale > 0 else 0.0
    return value


def mae(y_true, y_pred) -> float:
    """Mean absolute error (``inf`` where the errors exceed the float range: the runner stores that cell failed)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.mean(np.abs(np.asarray(y_true) - y_pred)))


def log_loss(y_true, proba, labels) -> float:
    """Mean negative log-likelihood of the true class; probabilities clipped to [1e-15, 1]."""
    index = {lab: i for i, lab in enumerate(np.asarray(labels).tolist())}
    cols = np.array([index[v] for v in np.asarray(y_true).tolist()])
    p = np.clip(np.asarray(proba, float)[np.arange(len(cols)), cols], 1e-15, 1.0)
    return float(-np.mean(np.log(p)))


def classification_scores(y_true, y_pred, labels=None) -> dict[str, float]:
    """The per-fold classification metrics stored in every row."""
    return {
        "gmean": gmean(y_true, y_pred, labels),
        "balanced_accuracy": balanced_accuracy(y_true, y_pred, labels),
        "accuracy": accuracy(y_true, y_pred),
    }
