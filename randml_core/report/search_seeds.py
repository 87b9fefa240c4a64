"""The seed-to-seed spread of an experiment's searches (issue 42): the same experiment run under other search seeds
(``experiment.search_seed``: other drawn settings, the same folds) and the picks compared.

An experiment lists its seed runs in ``experiment.search_seed_runs`` (experiment names, each the same experiment with
another ``search_seed``, usually in the same store). This report loads each run's rows (:func:`randml_core.results.load`,
so a committed frame serves as well as the store), takes every searched model's own selection per dataset (nested:
inside the inner folds) and writes ``tables/<experiment>_search_seeds.{md,csv}``: per model and seed the mean of the
selected score over the datasets every seed scored, its average rank among the experiment's columns, the spread
(max - min over seeds) of both, the largest per-dataset difference, and Kendall's tau between each pair of seeds'
rank orders (:func:`scipy.stats.kendalltau`). A seed run with missing cells is listed as such, never averaged.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

def seed_run(name: str, ctx):
    """(spec, rows, note) of the seed run ``name``: its composed config and stored rows (rows None, with the reason in
    ``note``, when it is not run or not complete)."""
    import warnings
    from ..results import IncompleteResultsWarning, compose_spec, load
    spec = compose_spec(name)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IncompleteResultsWarning)
            frame = load(name, store_dir=ctx.store_dir, include_inner=True)
    except Exception as exc:  # noqa: BLE001 - an unrun seed: reported as such
        return spec, None, f"not run ({type(exc).__name__}: {str(exc).splitlines()[0][:160]})"
    if frame.attrs.get("complete") is False:
        return spec, None, (f"incomplete: {frame.attrs.get('n_stored')} of {frame.attrs.get('n_planned')} planned "
                            "cells stored")
    return spec, frame, ""


def picks(frame: pd.DataFrame, spec, metric: str, models: list[str]) -> pd.DataFrame:
    """datasets x models: the mean outer score of each model's selected setting (its search's pick)."""
    from ..search import is_search
    from .comparison import search_select, selected
    searched = {v.name for v in spec.variants if is_search(v)}
    nested = bool(spec.protocol.inner_splits)
    frame = frame[frame["model"].isin(models)]
    own = search_select(frame[frame["model"].isin(searched)], metric, nested)
    rest = selected(frame[~frame["model"].isin(searched)], metric, "nested" if nested else "best_mean")
    both = pd.concat([own, rest], ignore_index=True)
    return both.pivot_table(index="dataset", columns="model", values="mean", aggfunc="first")


def spread(tables: dict, higher: bool) -> tuple[pd.DataFrame, list[str]]:
    """Per model: mean score and average rank under each seed and their spreads; and Kendall's tau lines."""
    from scipy.stats import kendalltau, rankdata
    seeds = list(tables)
    common = sorted(set.intersection(*(set(t.dropna(how="any").index) for t in tables.values())))
    models = list(next(iter(tables.values())).columns)
    rows, ranks = {}, {}
    for s, t in tables.items():
        m = t.loc[common, models]
        r = np.vstack([rankdata(-row if higher else row) for row in m.to_numpy()]) if common else np.empty((0, len(models)))
        ranks[s] = pd.Series(r.mean(axis=0), index=models)
        rows[s] = m.mean(axis=0)
    out = pd.DataFrame({"model": models})
    for s in seeds:
        out[f"mean_seed{s}"] = rows[s].to_numpy()
    for s in seeds:
        out[f"rank_seed{s}"] = ranks[s].to_numpy()
    means, rks = out[[f"mean_seed{s}" for s in seeds]], out[[f"rank_seed{s}" for s in seeds]]
    out["mean_spread"] = means.max(axis=1) - means.min(axis=1)
    out["rank_spread"] = rks.max(axis=1) - rks.min(axis=1)
    per = np.stack([tables[s].loc[common, models].to_numpy() for s in seeds])
    out["largest_dataset_diff"] = (per.max(axis=0) - per.min(axis=0)).max(axis=0) if common else np.nan
    taus = [f"seed {a} vs seed {b}: Kendall's tau of the average ranks {kendalltau(ranks[a], ranks[b]).statistic:.3f}"
            for a, b in itertools.combinations(seeds, 2)] if len(models) > 1 else ["one model: no rank order to compare"]
    out.attrs["datasets"] = common
    return out, taus


def _same_under_every_seed(spec, models: list[str]) -> list[str]:
    """A line naming the columns whose settings no search seed changes (a grid, or a choice space no larger than the
    search's n: every setting drawn under every seed), whose spread is 0 by construction."""
    from ..search import grid_size, is_search, n_settings
    same = []
    for v in spec.variants:
        if v.name not in models:
            continue
        size = grid_size(v.search["space"]) if is_search(v) else None
        if not is_search(v) or (v.search["kind"] == "random" and size is not None and n_settings(v.search) >= size):
            same.append(v.name)
    if not same:
        return []
    return [f"- The same settings under every seed (a grid, or a choice space of at most the search's n settings, "
            f"all drawn): {', '.join(sorted(same))}; their spread is 0 by construction."]


def build(ctx) -> list:
    from ..search import search_seed
    from .generic import metrics_of
    from ..stats import higher_is_better
    spec = ctx.spec
    runs = list(spec.engine.search_seed_runs)
    metric = metrics_of(ctx)[0]
    models = spec.columns or [v.name for v in spec.variants]
    tables, notes = {search_seed(spec): picks(ctx.frame, spec, metric, models)}, []
    for name in runs:
        other, frame, why = seed_run(name, ctx)
        if frame is None:
            notes.append(f"- `{name}` (search seed {search_seed(other)}): {why}")
            continue
        tables[search_seed(other)] = picks(frame, other, metric, models)
    stem = ctx.results_dir / "tables" / f"{spec.name}_search_seeds"
    lines = [f"# {spec.name}: the searches under {len(tables)} search seed(s)", "",
             f"Each searched model's own pick per dataset ({metric}, nested selection inside the inner folds), run "
             f"under the search seeds {', '.join(map(str, tables))} (`experiment.search_seed`: other drawn settings, the "
             f"same folds); runs: `{spec.name}`" + "".join(f", `{n}`" for n in runs) + ".", ""]
    if notes:
        lines += ["Not compared (their cells are not all stored):", "", *notes, ""]
    if len(tables) < 2:
        lines += ["Fewer than two complete seed runs: no spread to show."]
        return [ctx.artefacts.write_text(stem.with_suffix(".md"), "\n".join(lines) + "\n")]
    table, taus = spread(tables, higher_is_better(metric))
    common = table.attrs["datasets"]
    lines += [f"Over the {len(common)} dataset(s) every seed scored. Mean = mean over those datasets of the selected "
              f"setting's mean outer {metric}; rank = average rank among the {len(models)} columns (1 = best); spread "
              "= max - min over the seeds; largest dataset diff = the largest max - min of one dataset's score.", "",
              "| model | " + " | ".join(f"mean, seed {s}" for s in tables) + " | mean spread | "
              + " | ".join(f"rank, seed {s}" for s in tables) + " | rank spread | largest dataset diff |",
              "|---|" + "---|" * (2 * len(tables) + 3)]
    for r in table.itertuples(index=False):
        d = r._asdict()
        lines.append(f"| {d['model']} | " + " | ".join(f"{d[f'mean_seed{s}']:.4f}" for s in tables)
                     + f" | {d['mean_spread']:.4f} | " + " | ".join(f"{d[f'rank_seed{s}']:.2f}" for s in tables)
                     + f" | {d['rank_spread']:.2f} | {d['largest_dataset_diff']:.4f} |")
    lines += ["", *[f"- {t}" for t in taus], *_same_under_every_seed(spec, models), "",
              "A rank order that changes between seeds by more than the critical difference of the statistics file "
              "is an order the search's own randomness decides, not the models."]
    return [ctx.artefacts.write_text(stem.with_suffix(".md"), "\n".join(lines) + "\n"),
            ctx.artefacts.write_csv(stem.with_suffix(".csv"), table, index=False, float_format="%.10g")]
