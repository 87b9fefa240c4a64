"""Result tables from stored frames: hyper-parameter selection and md / csv / tex writers.

Pure functions of a frame; nothing here fits a model.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd


def cell_counts(frame: pd.DataFrame, n_planned: int) -> str:
    """One footer sentence: failed and skipped cells (by their stored status), stored of planned.

    "skipped" cells were not run by rule (e.g. above a kernel size limit); "failed" ones raised."""
    st = frame["status"].value_counts() if len(frame) else pd.Series(dtype=int)
    failed, skipped = int(st.get("failed", 0)), int(st.get("skipped", 0))
    return (f"Failed cells: {failed}; skipped by rule: {skipped}; cells stored {len(frame)} of {n_planned} planned"
            + ("" if len(frame) >= n_planned else " (INCOMPLETE)") + ".")


def outer_rows(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["inner_fold"] == -1] if "inner_fold" in frame.columns else frame


SPLIT_COLUMNS = ["dataset", "model", "repeat", "fold", "n_train", "n_test"]


def split_scores(rows: pd.DataFrame, metrics, extra=()) -> pd.DataFrame:
    """The per-split artefact ``<table>_folds.csv`` that the claims reports test on (paired splits).

    ``rows``: outer rows at each model's selected setting (one per dataset, model, repeat, fold), status ok;
    keeps :data:`SPLIT_COLUMNS`, the ``metrics``, ``params_json``, ``fit_seconds`` and the ``extra`` columns
    that exist, sorted so the file is the same for the same rows."""
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if rows is None or len(rows) == 0:
        return pd.DataFrame(columns=[*SPLIT_COLUMNS, *metrics, "params_json", "fit_seconds", *extra])
    rows = rows[rows["status"] == "ok"] if "status" in rows.columns else rows
    rows = outer_rows(rows)
    if rows.duplicated(SPLIT_COLUMNS[:4]).any():
        raise ValueError("split_scores: more than one row per (dataset, model, repeat, fold); pass the rows at "
                         "each model's selected setting")
    cols = [c for c in [*SPLIT_COLUMNS, *metrics, "params_json", "fit_seconds", *extra] if c in rows.columns]
    return rows[cols].sort_values(SPLIT_COLUMNS[:4], kind="stable").reset_index(drop=True)


def with_stand_ins(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with ``stand_in_for``: the original each dataset is a named substitute for (empty for real sets)."""
    from ..data import get_spec

    return rows.assign(stand_in_for=[get_spec(d).substitute_of or "" for d in rows["dataset"]])


def finite_std(res: pd.DataFrame, rows: pd.DataFrame, keys: list, metric: str) -> pd.DataFrame:
    """``res`` with each ``std`` that overflowed to inf (finite values near 1e154 or more: their squares overflow)
    computed again on the values scaled by their largest magnitude; every other std is left as pandas computed it."""
    bad = np.flatnonzero(np.isinf(res["std"].to_numpy(dtype=float)))
    if not len(bad):
        return res
    res = res.copy()
    col = res.columns.get_loc("std")
    for i in bad:
        sel = np.logical_and.reduce([rows[k].to_numpy() == res[k].iat[i] for k in keys])
        v = rows.loc[sel, metric].to_numpy(dtype=float)
        v = v[~np.isnan(v)]
        scale = np.abs(v).max() if len(v) else 0.0
        if len(v) > 1 and np.isfinite(scale) and scale > 0:
            res.iat[i, col] = scale * np.std(v / scale, ddof=1)
    return res


SUMMARY_COLUMNS = ["dataset", "model", "mean", "std", "n_folds", "n_failed", "n_bounded", "params_json", "skipped"]


def _flags(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.assign(_ok=rows["status"] == "ok", _bounded=~rows["converged"].astype(bool),
                       _skipped=rows["status"] == "skipped")


def _pick_max(stats: pd.DataFrame, by: list[str], score: str = "mean") -> pd.DataFrame:
    """Row with the largest ``score`` per group; ties go to the first params_json in sorted order."""
    order = stats.sort_values([*by, score, "params_json"], ascending=[True] * len(by) + [False, True],
                              kind="stable")
    return order.drop_duplicates(by, keep="first")


def select_best(frame: pd.DataFrame, metric: str = "gmean", higher: bool = True) -> pd.DataFrame:
    """Per (dataset, model): the params with the best mean outer-fold ``metric`` (the paper's rule; the lowest
    mean when ``higher`` is False, e.g. RMSE).

    Settings with a failed fold are not eligible (unless every setting failed somewhere). Ties go
    to the first setting in canonical parameter order. Returns one row per (dataset, model) with
    mean, std (over all outer folds of all repeats), n_folds, n_failed, n_bounded and params_json.
    """
    rows = _flags(outer_rows(frame))
    if rows.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    keys = ["dataset", "model"]
    stats = rows.groupby([*keys, "params_json"], sort=False).agg(
        mean=(metric, "mean"), std=(metric, "std"), n_folds=(metric, "size"), n_ok=("_ok", "sum"),
        n_bounded=("_bounded", "sum"), all_skipped=("_skipped", "all")).reset_index()
    stats = finite_std(stats, rows, [*keys, "params_json"], metric)
    stats["n_failed"] = stats["n_folds"] - stats["n_ok"]
    clean = stats["n_failed"] == 0
    has_clean = clean.groupby([stats[k] for k in keys]).transform("any")
    pool = stats[(clean | ~has_clean) & stats["mean"].notna()]
    pool = pool.assign(_score=pool["mean"] if higher else -pool["mean"])
    best = _pick_max(pool, keys, "_score").assign(skipped=False)
    groups = stats.groupby(keys, sort=False).agg(n_failed=("n_failed", "sum"), skipped=("all_skipped", "all"))
    empty = _unpicked(groups, best)
    out = pd.concat([best[SUMMARY_COLUMNS], empty], ignore_index=True) if len(empty) else best
    out[["n_folds", "n_failed", "n_bounded"]] = out[["n_folds", "n_failed", "n_bounded"]].astype(int)
    return out[SUMMARY_COLUMNS].reset_index(drop=True)


def selected_rows(frame: pd.DataFrame, best: pd.DataFrame) -> pd.DataFrame:
    """The outer rows at each (dataset, model)'s selected ``params_json`` in ``best`` (from :func:`select_best`)."""
    if not len(frame) or not len(best):
        return frame.iloc[0:0]
    picks = best.dropna(subset=["params_json"])[["dataset", "model", "params_json"]]
    return picks.merge(outer_rows(frame), on=["dataset", "model", "params_json"], how="inner")


def nested_rows(frame: pd.DataFrame, metric: str = "gmean", higher: bool = True) -> pd.DataFrame:
    """The outer rows at each outer fold's nested pick (the params with the best mean ``metric`` over
    that fold's inner folds; the lowest when ``higher`` is False, e.g. RMSE): one row per (dataset,
    model, repeat, fold), every stored column kept. Settings with a failed inner fold are eligible only
    where every setting failed somewhere. Empty without inner rows (inner_fold >= 0)."""
    if "inner_fold" not in frame.columns or not (frame["inner_fold"] >= 0).any():
        return frame.iloc[0:0]
    fold_keys = ["dataset", "model", "repeat", "fold"]
    inner = _flags(frame[frame["inner_fold"] >= 0])
    stats = inner.groupby([*fold_keys, "params_json"], sort=False).agg(
        mean=(metric, "mean"), all_ok=("_ok", "all")).reset_index()
    has_ok = stats["all_ok"].groupby([stats[k] for k in fold_keys]).transform("any")
    pool = stats[(stats["all_ok"] | ~has_ok) & stats["mean"].notna()]
    pool = pool.assign(_score=pool["mean"] if higher else -pool["mean"])
    picks = _pick_max(pool, fold_keys, "_score")[[*fold_keys, "params_json"]]
    return picks.merge(outer_rows(frame), on=[*fold_keys, "params_json"], how="inner")


def select_nested(frame: pd.DataFrame, metric: str = "gmean") -> pd.DataFrame:
    """Nested CV: for each outer fold pick the params by mean ``metric`` over its inner folds,
    then score the outer fold with them. Needs rows with inner_fold >= 0."""
    rows = nested_rows(frame, metric)
    if rows.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    scored = _flags(rows)[["dataset", "model", "repeat", "fold", "params_json", metric, "_ok", "_bounded"]]
    if scored.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    res = scored.groupby(["dataset", "model"], sort=False).agg(
        mean=(metric, "mean"), std=(metric, "std"), n_folds=(metric, "size"), n_ok=("_ok", "sum"),
        n_bounded=("_bounded", "sum"), params_json=("params_json", lambda s: s.value_counts().index[0]))
    res["n_failed"] = res["n_folds"] - res["n_ok"]
    res = finite_std(res.reset_index(), scored, ["dataset", "model"], metric).assign(skipped=False)[SUMMARY_COLUMNS]
    # a (dataset, model) without a nested pick: as select_best, say whether it was skipped by rule or failed
    outer = _flags(outer_rows(frame))
    groups = outer.groupby(["dataset", "model"], sort=False).agg(
        n_failed=("_ok", lambda ok: int((~ok).sum())), skipped=("_skipped", "all"))
    empty = _unpicked(groups, res)
    return pd.concat([res, empty], ignore_index=True) if len(empty) else res


def _unpicked(groups: pd.DataFrame, picked: pd.DataFrame) -> pd.DataFrame:
    """Summary rows (no score) for the (dataset, model) ``groups`` (indexed by both, with n_failed and skipped)
    that have no row in ``picked``, so that a table says "not run (skipped by rule)" or "failed" there."""
    empty = groups.loc[groups.index.difference(picked.set_index(["dataset", "model"]).index)].reset_index()
    return empty.assign(mean=np.nan, std=np.nan, n_folds=0, n_bounded=0, params_json=None)[SUMMARY_COLUMNS]


@dataclass
class Table:
    """A dataset x model grid of formatted cells plus the numbers behind them."""
    title: str
    rows: list[str]
    columns: list[str]
    summary: pd.DataFrame          # select_best / select_nested output
    notes: dict                    # dataset -> text shown instead of numbers (e.g. needs download)
    footer: list[str]
    digits: int = 3
    higher_is_better: bool = True
    stamp: str = ""                # code version that generated the table (CSV column)
    mark_best: bool = True         # False for tables without a "best" (e.g. correlations)
    skipped_text: str = "not run (n above the kernel size limit)"  # a cell whose every fold was skipped by rule

    def _lookup(self):
        if getattr(self, "_lk", None) is None:
            self._lk = {(r.dataset, r.model): r for r in self.summary.itertuples()}
        return self._lk

    def best_per_row(self) -> dict:
        if getattr(self, "_best", None) is not None:
            return self._best
        lk, best = self._lookup(), {}
        if not self.mark_best:
            self._best = best
            return best
        for d in self.rows:
            vals = {m: round(lk[(d, m)].mean, self.digits) for m in self.columns
                    if (d, m) in lk and pd.notna(lk[(d, m)].mean)}
            if vals:
                target = max(vals.values()) if self.higher_is_better else min(vals.values())
                best[d] = {m for m, v in vals.items() if v == target}
        self._best = best
        return best

    def cell_text(self, d, m, bold=("**", "**")) -> str:
        if d in self.notes:
            return self.notes[d]
        r = self._lookup().get((d, m))
        if r is None or r.n_folds == 0 or pd.isna(r.mean):
            failed = 0 if r is None else r.n_failed
            if r is not None and getattr(r, "skipped", False) is True:
                return self.skipped_text
            return f"failed ({failed} cells)" if failed else "missing"
        std = 0.0 if pd.isna(r.std) else r.std
        text = f"{r.mean:.{self.digits}f} ± {std:.{self.digits}f}"
        if m in self.best_per_row().get(d, ()):
            text = f"{bold[0]}{text}{bold[1]}"
        if r.n_failed:
            text += f" ({r.n_failed} failed)"
        return text

    def to_markdown(self) -> str:
        head = "| dataset | " + " | ".join(self.columns) + " |"
        sep = "|---|" + "---|" * len(self.columns)
        body = ["| " + d + " | " + " | ".join(self.cell_text(d, m) for m in self.columns) + " |" for d in self.rows]
        foot = [f"- {line}" for line in self.footer]
        return "\n".join([f"# {self.title}", "", head, sep, *body, "", *foot, ""])

    def to_latex(self) -> str:
        def esc(s: str) -> str:
            return (s.replace("\\", "\\textbackslash{}").replace("&", "\\&").replace("%", "\\%")
                    .replace("_", "\\_").replace("#", "\\#").replace("±", "$\\pm$").replace("`", ""))
        cols = "l" + "c" * len(self.columns)
        lines = [f"% {esc(self.title)}", f"\\begin{{tabular}}{{{cols}}}", "\\hline",
                 "dataset & " + " & ".join(esc(c) for c in self.columns) + " \\\\", "\\hline"]
        for d in self.rows:
            cells = [esc(self.cell_text(d, m, bold=("\\textbf{", "}"))).replace("\\textbackslash{}textbf", "\\textbf")
                     for m in self.columns]
            lines.append(esc(d) + " & " + " & ".join(cells) + " \\\\")
        lines += ["\\hline", "\\end{tabular}", ""] + [f"% {esc(f)}" for f in self.footer]
        return "\n".join(lines) + "\n"

    def to_frame(self) -> pd.DataFrame:
        lk, best = self._lookup(), self.best_per_row()
        recs = []
        for d in self.rows:
            rec = {"dataset": d, "note": self.notes.get(d, "")}
            for m in self.columns:
                r = lk.get((d, m))
                rec[f"{m} mean"] = None if r is None else r.mean
                rec[f"{m} std"] = None if r is None else r.std
                rec[f"{m} params"] = None if r is None else r.params_json
            rec["best"] = ";".join(sorted(best.get(d, ())))
            rec["generated_by"] = self.stamp
            recs.append(rec)
        return pd.DataFrame(recs)

    def write(self, stem: str | Path, out=None) -> list[Path]:
        """Stage ``stem``.md / .csv / .tex in the artefact set ``out`` (a report's ``ctx.artefacts``);
        without one they are committed together at once. The CSV leaves out ``generated_by`` (the code
        version is volatile: it goes to the set's sidecar, so a rerun gives the same bytes)."""
        from ..artefacts import ArtefactSet
        stem = Path(stem)
        if out is None:
            with ArtefactSet(stem.parent, stem.name, sidecar=False) as own:
                return self.write(stem, own)
        return [out.write_text(stem.with_suffix(".md"), self.to_markdown()),
                out.write_csv(stem.with_suffix(".csv"), self.to_frame().drop(columns=["generated_by"])),
                out.write_text(stem.with_suffix(".tex"), self.to_latex())]


def select_by_criterion(frame: pd.DataFrame, criterion: str, metric: str = "gmean") -> pd.DataFrame:
    """Per outer fold, pick the params maximising a per-cell *training* criterion (no CV), then
    score that fold with them; summarised per (dataset, model) like :func:`select_best`."""
    rows = outer_rows(frame)
    rows = rows[rows["status"] == "ok"] if "status" in rows.columns else rows
    if criterion not in rows.columns:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    rows = _flags(rows[rows[criterion].notna()])
    picks = _pick_max(rows, ["dataset", "model", "repeat", "fold"], score=criterion)
    res = picks.groupby(["dataset", "model"], sort=False).agg(
        mean=(metric, "mean"), std=(metric, "std"), n_folds=(metric, "size"), n_bounded=("_bounded", "sum"),
        params_json=("params_json", lambda s: s.value_counts().index[0]))
    res = finite_std(res.reset_index(), picks, ["dataset", "model"], metric)
    return res.assign(n_failed=0, skipped=False)[SUMMARY_COLUMNS]


def _tex_escape(s: str) -> str:
    return (str(s).replace("\\", "\\textbackslash{}").replace("&", "\\&").replace("%", "\\%")
            .replace("_", "\\_").replace("#", "\\#").replace("±", "$\\pm$").replace("`", ""))


def frame_markdown(frame: pd.DataFrame) -> str:
    """A plain frame as a markdown table (no extra dependency)."""
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    sep = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join("" if pd.isna(v) else str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def frame_latex(frame: pd.DataFrame) -> str:
    """A plain frame as a LaTeX tabular."""
    lines = [f"\\begin{{tabular}}{{{'l' * len(frame.columns)}}}", "\\hline",
             " & ".join(_tex_escape(c) for c in frame.columns) + " \\\\", "\\hline"]
    lines += [" & ".join("" if pd.isna(v) else _tex_escape(v) for v in row) + " \\\\"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines + ["\\hline", "\\end{tabular}", ""])


def _numeric_axes(variants, min_values: int) -> dict:
    """Variant name -> {param: sorted values} of its numeric grid axes with at least ``min_values`` values."""
    return {v.name: {p: sorted(vals) for p, vals in v.grid.items() if len(vals) >= min_values
                     and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals)}
            for v in variants}


def features_line(options: dict, usual: str, default: str = "minmax") -> str:
    """A footer's preprocessing line: ``usual`` (the report's own words for its experiment's setting: the
    ``default`` preprocessing, rows as published) when the experiment has it, else the configured one."""
    from ..preprocess import duplicates_of, preprocessing_of
    if (options.get("preprocessing") or "minmax") == default and duplicates_of(options) == "keep":
        return usual
    return f"Features: {preprocessing_of(options)}."


def grid_edge_flags(summary: pd.DataFrame, variants) -> list[str]:
    """Selected settings that sit on an edge of a searched numeric axis (3+ values): the search may have
    stopped short of the best value. One "dataset / model: param=value (grid min..max)" per hit."""
    import json
    axes = _numeric_axes(variants, 3)
    flags = []
    for r in summary.itertuples():
        if not isinstance(r.params_json, str) or not axes.get(r.model):
            continue
        chosen = json.loads(r.params_json)
        for p, vals in axes[r.model].items():
            if p in chosen and chosen[p] in (min(vals), max(vals)):
                flags.append(f"{r.dataset} / {r.model}: {p}={chosen[p]:g} (grid {min(vals):g}..{max(vals):g})")
    return flags


def grid_edge_counts(picks: pd.DataFrame, variants, min_values: int = 3) -> list[str]:
    """Per (dataset, model, numeric grid axis of ``min_values``+ values; on a 2-value axis every pick is an edge):
    on how many of the splits the per-split selected value (``picks``: one row per split with its ``params_json``)
    sits on the axis's lowest or highest value, when it does on any: the search may have stopped short there."""
    import json
    from collections import Counter
    axes = _numeric_axes(variants, min_values)
    flags = []
    if picks is None or len(picks) == 0:
        return flags
    for (d, m), g in picks.groupby(["dataset", "model"], sort=False):
        if not axes.get(m):
            continue
        chosen = [json.loads(p) for p in g["params_json"]]
        for p, vals in axes[m].items():
            at = Counter(c[p] for c in chosen if p in c and c[p] in (vals[0], vals[-1]))
            if at:
                where = ", ".join(f"{v:g} on {n}" for v, n in sorted(at.items()))
                flags.append(f"{d} / {m}: {p} at a grid edge ({where} of {len(chosen)} splits; grid "
                             f"{', '.join(f'{v:g}' for v in vals)})")
    return flags
