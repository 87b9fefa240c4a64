"""Per-fold scores: the built-in metrics (GMean, balanced accuracy, accuracy, log loss, RMSE, MAE) stored in
every row, and any scikit-learn scorer an experiment names in ``experiment.metrics``.

Scikit-learn scorers (``experiment.metrics: [f1_macro, roc_auc_ovr, r2, neg_mean_absolute_error]``), as decided:

- **Names.** Any name of ``sklearn.metrics.get_scorer_names()`` (or the column it is stored as, below),
  checked before any work: an unknown name is a config error with a did-you-mean. A built-in metric's name
  (``gmean``, ``accuracy``, ...) is refused there: every row has it already.
- **Column and sign: the value a human reads.** The scorer's value times its sign. A ``neg_*`` scorer
  (scikit-learn negates errors so that its search maximises) is stored as the positive error under its name
  without ``neg_``: ``neg_mean_absolute_error`` -> column ``mean_absolute_error``, lower is better; every other
  scorer under its own name (``f1_macro``, higher is better). A column that would take a built-in metric's
  name gets the prefix ``sk_`` (``sk_accuracy``; ``neg_log_loss`` -> ``sk_log_loss``): the built-in keeps its
  meaning (its log loss clips probabilities at 1e-15, scikit-learn's at the float epsilon). The direction is
  the scorer's (``_sign``): ``report.metrics``, ``randml compare metric=``, ``best(metric=)`` and the
  statistics (:func:`randml_core.stats.higher_is_better`) take a scorer's name or its column.
- **Computed with the cell**, from the fold's test predictions, by the scorer itself called on a stand-in
  for the fitted model that returns those predictions (``predict``) and, when the family gives them, the
  class probabilities (``predict_proba``): scikit-learn picks the response method, ``pos_label`` and the
  probability column as for the fitted model. A classifier without ``predict_proba`` (``SVC`` with
  ``probability=False``) gives its ``decision_function`` instead, computed only when a listed scorer takes
  decision values (:func:`uses_decision`); the stand-in then answers ``decision_function``, which scikit-learn's
  ``roc_auc``, ``average_precision`` and ``top_k_accuracy`` use as for the fitted model. ``roc_auc_ovr`` (and
  ``_weighted``) asks for probabilities only (scikit-learn refuses multiclass scores that do not sum to 1), so it
  is computed as scikit-learn computes one-vs-rest: each class's binary ROC AUC of its own decision column
  against the rest, averaged (macro, or weighted by prevalence) -- ``roc_auc_score(label_binarize(y, classes),
  decision, average=...)``; no softmax, whose result would depend on the scale of the decision values. On a
  binary set it is the binary ROC AUC of the decision values. Models with probabilities are scored as before.
  A scorer scores the rows of the datasets of its task (a scorer of ``sklearn.metrics._regression``: regression
  sets; any other: classification sets). What could not be scored (``neg_log_loss`` or ``roc_auc_ovo`` on a model
  without probabilities, ``f1``'s binary average on a multiclass set, a non-finite value) is NaN with the reason
  in the row's ``scorers`` column, JSON ``{column: null | "why"}`` (a warning scikit-learn raised is noted beside
  a kept value); the cell stays ``ok`` and its built-in metrics are untouched.
- **Not part of the cell key**: adding a scorer does not invalidate stored cells. A stored ``ok`` cell whose
  ``scorers`` column lacks a scorer the experiment asks for (of its dataset's task) counts as missing for
  ``randml run``, which computes it again: the same deterministic fit (same key and built-in metrics), whose
  newer row wins by the store's rule (ok, then the latest timestamp). Storing each fold's test predictions
  instead would score new metrics without a refit, but costs about 1 KB per cell before compression (an
  int8 label and a float32 probability per test sample: a 94,230-cell grid experiment, inner folds
  included, would hold 93 MB) and a second scoring path; the refit is simpler and gives exactly what a fresh run stores.
"""
from __future__ import annotations

import functools
import json
import warnings
from dataclasses import dataclass

import numpy as np

from .errors import ConfigError, did_you_mean


#: the metric columns a stored row can carry (classification: gmean, accuracy, balanced_accuracy, log_loss;
#: regression: rmse, mae), in the order messages list them
STORED_METRICS = ("gmean", "accuracy", "balanced_accuracy", "log_loss", "rmse", "mae")
REGRESSION_METRICS = ("rmse", "mae")  # the others score classification rows only
#: the JSON column of a row scored by scikit-learn scorers: {column: null, or why it is NaN / what sklearn warned}
SCORERS_COLUMN = "scorers"
CLASH_PREFIX = "sk_"  # a scorer column that would take a built-in metric's name


@dataclass(frozen=True)
class Scorer:
    """A scikit-learn scorer as randml stores it."""
    name: str               # the scikit-learn scorer name (neg_mean_absolute_error)
    column: str             # the stored column (mean_absolute_error)
    higher_is_better: bool  # from the scorer's sign
    task: str               # "classification" or "regression": the datasets it scores


@functools.cache
def scorers() -> dict[str, Scorer]:
    """Every scikit-learn scorer by name (imports scikit-learn's metrics on first use only)."""
    from sklearn.metrics import get_scorer, get_scorer_names
    out = {}
    for name in get_scorer_names():
        s = get_scorer(name)
        higher = getattr(s, "_sign", 1) > 0
        column = name[4:] if name.startswith("neg_") and not higher else name
        if column in STORED_METRICS:
            column = CLASH_PREFIX + column
        module = getattr(getattr(s, "_score_func", None), "__module__", "") or ""
        out[name] = Scorer(name, column, higher, "regression" if module.endswith("_regression") else "classification")
    return out


@functools.cache
def _by_column() -> dict[str, Scorer]:
    return {s.column: s for s in scorers().values()}


def find_scorer(metric) -> Scorer | None:
    """The scorer a metric name means: a scorer's name (``neg_mean_absolute_error``) or its stored column
    (``mean_absolute_error``, ``sk_accuracy``); None for a built-in metric or any other name."""
    if not isinstance(metric, str) or metric in STORED_METRICS:
        return None
    return scorers().get(metric) or _by_column().get(metric)


def metric_column(metric: str) -> str:
    """The stored column of a metric name (a scorer's name -> its column; any other name as given)."""
    found = find_scorer(metric)
    return found.column if found is not None else metric


def scorer_direction(metric: str) -> bool | None:
    """True / False when ``metric`` names a scikit-learn scorer (or its column) and higher / lower is better."""
    found = find_scorer(metric)
    return None if found is None else found.higher_is_better


def metric_task(metric: str) -> str:
    """'regression' for a metric of regression rows (RMSE, MAE, a regression scorer), else 'classification'."""
    if metric in REGRESSION_METRICS:
        return "regression"
    if metric in STORED_METRICS:
        return "classification"
    found = find_scorer(metric)
    return found.task if found is not None else "classification"


def task_kind(task: str) -> str:
    """A dataset task (binary, multiclass, regression) as the kind of metric that scores it."""
    return "regression" if task == "regression" else "classification"


def check_scorers(names, where: str = "experiment.metrics") -> list[Scorer]:
    """``experiment.metrics``: a scorer name or a list of them, each a scikit-learn scorer (or its column),
    none listed twice. Raises ConfigError naming the key, the bad name, a did-you-mean and the fix."""
    items = [names] if isinstance(names, str) else names
    if not isinstance(items, list) or not items or not all(isinstance(n, str) and n for n in items):
        raise ConfigError(f"{where}={names!r} is invalid: a list of scikit-learn scorer names, e.g. "
                          f"[f1_macro, roc_auc_ovr] (sklearn.metrics.get_scorer_names())")
    out = []
    for name in items:
        if name in STORED_METRICS:
            raise ConfigError(f"{where} lists {name!r}, a built-in metric that every row stores; list it in "
                              f"report.metrics only" + (f" (scikit-learn's own: {CLASH_PREFIX}{name})"
                                                        if CLASH_PREFIX + name in _by_column() else ""))
        found = find_scorer(name)
        if found is None:
            known = sorted(scorers())
            raise ConfigError(f"{where} lists {name!r}, which is not a scikit-learn scorer; "
                              f"{did_you_mean(name, known)}known: {', '.join(known)}")
        if found in out:
            raise ConfigError(f"{where} lists {name!r} twice (scorer {found.name}, column {found.column})")
        out.append(found)
    return out


def check_report_metrics(metrics, experiment_metrics) -> list[str]:
    """``report.metrics`` as stored columns: built-in metrics, and scorers that ``experiment.metrics`` computes
    (by name or column). Raises ConfigError naming the metric and the fix."""
    items = metrics if isinstance(metrics, list) else [metrics]
    extra = {s.column for s in check_scorers(experiment_metrics)} if experiment_metrics else set()
    out = []
    for m in items:
        if not isinstance(m, str) or not m:
            raise ConfigError(f"report.metrics={metrics!r} is invalid: metric names, e.g. [gmean, f1_macro]")
        found = find_scorer(m)
        if m in STORED_METRICS or (found is not None and found.column in extra):
            out.append(metric_column(m))
        elif found is not None:
            raise ConfigError(f"report.metrics lists {m!r}, a scikit-learn scorer that this experiment does not "
                              f"compute; fix: add it to experiment.metrics (then `randml run` computes it for "
                              f"the stored cells)")
        else:
            valid = [*STORED_METRICS, *sorted(extra)]
            raise ConfigError(f"report.metrics={m!r} is unknown; {did_you_mean(m, [*valid, *scorers()])}choose "
                              f"one of {', '.join(valid)}, or a scikit-learn scorer listed in experiment.metrics")
    return out


def scorers_for(names, task: str) -> list[Scorer]:
    """The scorers of ``experiment.metrics`` (``names``) that score a dataset of ``task`` (binary, multiclass,
    regression)."""
    kind = task_kind(task)
    return [s for s in check_scorers(names) if s.task == kind] if names else []


@functools.cache
def _stand_ins():
    """Stand-ins for a fitted model that answer with stored test predictions (built on first use: sklearn)."""
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

    class Predicted(ClassifierMixin, BaseEstimator):
        def __init__(self, y_pred=None, classes=None, proba=None):
            self.y_pred, self.classes, self.proba = y_pred, classes, proba

        @property
        def classes_(self):
            return self.classes

        def predict(self, X):
            return self.y_pred

    class WithProba(Predicted):
        def predict_proba(self, X):
            return self.proba

    class WithDecision(Predicted):
        def decision_function(self, X):
            return self.proba  # the decision values (a model without predict_proba)

    class Regressed(RegressorMixin, BaseEstimator):
        def __init__(self, y_pred=None):
            self.y_pred = y_pred

        def predict(self, X):
            return self.y_pred
    return Predicted, WithProba, WithDecision, Regressed


def _takes_decision(s: Scorer) -> str | None:
    """How a classification scorer can score decision values: "scorer" (its response methods include
    ``decision_function``: scikit-learn's own path), "ovr" (``roc_auc_ovr``, ``roc_auc_ovr_weighted``: asks for
    probabilities; :func:`_ovr_auc_of_decision`), else None."""
    from sklearn.metrics import get_scorer
    scorer = get_scorer(s.name)
    methods = getattr(scorer, "_response_method", None)
    methods = (methods,) if isinstance(methods, str) else tuple(methods or ())
    if "decision_function" in methods:
        return "scorer"
    if (getattr(scorer, "_kwargs", None) or {}).get("multi_class") == "ovr" \
            and getattr(getattr(scorer, "_score_func", None), "__name__", "") == "roc_auc_score":
        return "ovr"
    return None


def uses_decision(names) -> bool:
    """True if a classification scorer of ``experiment.metrics`` (``names``) takes decision values: then the
    plain evaluator computes ``decision_function`` for a classifier without ``predict_proba``, else never."""
    return any(s.task == "classification" and _takes_decision(s) for s in check_scorers(names)) if names else False


def _ovr_auc_of_decision(s: Scorer, y_true, labels, decision) -> float:
    """``roc_auc_ovr`` (``_weighted``) of decision values, as scikit-learn computes one-vs-rest for probabilities:
    each class's binary ROC AUC of its decision column (columns in ``labels`` order) against the other classes,
    averaged as the scorer's ``average`` says (macro, or weighted by the class's prevalence); on a binary set the
    binary ROC AUC of the (1-D) decision values, positive class ``labels[1]``."""
    from sklearn.metrics import get_scorer, roc_auc_score
    from sklearn.preprocessing import label_binarize
    d, y_true, labels = np.asarray(decision, dtype=float), np.asarray(y_true), np.asarray(labels)
    if d.ndim == 1:
        if len(labels) != 2:
            raise ValueError(f"one decision value per sample on a set of {len(labels)} classes")
        return float(roc_auc_score((y_true == labels[1]).astype(int), d))
    if d.shape[1] != len(labels) or len(np.unique(y_true)) != len(labels):
        raise ValueError(f"Number of classes in y_true ({len(np.unique(y_true))}) not equal to the number of "
                         f"columns in the decision values ({d.shape[1]}) or of the dataset's classes ({len(labels)})")
    average = (getattr(get_scorer(s.name), "_kwargs", None) or {}).get("average", "macro")
    return float(roc_auc_score(label_binarize(y_true, classes=labels), d, average=average))


def _one_score(s: Scorer, estimator, y_true, compute=None, decision_only: bool = False) -> tuple[float, str | None]:
    """The scorer's value times its sign and a note (why NaN, or what scikit-learn warned). ``compute() -> value``
    replaces the scorer's own call (roc_auc_ovr of decision values); ``decision_only``: the stand-in answers
    decision values, not probabilities."""
    from sklearn.metrics import get_scorer
    scorer = get_scorer(s.name)
    X = np.zeros((len(y_true), 0))  # never read: the stand-in answers with the stored predictions
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            value = float(compute() if compute is not None else scorer(estimator, X, y_true)) \
                * (1 if s.higher_is_better else -1)
        except AttributeError as exc:
            if decision_only and "predict_proba" in str(exc):
                return float("nan"), (f"{s.name} needs class probabilities (predict_proba), and this model gives "
                                      "decision values only; fix: a model with predict_proba (SVC: "
                                      "probability=True), or a scorer of decision values (roc_auc, roc_auc_ovr)")
            if "predict_proba" in str(exc) or "decision_function" in str(exc):
                return float("nan"), (f"{s.name} needs class probabilities (predict_proba) or decision values, "
                                      "and this model gave none")
            return float("nan"), f"{type(exc).__name__}: {exc}"
        except Exception as exc:
            return float("nan"), f"{type(exc).__name__}: {exc}"
    if not np.isfinite(value):
        return float("nan"), f"{s.name} is not finite ({value})"
    notes = sorted({f"{w.category.__name__}: {w.message}" for w in said})
    return value, "; ".join(notes) or None


def scorer_scores(names, problem: str, y_true, y_pred, labels, proba=None, decision=None) -> dict:
    """The columns of ``experiment.metrics``'s scorers that score a ``problem`` set, for one fold's test
    predictions (``proba``: class probabilities, columns in ``labels`` order, or None; ``decision``: the
    ``decision_function`` values of a model without probabilities, read only when ``proba`` is None), plus the
    ``scorers`` JSON column; {} when none of them scores ``problem`` sets."""
    chosen = scorers_for(names, problem)
    if not chosen:
        return {}
    predicted, with_proba, with_decision, regressed = _stand_ins()
    decision_only = problem != "regression" and proba is None and decision is not None
    if problem == "regression":
        estimator = regressed(np.asarray(y_pred))
    elif decision_only:
        estimator = with_decision(np.asarray(y_pred), np.asarray(labels), np.asarray(decision))
    elif proba is None:
        estimator = predicted(np.asarray(y_pred), np.asarray(labels))
    else:
        estimator = with_proba(np.asarray(y_pred), np.asarray(labels), np.asarray(proba))
    out, notes = {}, {}
    for s in chosen:
        compute = None
        if decision_only and _takes_decision(s) == "ovr":
            def compute(s=s):
                return _ovr_auc_of_decision(s, y_true, labels, decision)
        out[s.column], notes[s.column] = _one_score(s, estimator, np.asarray(y_true), compute, decision_only)
    out[SCORERS_COLUMN] = json.dumps(notes, sort_keys=True)
    return out


def scored_columns(text) -> set[str]:
    """The scorer columns a row's ``scorers`` JSON says were computed (a value or a reason for NaN)."""
    return set(json.loads(text)) if isinstance(text, str) and text else set()


def unscored(frame, metric: str) -> int:
    """How many ``ok`` rows of ``frame`` (rows of the sets ``metric`` scores) were never scored by the scorer
    stored as ``metric`` (stored before it was listed in ``experiment.metrics``; ``randml run`` scores them); 0 for a
    built-in metric. A row whose scorer gave NaN with a reason counts as scored."""
    found = find_scorer(metric)
    if found is None or not len(frame):
        return 0
    ok = frame[frame["status"] == "ok"] if "status" in frame.columns else frame
    texts = ok[SCORERS_COLUMN] if SCORERS_COLUMN in ok.columns else [None] * len(ok)
    return sum(found.column not in scored_columns(t) for t in texts)


def not_scored(frame, metric: str) -> list[str]:
    """One line per reason the scorer stored as ``metric`` gave NaN in ``frame``'s ``ok`` rows: "MODEL(S) (N cells):
    why" (e.g. a model without probabilities for ``roc_auc``); [] for a built-in metric."""
    if find_scorer(metric) is None or SCORERS_COLUMN not in frame.columns or metric not in frame.columns:
        return []
    rows = frame[(frame["status"] == "ok") & frame[metric].isna()] if "status" in frame.columns else frame
    why: dict[str, dict[str, int]] = {}
    for model, text in zip(rows["model"], rows[SCORERS_COLUMN]):
        note = json.loads(text).get(metric) if isinstance(text, str) and text else None
        if note:
            why.setdefault(note, {}).setdefault(model, 0)
            why[note][model] += 1
    return [f"{', '.join(models)} ({sum(models.values())} cells): {note}" for note, models in why.items()]


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
    """Geometric mean of per-class recalls; binary: sqrt(TPR * TNR) (Kubat and Matwin, 1997)."""
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
