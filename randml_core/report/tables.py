"""Result tables from stored frames: hyper-parameter selection and md / csv / tex writers.

Pure functions of a frame; nothing here fits a model.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd


def outer_rows(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["inner_fold"] == -1] if "inner_fold" in frame.columns else frame


def select_best(frame: pd.DataFrame, metric: str = "gmean") -> pd.DataFrame:
    """Per (dataset, model): the params with the best mean outer-fold ``metric`` (the paper's rule).

    Settings with a failed fold are not eligible (unless every setting failed somewhere). Ties go
    to the first setting in canonical parameter order. Returns one row per (dataset, model) with
    mean, std (over all outer folds of all repeats), n_folds, n_failed, n_bounded and params_json.
    """
    out = []
    for (ds, model), g in outer_rows(frame).groupby(["dataset", "model"], sort=False):
        stats = g.groupby("params_json", sort=True).agg(
            mean=(metric, "mean"), std=(metric, "std"), n_folds=(metric, "size"),
            n_failed=("status", lambda s: int((s != "ok").sum())),
            n_bounded=("converged", lambda s: int((~s.astype(bool)).sum())))
        eligible = stats[stats["n_failed"] == 0]
        pool = eligible if len(eligible) else stats
        pool = pool[pool["mean"].notna()]
        if pool.empty:
            out.append({"dataset": ds, "model": model, "mean": np.nan, "std": np.nan, "n_folds": 0,
                        "n_failed": int(stats["n_failed"].sum()), "n_bounded": 0, "params_json": None,
                        "skipped": bool((g["status"] == "skipped").all())})
            continue
        best = pool["mean"].idxmax()
        row = stats.loc[best]
        out.append({"dataset": ds, "model": model, "mean": row["mean"], "std": row["std"],
                    "n_folds": int(row["n_folds"]), "n_failed": int(row["n_failed"]),
                    "n_bounded": int(row["n_bounded"]), "params_json": best, "skipped": False})
    return pd.DataFrame(out)


def select_nested(frame: pd.DataFrame, metric: str = "gmean") -> pd.DataFrame:
    """Nested CV: for each outer fold pick the params by mean ``metric`` over its inner folds,
    then score the outer fold with them. Needs rows with inner_fold >= 0."""
    if "inner_fold" not in frame.columns or not (frame["inner_fold"] >= 0).any():
        return pd.DataFrame(columns=["dataset", "model", "mean", "std", "n_folds", "n_failed", "n_bounded",
                                     "params_json"])
    inner = frame[frame["inner_fold"] >= 0]
    outer = outer_rows(frame).set_index(["dataset", "model", "repeat", "fold", "params_json"])
    picks = []
    for (ds, model, rep, fold), g in inner.groupby(["dataset", "model", "repeat", "fold"], sort=False):
        stats = g.groupby("params_json", sort=True)[metric].mean()
        ok = g.groupby("params_json", sort=True)["status"].apply(lambda s: (s == "ok").all())
        stats = stats[ok] if ok.any() else stats
        if stats.dropna().empty:
            continue
        choice = stats.idxmax()
        key = (ds, model, rep, fold, choice)
        if key in outer.index:
            r = outer.loc[key]
            picks.append({"dataset": ds, "model": model, "score": r[metric], "status": r["status"],
                          "converged": r["converged"], "params_json": choice})
    if not picks:
        return select_nested(frame.iloc[0:0])
    p = pd.DataFrame(picks)
    res = p.groupby(["dataset", "model"], sort=False).agg(
        mean=("score", "mean"), std=("score", "std"), n_folds=("score", "size"),
        n_failed=("status", lambda s: int((s != "ok").sum())),
        n_bounded=("converged", lambda s: int((~s.astype(bool)).sum())),
        params_json=("params_json", lambda s: s.value_counts().index[0]))
    return res.reset_index()


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

    def _lookup(self):
        return {(r.dataset, r.model): r for r in self.summary.itertuples()}

    def best_per_row(self) -> dict:
        lk, best = self._lookup(), {}
        for d in self.rows:
            vals = {m: round(lk[(d, m)].mean, self.digits) for m in self.columns
                    if (d, m) in lk and pd.notna(lk[(d, m)].mean)}
            if vals:
                target = max(vals.values()) if self.higher_is_better else min(vals.values())
                best[d] = {m for m, v in vals.items() if v == target}
        return best

    def cell_text(self, d, m, bold=("**", "**")) -> str:
        if d in self.notes:
            return self.notes[d]
        r = self._lookup().get((d, m))
        if r is None or r.n_folds == 0 or pd.isna(r.mean):
            failed = 0 if r is None else r.n_failed
            if r is not None and getattr(r, "skipped", False) is True:
                return "not run (n above the kernel size limit)"
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

    def write(self, stem: str | Path) -> list[Path]:
        stem = Path(stem)
        stem.parent.mkdir(parents=True, exist_ok=True)
        paths = [stem.with_suffix(".md"), stem.with_suffix(".csv"), stem.with_suffix(".tex")]
        paths[0].write_text(self.to_markdown())
        self.to_frame().to_csv(paths[1], index=False)
        paths[2].write_text(self.to_latex())
        return paths


def select_by_criterion(frame: pd.DataFrame, criterion: str, metric: str = "gmean") -> pd.DataFrame:
    """Per outer fold, pick the params maximising a per-cell *training* criterion (no CV), then
    score that fold with them; summarised per (dataset, model) like :func:`select_best`."""
    rows = outer_rows(frame)
    rows = rows[rows["status"] == "ok"] if "status" in rows.columns else rows
    if criterion not in rows.columns:
        return pd.DataFrame(columns=["dataset", "model", "mean", "std", "n_folds", "n_failed", "n_bounded",
                                     "params_json"])
    rows = rows[rows[criterion].notna()].sort_values("params_json", kind="stable")
    picks = rows.loc[rows.groupby(["dataset", "model", "repeat", "fold"], sort=False)[criterion].idxmax()]
    res = picks.groupby(["dataset", "model"], sort=False).agg(
        mean=(metric, "mean"), std=(metric, "std"), n_folds=(metric, "size"),
        n_bounded=("converged", lambda s: int((~s.astype(bool)).sum())),
        params_json=("params_json", lambda s: s.value_counts().index[0]))
    res["n_failed"] = 0
    return res.reset_index()


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
