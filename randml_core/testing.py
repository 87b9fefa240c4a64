"""The plug-in test kit: the checks every benchmark passes, for one benchmark by name.

A plug-in author runs them from pytest (``parametrize_with_checks``, as scikit-learn's
``parametrize_with_checks`` does for estimators) or from the shell (``randml test NAME``); the engine's own suite
runs them over every installed benchmark without naming one. The checks of a benchmark (an installed package
declared under the ``randml.benchmarks`` entry point):

- ``describes-itself``: its ``BENCHMARK`` (if any) carries its entry-point name as key, a short name and a title,
  and every result table it declares uses a known metric;
- ``family:NAME`` for each family it registers: a family with an evaluator of its own declares how it is checked
  (``Family.check``); with ``(dataset, preprocessing, settings)`` its shared work gives the same predictions as
  one plain fit per setting on the same split and seed (:func:`randml_core.family.evaluate_plain`);
- ``dataset:NAME`` for each dataset it ships (its Python table or its ``conf/dataset`` cards): the spec is valid
  and the data loads offline, or the refusal names its download;
- ``experiment:NAME`` for each config in its ``conf/experiment``: it composes, validates and plans on its smallest
  dataset (offline: an unavailable dataset is named, not fetched).

A benchmark declares the checks it is known to fail in ``Benchmark.expected_failures`` (check id -> reason): they
are expected to fail (strict: a pass is reported). Written here because no library checks this contract.
"""
from __future__ import annotations

import dataclasses
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

__all__ = ["Check", "checks", "parametrize_with_checks", "run_checks", "main"]

#: the metrics a declared result table may use
METRICS = ("gmean", "accuracy", "balanced_accuracy", "rmse")


@dataclass(frozen=True)
class Check:
    """One check of a benchmark: ``id`` (``kind:subject``), the callable that raises on failure, and the reason
    when the benchmark declares it an expected failure."""
    id: str
    run: Callable[[], None]
    expected_failure: str = ""


def _package(name: str) -> str:
    from . import plugins
    found = dict(plugins.packages())
    if name not in found:
        raise LookupError(f"no installed benchmark named {name!r}; installed: {', '.join(sorted(found)) or 'none'} "
                          "(a benchmark is declared under the 'randml.benchmarks' entry point of its package)")
    return found[name]


def _benchmark(name: str):
    from . import plugins
    return next((b for b in plugins.benchmarks() if b.package == _package(name)), None)


def _inside(path: str | None, folders: list[str]) -> bool:
    if not path:
        return False
    p = Path(path).resolve()
    return any(p.is_relative_to(Path(f).resolve()) for f in folders)


def families(name: str) -> list[str]:
    """The families benchmark ``name`` registers (their registering module is in its package's folders)."""
    from . import plugins
    from .family import FAMILIES, _ORIGINS, benchmark_family
    package = _package(name)
    plugins.load_members("families")
    folders = plugins.folders(package)
    return [n for n in FAMILIES.all() if benchmark_family(n) is not None and _inside(_ORIGINS.get(n), folders)]


def datasets(name: str) -> list[str]:
    """The datasets benchmark ``name`` ships: its Python table's specs and the cards of its ``conf/dataset``."""
    from . import plugins
    from .data.registry import _ORIGIN, _names, ensure_loaded, get_spec
    package = _package(name)
    ensure_loaded()
    folders = plugins.folders(package)
    out = []
    for n in _names():
        origin = _ORIGIN.get(n)
        card = get_spec(n).card
        if (origin and plugins.owner(origin) == package) or _inside(str(card) if card else None, folders):
            out.append(n)
    return out


def experiments(name: str) -> list[str]:
    """The experiment configs of benchmark ``name`` (``conf/experiment/*.yaml`` of its package)."""
    from . import plugins
    return sorted({p.stem for f in plugins.folders(_package(name)) for p in (Path(f) / "conf" / "experiment").glob("*.yaml")})


# --- the checks ------------------------------------------------------------------------------------------

def check_describes_itself(name: str) -> None:
    bench = _benchmark(name)
    if bench is None:
        return  # no BENCHMARK: nothing it says about itself can be wrong
    assert bench.key == name, f"BENCHMARK.key is {bench.key!r}; the entry point names it {name!r}: use the same"
    assert bench.short and bench.title, "BENCHMARK needs a short name and a title (the site's navigation and page)"
    for stem, (metric, what) in bench.tables.items():
        assert stem.startswith(name + "_"), f"table {stem!r}: a benchmark's tables start with its key {name!r}_"
        assert metric in METRICS and what, f"table {stem!r}: metric {metric!r} (one of {METRICS}) and a description"


def check_family(family: str) -> None:
    """A family with an evaluator of its own declares its check; a declared check's shared work equals the plain
    path (same split, same seed, same predictions)."""
    import numpy as np

    from .data import load_dataset
    from .family import FAMILIES, Split, evaluate_plain
    from .preprocess import preprocess
    fam = FAMILIES[family]
    if fam.evaluate is None:
        assert fam.check is None, f"family {family!r} has no evaluator of its own but declares check={fam.check!r}"
        return
    if isinstance(fam.check, str):
        assert fam.check in ("plain", "probe"), f"family {family!r}: check={fam.check!r}, expected 'plain' or 'probe'"
        return
    assert isinstance(fam.check, tuple) and len(fam.check) == 3, (
        f"family {family!r} has its own evaluator but no check: give Family(check=(dataset, preprocessing, "
        "settings)), or check='plain' (no shared work) / 'probe' (predicts nothing)")
    dataset, prep, settings = fam.check
    assert isinstance(dataset, str) and prep in ("minmax", "standard", "none") and len(settings) >= 2, (
        f"family {family!r}: check needs a dataset name, a preprocessing (minmax, standard, none) and >= 2 settings")
    ds = load_dataset(dataset)
    idx = np.random.default_rng(0).permutation(len(ds.y))[:400]
    tr, te = idx[: 2 * len(idx) // 3], idx[2 * len(idx) // 3:]
    Xtr, Xte = preprocess(prep, ds.X[tr], ds.X[te])
    opts = {"preprocessing": prep}
    fast = fam.evaluate(Split(Xtr, ds.y[tr], Xte, 11, opts), settings)
    plain = evaluate_plain(fam, Split(Xtr, ds.y[tr], Xte, 11, opts), settings)
    for s, f, p in zip(settings, fast, plain):
        assert f.error is None and p.error is None, f"family {family!r} at {s}: {f.error or p.error}"
        np.testing.assert_array_equal(f.y_pred, p.y_pred, err_msg=f"family {family!r} at {s}: shared work differs "
                                      "from one plain fit per setting")


def check_dataset(dataset: str) -> None:
    """The spec loads offline, or the refusal names its download (no network is used)."""
    from .data import load_dataset
    from .data.loading import is_unavailable
    from .data.sources import no_downloads
    try:
        with no_downloads():
            ds = load_dataset(dataset)
    except Exception as exc:  # noqa: BLE001 - only "not on this machine" passes, with its download named
        if not is_unavailable(exc):
            raise
        text = str(exc).lower()
        assert any(w in text for w in ("download", "make data", "fetch", "cache", "install", "offline")), (
            f"dataset {dataset!r} is unavailable but its message names no download: {exc}")
        return
    assert len(ds.y) == ds.X.shape[0] > 0, f"dataset {dataset!r}: {ds.X.shape[0]} rows of X, {len(ds.y)} labels"


def check_experiment(experiment: str) -> None:
    """Composed and validated (every dataset and model known), and planned on its smallest dataset without
    drawing folds; an unavailable dataset is named, not fetched."""
    from .data import get_spec
    from .data.sources import no_downloads
    from .results import compose_spec
    from .planning import make_plan
    spec = compose_spec(experiment)
    assert spec.datasets and spec.variants, f"experiment {experiment!r} names no dataset or no model"
    smallest = min(spec.datasets, key=lambda d: get_spec(d).expected.get("n") or float("inf"))
    first = dataclasses.replace(spec, datasets=[smallest])
    with no_downloads():
        plan = make_plan(first, splits=False)
    assert set(plan.datasets) | set(plan.unavailable) == set(first.datasets)


def checks(name: str) -> list[Check]:
    """Every check of the installed benchmark ``name``, with its declared expected failures."""
    bench = _benchmark(name)
    expected = dict(getattr(bench, "expected_failures", {}) or {})
    out = [Check("describes-itself", lambda: check_describes_itself(name))]
    out += [Check(f"family:{f}", lambda f=f: check_family(f)) for f in families(name)]
    out += [Check(f"dataset:{d}", lambda d=d: check_dataset(d)) for d in datasets(name)]
    out += [Check(f"experiment:{e}", lambda e=e: check_experiment(e)) for e in experiments(name)]
    unknown = sorted(set(expected) - {c.id for c in out})
    if unknown:
        raise LookupError(f"benchmark {name!r} declares expected failures of checks it does not have: "
                          f"{', '.join(unknown)}")
    return [dataclasses.replace(c, expected_failure=expected.get(c.id, "")) for c in out]


def parametrize_with_checks(name: str):
    """A pytest decorator: the test runs once per check of benchmark ``name`` (its id the check's), an expected
    failure marked ``xfail(strict=True)``::

        @parametrize_with_checks("mybench")
        def test_mybench(check):
            check.run()
    """
    import pytest
    params = [pytest.param(c, id=c.id, marks=pytest.mark.xfail(strict=True, reason=c.expected_failure))
              if c.expected_failure else pytest.param(c, id=c.id) for c in checks(name)]
    return pytest.mark.parametrize("check", params)


def run_checks(name: str, out=sys.stdout) -> int:
    """Run every check of ``name``, one line each; 0 when every check passed or failed as declared, else 1."""
    bad = 0
    t0 = time.perf_counter()
    todo = checks(name)
    for c in todo:
        try:
            c.run()
            ok, why = not c.expected_failure, "" if not c.expected_failure else f"passed, but declared an expected " \
                                                                               f"failure ({c.expected_failure})"
        except Exception as exc:  # noqa: BLE001 - a check's failure, whatever it raises, is reported
            ok = bool(c.expected_failure)
            why = (f"expected failure: {c.expected_failure}" if ok else
                   f"{type(exc).__name__}: {exc}".strip().splitlines()[0] if str(exc).strip() else
                   traceback.format_exc().strip().splitlines()[-1])
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {c.id}" + (f"  ({why})" if why else ""), file=out)
    print(f"randml test {name}: {len(todo) - bad} of {len(todo)} checks as expected in "
          f"{time.perf_counter() - t0:.1f} s" + (f"; {bad} failed" if bad else ""), file=out)
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    """``randml test NAME``."""
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: randml test NAME   run the plug-in checks of the installed benchmark NAME (its families' shared "
              "work, its datasets, its experiments' configs); exit 1 when one fails unexpectedly",
              file=sys.stdout if argv[:1] in (["-h"], ["--help"]) else sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    try:
        return run_checks(argv[0])
    except LookupError as exc:
        print(f"randml test: {exc}", file=sys.stderr)
        return 2
