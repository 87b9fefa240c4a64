"""Search beyond grids: a model config's ``search:`` and ``budget:`` blocks (issue 32).

The spec
--------
A model config may carry, beside ``grid:``::

    search:
      kind: random          # grid | random | halving | optuna
      n: 20                 # settings (random, optuna), or the first rung's (halving)
      space:                # optional: distributions; the grid's axes join it as `choice`
        C: {loguniform: [0.01, 100.0]}
        gamma: {uniform: [0.001, 1.0]}
        degree: {int: [2, 5]}         # both ends included
        kernel: {choice: [rbf, sigmoid]}
      eta: 3                # halving: keep the top 1/eta of each rung (default 3)
      min_folds: 1          # halving: folds of the first rung (default 1)
      metric: gmean         # what the search ranks by (default gmean; rmse for regression sets)
    budget: {settings: 20}  # or {cpu_seconds: 600}: the same budget for every model of an experiment

Every evaluated setting is an ordinary cell: its key is built by :func:`randml_core.planning.make_plan` with
the same recipe as a grid cell, so a drawn setting equal to a grid setting has the grid cell's key, a
search run's cells are a subset of the full grid's when the space is the grid, and a resumed run
recomputes nothing. ``kind: grid`` (or no ``search:``) is the grid as before, with unchanged keys.

Seeds. Settings are drawn with ``numpy.random.default_rng(derive_seed(seed, "search", variant))``, ``seed`` =
``experiment.search_seed`` when set, else ``protocol.seed`` (:func:`search_seed`; the same folds under another
search seed: repeat a search with several seeds to see its seed-to-seed spread)
(:func:`randml_core.protocol.derive_seed`; ``variant`` is the table column's name), the same settings for
every dataset and fold, in this order: when every axis is a ``choice`` (a grid), ``k = min(n, size)``
indices ``rng.choice(size, size=k, replace=False)`` into the grid's settings in :meth:`Variant.settings`
order (sampling without replacement, as scikit-learn's ``ParameterSampler`` does for lists); otherwise
``n`` settings, each drawing its parameters in sorted name order: ``loguniform [a, b]`` ->
``exp(rng.uniform(log a, log b))``, ``uniform [a, b]`` -> ``rng.uniform(a, b)``, ``int [a, b]`` ->
``rng.integers(a, b + 1)``, ``choice`` -> ``values[rng.integers(len(values))]`` (a repeated setting is
dropped). ``n`` above a grid's size is that size (scikit-learn's rule).

Scopes and honest selection. A search runs per *scope*: with nested CV (``protocol.inner_splits > 0``)
per (dataset, repeat, outer fold), on that fold's inner folds only, and then the selected setting alone
is fitted on the outer fold (one outer cell per outer fold); without inner folds, per dataset over the
outer folds (the papers' optimistic best-mean rule). The selection rule (:data:`RULE`; applied by :func:`randml_core.report.comparison.search_select`): the best mean
score over the most folds any setting of the scope has (the last rung), ties to the first setting in
canonical parameter order, settings with a failed fold ineligible.

Kinds.

* ``random``: the ``n`` drawn settings, every one on every fold of the scope.
* ``halving``: successive halving over folds, as scikit-learn's ``HalvingGridSearchCV`` /
  ``HalvingRandomSearchCV`` (resource = folds): rung ``i`` evaluates its settings on the first
  ``r_i = min(F, min_folds * eta**i)`` folds of the scope (``F`` its folds; the last rung has all of
  them); the next rung keeps the top ``ceil(n_i / eta)`` by mean score over rung ``i``'s folds (a failed
  cell scores worst; ties to the first in canonical order). Rung ``i + 1`` is planned from the stored
  results of rung ``i`` (inside the run's round from the rows it computed, then once more from the store:
  :class:`randml_core.execution._Following`), so its cells are ordinary cells and the rungs run in order. With nested CV it stops when one setting is left.
* ``optuna``: Optuna's TPE sampler, sequential per scope: trial ``t`` is asked from a fresh in-memory
  study into which trials ``0 .. t-1`` were replayed from the store (``add_trial``), with the sampler's
  seed ``derive_seed(seed, "optuna", variant, dataset, repeat, fold, t)``; its value is the mean
  score over the scope's folds. The same seed and stored results give the same trials (optional extra:
  ``pip install 'randml[search]'``).

Budgets. ``budget.settings`` bounds the distinct settings a scope evaluates (``n`` defaults to it; a grid
larger than it is an error naming ``kind: random`` / ``halving``). ``budget.cpu_seconds`` bounds the
stored ``fit_seconds + predict_seconds`` of the model's cells in one scope: halving starts no rung and
optuna asks no trial once it is spent (``n`` still caps them). CPU time is measured, so a cpu budget is
not reproducible bit for bit; a settings budget is.

Trace. :func:`randml_core.results.trace` returns one row per (scope, trial or rung setting) with the
score, the folds, the cells and CPU seconds spent, and the best so far; the generic report plots the
best-so-far against the cells spent.
"""
from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass

import numpy as np

from .errors import ConfigError, did_you_mean
from .keys import canonical_params
from .protocol import derive_seed

KINDS = ("grid", "random", "halving", "optuna")
DISTRIBUTIONS = ("loguniform", "uniform", "int", "choice")
SEARCH_KEYS = {"kind": "grid | random | halving | optuna", "n": "settings (random, optuna) or the first rung's (halving)",
               "space": "{param: {loguniform|uniform|int|choice: ...}}", "eta": "halving: keep the top 1/eta (>= 2)",
               "min_folds": "halving: folds of the first rung (>= 1)",
               "metric": "the score the search ranks by (default gmean, rmse for regression sets)"}
BUDGET_KEYS = ("settings", "cpu_seconds")
RULE = ("best mean score over the most folds any setting of the scope has (the last rung), ties to the first "
        "setting in canonical order")


# -- validation --------------------------------------------------------------------------------------------

def _distribution(node, where: str, as_values):
    if not isinstance(node, dict) or len(node) != 1:
        raise ConfigError(f"{where} must be one distribution, e.g. {{loguniform: [0.01, 100.0]}}; got {node!r} "
                          f"(distributions: {', '.join(DISTRIBUTIONS)})")
    (dist, args), = node.items()
    if dist not in DISTRIBUTIONS:
        raise ConfigError(f"{where}.{dist} is not a distribution; {did_you_mean(dist, DISTRIBUTIONS)}"
                          f"choose one of {', '.join(DISTRIBUTIONS)}")
    if dist == "choice":
        return "choice", as_values(args, f"{where}.choice")
    nums = args if isinstance(args, list) else None
    numeric = nums is not None and len(nums) == 2 and all(
        isinstance(a, (int, float)) and not isinstance(a, bool) or isinstance(a, str) for a in nums)
    try:
        low, high = (float(a) for a in nums) if numeric else (None, None)
    except ValueError:
        numeric = False
    if not numeric or not low < high or (dist == "loguniform" and low <= 0):
        need = {"loguniform": "[low, high] with 0 < low < high", "uniform": "[low, high] with low < high",
                "int": "[low, high] integers with low < high"}[dist]
        raise ConfigError(f"{where}.{dist}={args!r} is invalid: {need}")
    if dist == "int":
        if low != int(low) or high != int(high):
            raise ConfigError(f"{where}.int={args!r} is invalid: both ends must be integers")
        return "int", [int(low), int(high)]
    return dist, [low, high]


def _checked_space(raw, where: str, grid: dict, valid, as_values, check_value) -> dict:
    """``search.space`` checked against the estimator (names, constraints), the grid's axes joined as choices."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}search.space must map parameters to distributions, got {raw!r}")
    space = {}
    for p, dist in raw.items():
        if p not in valid:
            raise ConfigError(f"{where}search.space.{p} is not a parameter of the model; "
                              f"{did_you_mean(p, valid)}valid: {', '.join(sorted(valid))}")
        if p in grid:
            raise ConfigError(f"{where}grid.{p} and {where}search.space.{p} both set {p}: keep one (a grid axis "
                              f"joins the search space as {{choice: [...]}})")
        name, args = _distribution(dist, f"{where}search.space.{p}", as_values)
        for v in args:
            check_value(p, int(v) if name == "int" else v)
        space[p] = {name: args}
    for p, values in grid.items():
        space[p] = {"choice": list(values)}
    return space


def _checked_budget(budget, where: str, kind: str) -> dict:
    """``budget:`` as ``{"settings": int}`` or ``{"cpu_seconds": float}`` (the latter for sequential searches)."""
    if not isinstance(budget, dict) or len(budget) != 1 or next(iter(budget)) not in BUDGET_KEYS:
        raise ConfigError(f"{where}budget={budget!r} is invalid: give one of {{settings: N}} or "
                          "{cpu_seconds: S}")
    (bkey, bval), = budget.items()
    if bkey == "settings" and (isinstance(bval, bool) or not isinstance(bval, int) or bval < 1):
        raise ConfigError(f"{where}budget.settings={bval!r} is invalid: an integer >= 1")
    if bkey == "cpu_seconds" and (isinstance(bval, bool) or not isinstance(bval, (int, float)) or bval <= 0):
        raise ConfigError(f"{where}budget.cpu_seconds={bval!r} is invalid: a number of seconds > 0")
    if bkey == "cpu_seconds" and kind not in ("halving", "optuna"):
        raise ConfigError(f"{where}budget.cpu_seconds needs a sequential search (search.kind: halving or optuna; "
                          f"this one is {kind}); for {kind} give budget: {{settings: N}}")
    return {bkey: float(bval) if bkey == "cpu_seconds" else int(bval)}


def check_search(m: dict, where: str, grid: dict, valid, as_values, check_value) -> dict | None:
    """The ``search:`` and ``budget:`` blocks of model config ``m`` as a plain dict, or None when the model is
    a plain grid. ``grid``: its checked grid axes; ``valid``: its estimator's parameter names; ``as_values``:
    the config's list checker; ``check_value(param, value)``: the estimator's constraint check. Raises
    ConfigError naming the key and the fix."""
    node, budget = m.get("search"), m.get("budget")
    if node is None and budget is None:
        return None
    node = {} if node is None else node
    if not isinstance(node, dict):
        raise ConfigError(f"{where}search must be a mapping (keys: {', '.join(SEARCH_KEYS)}), got {node!r}")
    for k in node:
        if k not in SEARCH_KEYS:
            raise ConfigError(f"{where}search.{k} is not a search key; {did_you_mean(k, SEARCH_KEYS)}valid: "
                              + "; ".join(f"{a} ({b})" for a, b in SEARCH_KEYS.items()))
    kind = node.get("kind", "grid")
    if kind not in KINDS:
        raise ConfigError(f"{where}search.kind={kind!r} is unknown; {did_you_mean(str(kind), KINDS)}"
                          f"choose one of {', '.join(KINDS)}")
    space = _checked_space(node.get("space") or {}, where, grid, valid, as_values, check_value)
    budget = _checked_budget(budget, where, kind) if budget is not None else None
    n = node.get("n")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ConfigError(f"{where}search.n={n!r} is invalid: an integer >= 1 (settings to evaluate)")
    cap = (budget or {}).get("settings")
    if n is not None and cap is not None and n > cap:
        raise ConfigError(f"{where}search.n={n} exceeds {where}budget.settings={cap}: lower n or raise the budget")
    n = n if n is not None else cap
    size = grid_size(space)
    if kind == "grid":
        if any("choice" not in d for d in space.values()):
            raise ConfigError(f"{where}search.kind=grid takes choice axes only: use kind random, halving or optuna "
                              "for continuous distributions")
        if cap is not None and size > cap:
            raise ConfigError(f"{where}grid has {size} settings, more than budget.settings={cap}: use "
                              f"search.kind: random or halving (n: {cap}) to spend that budget on the grid")
        return {"kind": "grid", "space": space, "budget": budget}
    if not space:
        raise ConfigError(f"{where}search.kind={kind} has nothing to search: give {where}grid or {where}search.space")
    if n is None and (kind != "halving" or size is None):
        raise ConfigError(f"{where}search.n is missing: how many settings {kind} evaluates (or budget: {{settings: N}})")
    eta = node.get("eta", 3)
    if isinstance(eta, bool) or not isinstance(eta, int) or eta < 2:
        raise ConfigError(f"{where}search.eta={eta!r} is invalid: an integer >= 2 (halving keeps the top 1/eta)")
    min_folds = node.get("min_folds", 1)
    if isinstance(min_folds, bool) or not isinstance(min_folds, int) or min_folds < 1:
        raise ConfigError(f"{where}search.min_folds={min_folds!r} is invalid: an integer >= 1")
    metric = node.get("metric")
    if metric is not None and (not isinstance(metric, str) or not metric):
        raise ConfigError(f"{where}search.metric={metric!r} is invalid: a stored metric name (gmean, rmse, ...)")
    if kind == "optuna":
        require_optuna(f"{where}search.kind=optuna")
    return {"kind": kind, "n": n, "space": space, "eta": eta, "min_folds": min_folds, "metric": metric,
            "budget": budget}


def require_optuna(where: str):
    try:
        import optuna
    except ImportError:
        raise ConfigError(f"{where} needs the 'optuna' package, which is not installed: pip install "
                          "'randml[search]' (or choose kind: random or halving)") from None
    return optuna


def grid_size(space: dict) -> int | None:
    """Settings of a space whose axes are all ``choice`` (None when one is continuous)."""
    if any("choice" not in d for d in space.values()):
        return None
    return math.prod(len(d["choice"]) for d in space.values())


def is_search(variant) -> bool:
    """Does this variant's plan come from a search (random, halving, optuna) rather than its grid?"""
    s = getattr(variant, "search", None)
    return bool(s) and s.get("kind") != "grid"


def describe(variant) -> str:
    """One line for ``randml plan`` / the report: the kind, n, budget and space size."""
    s = getattr(variant, "search", None) or {}
    budget = s.get("budget")
    btext = (f"; budget {', '.join(f'{k}={v:g}' if isinstance(v, float) else f'{k}={v}' for k, v in budget.items())}"
             if budget else "")
    if not is_search(variant):
        return f"grid{btext}"
    size = grid_size(s["space"])
    text = f"{s['kind']} search, n={n_settings(s)}" + (f" of {size} grid settings" if size else " (continuous space)")
    if s["kind"] == "halving":
        text += f", eta={s['eta']}, min_folds={s['min_folds']}"
    return text + btext


def n_settings(s: dict) -> int:
    size = grid_size(s["space"])
    n = s.get("n") or size
    return min(n, size) if size is not None else n


# -- draws -------------------------------------------------------------------------------------------------

def _choice_settings(space: dict) -> list[dict]:
    keys = sorted(space)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(space[k]["choice"] for k in keys))]


def _py(v):
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def search_seed(spec) -> int:
    """The seed searches draw from: ``experiment.search_seed``, else ``protocol.seed`` (the folds stay
    ``protocol.seed``'s either way)."""
    value = spec.engine.search_seed
    return spec.protocol.seed if value is None else int(value)


def draw(s: dict, variant_name: str, seed: int) -> list[dict]:
    """The settings a random or halving search evaluates (without the variant's fixed params), by the
    documented seed rule (module docstring)."""
    rng = np.random.default_rng(derive_seed(seed, "search", variant_name))
    space, n = s["space"], n_settings(s)
    size = grid_size(space)
    if size is not None:
        every = _choice_settings(space)
        return [every[int(i)] for i in rng.choice(size, size=min(n, size), replace=False)]
    out, seen = [], set()
    for _ in range(n):
        setting = {}
        for p in sorted(space):
            (dist, args), = space[p].items()
            if dist == "loguniform":
                v = float(np.exp(rng.uniform(np.log(args[0]), np.log(args[1]))))
            elif dist == "uniform":
                v = float(rng.uniform(args[0], args[1]))
            elif dist == "int":
                v = int(rng.integers(args[0], args[1] + 1))
            else:
                v = _py(args[int(rng.integers(len(args)))])
            setting[p] = v
        tag = json.dumps(setting, sort_keys=True)
        if tag not in seen:
            seen.add(tag)
            out.append(setting)
    return out


def halving_levels(n_folds: int, eta: int, min_folds: int) -> list[int]:
    """Folds of each rung: ``min(F, min_folds * eta**i)`` until all ``F`` folds are used."""
    levels, r = [], min(min_folds, n_folds)
    while True:
        levels.append(r)
        if r >= n_folds:
            return levels
        r = min(n_folds, r * eta)


# -- scopes ------------------------------------------------------------------------------------------------

class Scope:
    """One search: its folds (indices into the dataset's tasks), the task of its final outer cell (nested
    CV) or None, and how to read a cell's stored result."""

    def __init__(self, dataset, repeat, fold, folds, final, key_of, scores, metric, higher):
        self.dataset, self.repeat, self.fold = dataset, repeat, fold
        self.folds, self.final = folds, final
        self.key_of, self.scores, self.metric, self.higher = key_of, scores, metric, higher
        self.planned: list[tuple[int, dict, str]] = []  # (task index, params, its JSON) of every cell it needs
        self.trace: list[dict] = []
        self.cpu = 0.0
        self._counted: set = set()
        self._traced: set = set()

    def need(self, params: dict, folds) -> tuple[bool, float]:
        """Plan ``params`` on ``folds``; (all stored, mean score with failures as the worst)."""
        done, values, pj = True, [], _canonical(params)  # the JSON once per setting: most of a replan's time
        for ti in folds:
            self.planned.append((ti, params, pj))
            row = self.scores.get(self.key_of(ti, params, pj))
            if row is None:
                done = False
                continue
            status, value, cpu = row
            if (ti, pj) not in self._counted:
                self._counted.add((ti, pj))
                self.cpu += cpu
            values.append(value if status == "ok" and value is not None and np.isfinite(value) else math.nan)
        if not done:
            return False, math.nan
        if any(math.isnan(v) for v in values) or not values:
            return True, -math.inf
        mean = float(np.mean(values))
        return True, mean if self.higher else -mean

    def record(self, trial, rung, params, score, folds):
        """A trace row: the setting's score on ``folds`` and the cells it added to the scope's spending."""
        pj = _canonical(params)
        new = [ti for ti in folds if (ti, pj) not in self._traced]
        self._traced.update((ti, pj) for ti in new)
        self.trace.append({"dataset": self.dataset, "repeat": self.repeat, "fold": self.fold, "trial": trial,
                           "rung": rung, "params_json": pj, "score": _shown(score, self.higher),
                           "n_folds": len(folds), "cells": len(new), "cpu_seconds": self.cpu})

    def finish(self, winner: dict | None) -> None:
        if winner is not None and self.final is not None:
            self.planned.append((self.final, winner, _canonical(winner)))


def _canonical(params: dict) -> str:
    return canonical_params(params)


def _shown(score: float, higher: bool) -> float:
    if not np.isfinite(score):
        return math.nan
    return score if higher else -score


def _best(scored: list[tuple[float, dict]], k: int = 1) -> list[dict]:
    """The top ``k`` by score (higher first), ties to the first canonical params_json."""
    order = sorted(scored, key=lambda t: (-t[0] if np.isfinite(t[0]) else math.inf, _canonical(t[1])))
    return [p for _, p in order[:k]]


# -- the kinds ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SearchInputs:
    """What every search kind gets beside its :class:`Scope`: the ``search:`` block, the model's fixed parameters,
    the settings drawn for it (random, halving; None for optuna, which asks its sampler), the seed parts of the
    variant on the dataset (the scope's repeat and fold follow) and the CPU budget of a scope (None: no budget)."""
    s: dict
    fixed: dict
    settings: list | None
    seed_parts: tuple
    budget_cpu: float | None


def _random(scope: Scope, inputs: SearchInputs) -> None:
    settings = inputs.settings
    results = []
    for t, params in enumerate(settings):
        done, score = scope.need(params, scope.folds)
        if done:
            scope.record(t, 0, params, score, scope.folds)
            results.append((score, params))
    if len(results) == len(settings):
        scope.finish(_best(results)[0] if results else None)


def _halving(scope: Scope, inputs: SearchInputs) -> None:
    s, budget_cpu = inputs.s, inputs.budget_cpu
    levels = halving_levels(len(scope.folds), s["eta"], s["min_folds"])
    alive, trial, winner = list(inputs.settings), 0, None
    for rung, r in enumerate(levels):
        results, complete = [], True
        for params in alive:
            done, score = scope.need(params, scope.folds[:r])
            if not done:
                complete = False
                continue
            scope.record(trial, rung, params, score, scope.folds[:r])
            trial += 1
            results.append((score, params))
        if not complete:
            return
        winner = _best(results)[0] if results else None
        last = rung == len(levels) - 1
        if last or (scope.final is not None and len(alive) == 1):
            break
        if budget_cpu is not None and scope.cpu >= budget_cpu:
            break
        alive = _best(results, math.ceil(len(alive) / s["eta"]))
        if scope.final is not None and len(alive) == 1:
            winner = alive[0]
            break
    scope.finish(winner)


#: per scope (its seed parts) the study of this process's earlier rounds: ``[study, told, pending]``, ``told`` the
#: (drawn, score) of its finished trials in order, ``pending`` (trial, drawn) of the trial asked but not yet scored.
#: A round then tells the study its new result and asks the next trial, instead of replaying every earlier trial into
#: a fresh study (quadratic in the trials); the study is the replayed one trial for trial (tested), and any mismatch
#: with what the store says (another process's results, a changed space) falls back to the replay.
_STUDIES: dict = {}


def _optuna(scope: Scope, inputs: SearchInputs) -> None:
    s, fixed, budget_cpu = inputs.s, inputs.fixed, inputs.budget_cpu
    seed_parts = (*inputs.seed_parts, scope.repeat, scope.fold)  # (seed, "optuna", model, dataset, repeat, fold)
    optuna = require_optuna("search.kind=optuna")
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists = {}
    for p, d in s["space"].items():
        (name, args), = d.items()
        dists[p] = (CategoricalDistribution(args) if name == "choice" else IntDistribution(*args) if name == "int"
                    else FloatDistribution(args[0], args[1], log=name == "loguniform"))
    key = (*seed_parts, json.dumps(s["space"], sort_keys=True, default=str))
    done_trials, results = [], []
    for t in range(n_settings(s)):
        if budget_cpu is not None and scope.cpu >= budget_cpu:
            break
        drawn = _ask(optuna, key, dists, done_trials, derive_seed(*seed_parts, t))
        params = {**fixed, **drawn}
        done, score = scope.need(params, scope.folds)
        if not done:
            return
        scope.record(t, 0, params, score, scope.folds)
        _tell(optuna, key, t, drawn, score)
        done_trials.append((drawn, score))
        results.append((score, params))
    scope.finish(_best(results)[0] if results else None)


def _state(optuna, score):
    return optuna.trial.TrialState.COMPLETE if np.isfinite(score) else optuna.trial.TrialState.FAIL


def _ask(optuna, key, dists, done_trials: list, seed: int) -> dict:
    """The parameters of the next trial after ``done_trials``, asked with a fresh ``TPESampler(seed)`` of a study
    holding exactly those trials (the cached study of this scope when it holds them, else a replay)."""
    entry = _STUDIES.get(key)
    if entry is not None and len(done_trials) < len(entry[1]) and entry[1][:len(done_trials)] == done_trials:
        return entry[1][len(done_trials)][0]  # asked after exactly these trials in an earlier round: its answer
    if entry is not None and entry[1] == done_trials:
        if entry[2] is not None:  # asked in an earlier round, not scored yet: the same trial
            return entry[2][1]
        study = entry[0]
    else:
        study = optuna.create_study(direction="maximize")
        for params, score in done_trials:
            study.add_trial(optuna.trial.create_trial(params=params, distributions=dists, state=_state(optuna, score),
                                                      value=score if np.isfinite(score) else None))
        entry = _STUDIES[key] = [study, list(done_trials), None]
    study.sampler = optuna.samplers.TPESampler(seed=seed)
    trial = study.ask(dists)
    drawn = {p: _py(trial.params[p]) for p in sorted(dists)}
    entry[2] = (trial, drawn)
    return drawn


def _tell(optuna, key, t: int, drawn: dict, score: float) -> None:
    """Record the scored trial ``t`` in the cached study (when it is the pending one; one told already is kept)."""
    entry = _STUDIES.get(key)
    if entry is not None and t < len(entry[1]) and entry[1][t] == (drawn, score):
        return
    if entry is None or entry[2] is None or entry[2][1] != drawn:
        _STUDIES.pop(key, None)
        return
    entry[0].tell(entry[2][0], score if np.isfinite(score) else None, state=_state(optuna, score))
    entry[1].append((drawn, score))
    entry[2] = None


#: search kind -> its strategy ``(scope, inputs)``: it plans the scope's cells from the scores stored so far
#: (:meth:`Scope.need`), records its trace (:meth:`Scope.record`) and names the winner (:meth:`Scope.finish`) once it
#: has one. A grid (``kind: grid``, or no ``search:``) is planned whole and selected by the readers
#: (:func:`randml_core.results.best`).
STRATEGIES = {"random": _random, "halving": _halving, "optuna": _optuna}


# -- planning ----------------------------------------------------------------------------------------------

def scopes_of(splits) -> list[tuple[int, int, list[int], int | None]]:
    """(repeat, fold, fold task indices, final outer task index or None) of a dataset's tasks: per outer fold
    over its inner folds when there are inner folds, else one scope over the outer folds (repeat = fold = -1)."""
    inner = [i for i, sp in enumerate(splits) if sp.inner >= 0]
    if not inner:
        return [(-1, -1, [i for i, sp in enumerate(splits)], None)]
    out = []
    for i, sp in enumerate(splits):
        if sp.inner < 0:
            folds = [j for j in inner if splits[j].repeat == sp.repeat and splits[j].fold == sp.fold]
            out.append((sp.repeat, sp.fold, sorted(folds, key=lambda j: splits[j].inner), i))
    return out


def search_metric(s: dict, task: str) -> tuple[str, bool]:
    """The metric a search ranks by and whether higher is better."""
    from .metrics import metric_column
    from .direction import higher_is_better
    metric = metric_column(s.get("metric") or ("rmse" if task == "regression" else "gmean"))
    try:
        return metric, higher_is_better(metric)
    except (KeyError, ValueError):
        from .metrics import scorer_direction
        return metric, scorer_direction(metric) is not False


def expand(spec, variant, dataset: str, task: str, splits, key_of, scores: dict,
           trace: list) -> list[tuple[int, dict, str]]:
    """(task index, params) of every cell the search of ``variant`` on ``dataset`` needs given the stored
    ``scores`` (key -> (status, metric value, cpu seconds)): what it has planned so far, which grows as
    results are stored, each with its canonical JSON (:func:`randml_core.keys.canonical_params`). ``key_of(task
    index, params, its JSON)`` is the cell key. Appends trace rows to ``trace``."""
    s = variant.search
    metric, higher = search_metric(s, task)
    seed = search_seed(spec)
    settings = None if s["kind"] == "optuna" else [{**variant.fixed, **d} for d in draw(s, variant.name, seed)]
    inputs = SearchInputs(s, variant.fixed, settings, (seed, s["kind"], variant.name, dataset),
                          (s.get("budget") or {}).get("cpu_seconds"))
    strategy = STRATEGIES[s["kind"]]
    out = []
    for repeat, fold, folds, final in scopes_of(splits):
        scope = Scope(dataset, repeat, fold, folds, final, key_of, scores.get(metric, {}), metric, higher)
        strategy(scope, inputs)
        seen = set()
        for ti, params, pj in scope.planned:
            if (ti, pj) not in seen:
                seen.add((ti, pj))
                out.append((ti, params, pj))
        trace += [{"model": variant.name, "kind": s["kind"], "metric": metric, **row} for row in scope.trace]
    return out


def search_metrics(spec) -> set[str]:
    """The metric columns the searches of ``spec`` rank by (both gmean and rmse when a search names none)."""
    from .metrics import metric_column
    metrics = set()
    for v in spec.variants:
        if is_search(v):
            metrics |= {v.search.get("metric")} if v.search.get("metric") else {"gmean", "rmse"}
    return {metric_column(m) for m in metrics}


def stored_scores(spec, store_root, store=None) -> dict:
    """``{metric: {key: (status, value, cpu seconds)}}`` of the stored cells, for the metrics the searches
    of ``spec`` rank by (:func:`search_metrics`). ``store``: the run's reader (its own parts trusted), else the
    store of ``spec`` under ``store_root``."""
    from .store import store_of
    metrics = search_metrics(spec)
    if not metrics or store_root is None:
        return {}
    store = store if store is not None else store_of(spec, store_root)
    if not store.has_rows():
        return {}
    # read_columns: the verified parts by pyarrow alone (a pandas read of the whole store per trial was most of an
    # optuna trial's overhead); the same rows, by the same one-winner-per-key rule
    got = store.read_columns(["key", "status", "fit_seconds", "predict_seconds", *sorted(metrics)])
    return _scores(metrics, got, {})


def add_scores(spec, rows: list[dict], scores: dict) -> dict:
    """``scores`` (:func:`stored_scores`) with the rows a run has just computed added, each as
    :func:`stored_scores` reads it back once stored (a row replaces a stored one of its key)."""
    metrics = search_metrics(spec)
    got = {c: [r.get(c) for r in rows] for c in ("key", "status", "fit_seconds", "predict_seconds", *metrics)}
    return _scores(metrics, got, scores)


def _scores(metrics: set, got: dict, into: dict) -> dict:
    n = len(got.get("key", []))
    number = lambda values: np.array([np.nan if v is None else v for v in values], dtype=float)  # noqa: E731
    seconds = lambda c: np.nan_to_num(number(got[c])) if c in got else np.zeros(n)  # noqa: E731
    cpu = seconds("fit_seconds") + seconds("predict_seconds")
    for m in metrics:
        values = number(got[m]) if m in got else np.full(n, np.nan)
        into.setdefault(m, {}).update((k, (st, None if np.isnan(v) else float(v), float(c)))
                                      for k, st, v, c in zip(got.get("key", []), got.get("status", []), values, cpu))
    return into


# -- selection ---------------------------------------------------------------------------------------------

def last_rung_rows(frame, nested: bool):
    """The rows :func:`select` reads: per scope, only the settings with the most folds (the last rung), and
    with nested CV the outer rows. A frame of one plain grid is returned whole."""
    import pandas as pd
    if not len(frame):
        return frame
    if nested:
        inner = frame[frame["inner_fold"] >= 0]
        keys = ["dataset", "model", "repeat", "fold"]
        counts = inner.groupby([*keys, "params_json"], sort=False)["inner_fold"].transform("size")
        most = counts.groupby([inner[k] for k in keys]).transform("max")
        return pd.concat([inner[counts == most], frame[frame["inner_fold"] < 0]]).sort_index()
    outer = frame[frame["inner_fold"] < 0] if "inner_fold" in frame else frame
    counts = outer.groupby(["dataset", "model", "params_json"], sort=False)["dataset"].transform("size")
    most = counts.groupby([outer["dataset"], outer["model"]]).transform("max")
    return outer[counts == most]


# -- trace -------------------------------------------------------------------------------------------------

TRACE_COLUMNS = ["dataset", "model", "kind", "metric", "repeat", "fold", "trial", "rung", "params_json", "score",
                 "n_folds", "cells", "cpu_seconds", "cells_so_far", "best_so_far"]


def trace_frame(rows: list[dict]):
    """The trace rows of a plan (``Plan.search_trace``) as a frame: per scope (dataset, model, repeat, fold;
    repeat = fold = -1 without inner folds) in trial order, with ``cells_so_far`` (cells the scope spent up to
    and with this setting) and ``best_so_far`` (the best score so far, in the metric's direction).
    ``cpu_seconds`` is the scope's stored CPU seconds (fit + predict) read up to that row."""
    import pandas as pd
    frame = pd.DataFrame(rows, columns=[c for c in TRACE_COLUMNS if c not in ("cells_so_far", "best_so_far")])
    if not len(frame):
        return pd.DataFrame(columns=TRACE_COLUMNS)
    frame = frame.sort_values(["dataset", "model", "repeat", "fold", "trial"], kind="stable").reset_index(drop=True)
    scope = [frame[c] for c in ("dataset", "model", "repeat", "fold")]
    frame["cells_so_far"] = frame.groupby(scope)["cells"].cumsum()
    from .direction import higher_is_better
    sign = frame["metric"].map(lambda m: 1.0 if _higher(m, higher_is_better) else -1.0)
    signed = (frame["score"] * sign).fillna(-np.inf)
    best = signed.groupby(scope).cummax() * sign
    frame["best_so_far"] = best.where(np.isfinite(best))
    return frame[TRACE_COLUMNS]


def _higher(metric: str, higher_is_better) -> bool:
    try:
        return higher_is_better(metric)
    except (KeyError, ValueError):
        from .metrics import scorer_direction
        return scorer_direction(metric) is not False


# -- plan ------------------------------------------------------------------------------------------------

def cells_per_scope(s: dict, n_folds: int, nested: bool) -> int:
    """The most cells one scope of this search computes (the final outer cell included with nested CV; a
    cpu budget may stop it earlier)."""
    n = n_settings(s)
    if s["kind"] == "halving":
        total, alive, prev = 0, n, 0
        for r in halving_levels(n_folds, s["eta"], s["min_folds"]):
            total += alive * (r - prev)
            prev = r
            if nested and alive == 1:
                break
            alive = math.ceil(alive / s["eta"])
        return total + int(nested)
    return n * n_folds + int(nested)


def plan_line(spec, variant, seconds_per_cell: float | None, n_datasets: int) -> str:
    """``randml plan``'s line for a searched or budgeted model: the search, its budget, the most cells it
    computes and their predicted CPU time from the model's stored cells (median fit + predict seconds)."""
    p = spec.protocol
    nested = bool(p.inner_splits)
    outer = p.repeats * (p.n_splits if p.kind == "repeated_stratified_kfold" else 1)
    n_folds, scopes = (p.inner_splits, outer) if nested else (outer, 1)
    if is_search(variant):
        cells = cells_per_scope(variant.search, n_folds, nested) * scopes * n_datasets
        grid = grid_size(variant.search["space"])  # the space's settings when every axis is a choice, else None
        full = grid * outer * (1 + p.inner_splits) * n_datasets if grid else None
    else:
        cells = len(variant.settings()) * outer * (1 + p.inner_splits) * n_datasets
        full = None
    text = f"  model {variant.name} ({variant.family}): {describe(variant)}; at most {cells} cells"
    if full:
        text += f" ({cells / full:.0%} of the full grid's {full})"
    if seconds_per_cell is not None and math.isfinite(seconds_per_cell):
        text += f"; predicted {cells * seconds_per_cell:.0f} CPU s ({seconds_per_cell:.3g} s per stored cell)"
    else:
        text += "; predicted time unknown (no stored cell of this model)"
    return text
