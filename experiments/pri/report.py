"""PRI-SMO paper Section 6.1: Figures 1-2, the support-point scatter and the claims report.

Everything except the scatter figure is a pure function of the stored frame (``ctx.frame``):

- ``<prefix>_fig1.png|pdf``: fit time versus N, one panel per lambda, one line per tolerance
  (median over repeats, band = min..max, log-log axes; a black x marks a point where at least one
  repeat stopped at the ceil(N ln N) cap).
- ``<prefix>_fig2.png|pdf``: number of support vectors (non-zero weights) versus N, same layout
  (mean over repeats, band = min..max; dashed line = N, every point a support vector).
- ``tables/<prefix>_report.md`` (+ ``.json`` with the same numbers, ``_summary.csv``): the paper's
  claims, each HELD / NOT HELD (or NOT TESTED when the grid cannot show it) with its evidence,
  a short section on the kernel-width sensitivity (from ``tables/pri_sensitivity.json`` when present,
  written by :mod:`randml_papers.pri.sensitivity`), the growth exponent of time in N and the per-setting summary.
- ``<prefix>_support.png|pdf``: an illustration, NOT from the store: the report draws a fresh
  mixture (``make_pri_mixture(pri_support_n, pri_support_seed)``) and fits ONE ``PRISMO``
  (``pri_support_lam``, ``pri_support_tol``, the sweep's sigma and kernel width) to overlay its
  support points on the data. The store keeps only scalars per cell, never the points.

The claims are decided in :mod:`randml_papers.pri.claims` (``<prefix>_claims.md``).

Growth exponent: least squares of log(seconds) on log(N) over every successful run (all repeats),
per (lambda, tol), and pooled with one intercept per (lambda, tol) (the within-group slope); the
pooled slope is also given over the upper half of the N grid (closer to the asymptotic regime).

The report assumes one sigma (the paper's 0.2) and one model variant per experiment.
"""
from __future__ import annotations


import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from randml_core.report.figures import plt, save
from randml_core.report.tables import frame_markdown

from .datasets import make_pri_mixture
from .families import PRIMixtureSweep

# store column -> tidy name
COLUMNS = {"p_n_samples": "n", "p_tol": "tol", "p_lam": "lam", "p_sigma": "sigma", "repeat": "repeat",
           "status": "status", "fit_seconds": "seconds", "x_n_sv": "n_sv", "x_n_iter": "n_iter",
           "x_max_iter": "max_iter", "x_hit_max_iter": "hit_cap", "x_stop_reason": "stop"}
TIDY = list(COLUMNS.values())
GROUP = ["lam", "tol", "n"]

# --------------------------------------------------------------------------- data
def tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """The sweep's rows with short names (failed rows kept, with NaN results)."""
    if frame is None or len(frame) == 0 or "p_n_samples" not in frame:
        return pd.DataFrame({c: pd.Series(dtype=float) for c in TIDY})
    f = frame.reindex(columns=list(COLUMNS)).rename(columns=COLUMNS)
    out = pd.DataFrame({
        "n": f["n"].astype(np.int64), "tol": f["tol"].astype(float), "lam": f["lam"].astype(float),
        "sigma": f["sigma"].astype(float), "repeat": f["repeat"], "status": f["status"].astype(str),
        "seconds": pd.to_numeric(f["seconds"], errors="coerce"), "n_sv": pd.to_numeric(f["n_sv"], errors="coerce"),
        "n_iter": pd.to_numeric(f["n_iter"], errors="coerce"),
        "max_iter": pd.to_numeric(f["max_iter"], errors="coerce"),
        "hit_cap": f["hit_cap"].fillna(False).astype(bool), "stop": f["stop"]})
    return out.reset_index(drop=True)


def _ok(rows: pd.DataFrame) -> pd.DataFrame:
    return rows[rows["status"] == "ok"]


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """One line per (lam, tol, n): repeats, time median/min/max, #SV mean/min/max, iterations, cap hits."""
    ok = _ok(rows)
    if ok.empty:
        return pd.DataFrame(columns=GROUP + ["repeats", "failed", "seconds_median", "seconds_min", "seconds_max",
                                             "n_sv_mean", "n_sv_min", "n_sv_max", "n_iter_mean", "max_iter",
                                             "cap_hits", "stalled"])
    g = ok.groupby(GROUP)
    s = pd.DataFrame({
        "repeats": g.size(), "seconds_median": g["seconds"].median(), "seconds_min": g["seconds"].min(),
        "seconds_max": g["seconds"].max(), "n_sv_mean": g["n_sv"].mean(), "n_sv_min": g["n_sv"].min(),
        "n_sv_max": g["n_sv"].max(), "n_iter_mean": g["n_iter"].mean(), "max_iter": g["max_iter"].max(),
        "cap_hits": g["hit_cap"].sum().astype(int), "stalled": g["stop"].apply(lambda s: int((s == "stalled").sum())),
    })
    failed = rows[rows["status"] != "ok"].groupby(GROUP).size()
    s.insert(1, "failed", failed.reindex(s.index, fill_value=0).astype(int))
    return s.reset_index().sort_values(GROUP, ascending=[True, False, True]).reset_index(drop=True)


# --------------------------------------------------------------------------- growth exponent
def loglog_slope(x, y) -> tuple[float, float, float]:
    """Least squares ``log y = a + b log x``: returns ``(b, a, r2)`` (NaN with < 2 distinct x)."""
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    dx = lx - lx.mean()
    sxx = float(dx @ dx)
    if len(lx) < 2 or sxx == 0.0:
        return float("nan"), float("nan"), float("nan")
    b = float(dx @ (ly - ly.mean())) / sxx
    a = float(ly.mean() - b * lx.mean())
    resid = ly - a - b * lx
    tss = float(((ly - ly.mean()) ** 2).sum())
    return b, a, (1.0 - float(resid @ resid) / tss) if tss > 0 else float("nan")


def growth_exponents(rows: pd.DataFrame, value: str = "seconds") -> pd.DataFrame:
    """Per (lam, tol): slope of log(value) on log(N) over all successful runs."""
    ok = _ok(rows)
    out = []
    for (lam, tol), g in ok.groupby(["lam", "tol"]):
        b, a, r2 = loglog_slope(g["n"], g[value])
        out.append({"lam": lam, "tol": tol, "exponent": b, "log_intercept": a, "r2": r2, "runs": len(g),
                    "n_min": int(g["n"].min()), "n_max": int(g["n"].max())})
    return pd.DataFrame(out, columns=["lam", "tol", "exponent", "log_intercept", "r2", "runs", "n_min", "n_max"])


def pooled_exponent(rows: pd.DataFrame, value: str = "seconds") -> float:
    """Slope of log(value) on log(N) with one intercept per (lam, tol) (within-group least squares)."""
    ok = _ok(rows)
    if ok.empty:
        return float("nan")
    lx, ly = np.log(ok["n"].to_numpy(float)), np.log(ok[value].to_numpy(float))
    keys = [ok["lam"].to_numpy(), ok["tol"].to_numpy()]
    dx = lx - pd.Series(lx).groupby(keys).transform("mean").to_numpy()
    dy = ly - pd.Series(ly).groupby(keys).transform("mean").to_numpy()
    sxx = float(dx @ dx)
    return float(dx @ dy) / sxx if sxx > 0 else float("nan")


# --------------------------------------------------------------------------- claims
def _fmt_tol(t: float) -> str:
    return f"{t:g}"


def claims(rows: pd.DataFrame, large_n: int = 10_000, manageable_seconds: float = 600.0) -> list[dict]:
    """The paper's statements on tidy rows, decided by :func:`randml_papers.pri.claims.decide` on their summary:
    ``[{"id", "claim", "status", "evidence"}]`` (the verdict on the mixture, i.e. the regenerated column)."""
    from .claims import decide
    return [{"id": c.id, "claim": c.words, "status": c.regenerated.verdict, "evidence": c.regenerated.evidence}
            for c in decide(summarise(rows), large_n, manageable_seconds)]


# --------------------------------------------------------------------------- figures
def _panels(summary: pd.DataFrame, y: str, lo: str, hi: str, *, ylabel: str, title: str, footer: str,
            diagonal: bool = False):
    """One panel per lambda, one line per tolerance, log-log axes, min..max band, x at cap hits."""
    lams = sorted(summary["lam"].unique())
    tols = sorted(summary["tol"].unique(), reverse=True)
    colors = {t: plt.cm.viridis(i / max(1, len(tols) - 1) * 0.85) for i, t in enumerate(tols)}
    ncols = min(3, len(lams))
    nrows = int(np.ceil(len(lams) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.2 * nrows), squeeze=False, sharex=True)
    for ax, lam in zip(axes.flat, lams):
        sub = summary[summary["lam"] == lam]
        for tol in tols:
            g = sub[sub["tol"] == tol].sort_values("n")
            if g.empty:
                continue
            ax.plot(g["n"], g[y], "o-", ms=3.5, lw=1.4, color=colors[tol], label=f"tol {_fmt_tol(tol)}")
            ax.fill_between(g["n"], g[lo], g[hi], color=colors[tol], alpha=0.2, lw=0)
        ns = np.sort(sub["n"].unique())
        if diagonal:
            ax.plot(ns, ns, "--", color="0.5", lw=1, label="N (all points)")
        c = sub[sub["cap_hits"] > 0]
        if len(c):
            ax.plot(c["n"], c[y], "x", color="k", ms=8, mew=1.5, label="cap N ln N hit (>= 1 repeat)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(ns, [f"{v:,}" for v in ns], rotation=45, fontsize=7)
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(f"lambda = {lam:g}", fontsize=10)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    for ax in axes.flat[len(lams):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("N (sample size)")
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    fig.suptitle(title)
    fig.text(0.01, 0.005, footer, fontsize=6, va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    return fig


def support_figure(n: int, lam: float, tol: float, seed: int, sigma: float, kernel_width: str):
    """Refit ONE PRISMO on a fresh mixture sample (seeded like a sweep cell) and draw the data with
    its support points; returns ``(figure, fitted PRISMO)``."""
    probe = PRIMixtureSweep(n_samples=n, tol=tol, lam=lam, sigma=sigma, kernel_width=kernel_width,
                            random_state=seed).fit()  # the sweep's own seeding (cell_seeds)
    m = probe.solver_
    X, _ = make_pri_mixture(n, probe.data_seed_)
    pts, w = m.sample()
    fig, ax = plt.subplots(figsize=(6.0, 4.6))
    ax.scatter(X[:, 0], X[:, 1], s=4, c="0.7", lw=0, label=f"data (N = {n})")
    ax.scatter(pts[:, 0], pts[:, 1], s=8 + 60 * w / w.max(), facecolors="none", edgecolors="C3", lw=0.8,
               label=f"support points ({len(w)}), area ~ weight")
    ax.set_aspect("equal")
    ax.legend(fontsize=8, loc="lower left")
    ax.set_title(f"PRI-SMO relevant set: lambda = {lam:g}, tol = {_fmt_tol(tol)}, sigma = {sigma:g} "
                 f"({kernel_width}); stop: {m.stop_reason_}", fontsize=9)
    fig.tight_layout()
    return fig, m


# --------------------------------------------------------------------------- report
#: experiment options this report reads (the config checks refuse any other unknown key)
OPTIONS = {"pri_prefix": "file name prefix", "pri_large_n": "N from which a run counts as large",
           "pri_manageable_seconds": "time budget of the 'manageable' claim", "pri_support_n": "support scatter: N",
           "pri_support_lam": "support scatter: lambda", "pri_support_tol": "support scatter: tolerance",
           "pri_support_seed": "support scatter: seed"}


def _opt(ctx, key, default):
    v = ctx.spec.options.get(key)
    return default if v is None else v


def _summary_markdown(s: pd.DataFrame) -> str:
    t = pd.DataFrame({
        "lambda": s["lam"].map(lambda v: f"{v:g}"), "tol": s["tol"].map(_fmt_tol), "N": s["n"],
        "runs": s["repeats"].astype(str) + np.where(s["failed"] > 0, " (+" + s["failed"].astype(str) + " failed)", ""),
        "time s (median, min-max)": [f"{a:.3g} ({b:.3g}-{c:.3g})" for a, b, c in
                                     zip(s["seconds_median"], s["seconds_min"], s["seconds_max"])],
        "#SV (mean, min-max)": [f"{a:.1f} ({b:.0f}-{c:.0f})" for a, b, c in zip(s["n_sv_mean"], s["n_sv_min"], s["n_sv_max"])],
        "iterations (mean)": s["n_iter_mean"].map(lambda v: f"{v:.0f}"),
        "cap": s["max_iter"].map(lambda v: f"{v:.0f}"),
        "cap hits": s["cap_hits"].astype(str) + "/" + s["repeats"].astype(str),
        "stalled": s["stalled"]})
    return frame_markdown(t)


def claims_pointer(prefix: str = "pri") -> list[str]:
    """The report's claims section: where the verdicts are (one source of them: ``<prefix>_claims.md``)."""
    return ["## The paper's claims", "",
            f"Decided in `{prefix}_claims.md` / `.json` (`randml_papers.pri.claims`, from `{prefix}_summary.csv`; "
            "written by this report and by `make pri-claims` from the committed summary): each claim's rule, "
            "statistic, margin, power and the verdict at half and double the margin, and the same claims under both "
            "readings of the kernel width (`pri_sensitivity.csv`)."]


def build(ctx) -> list:
    spec = ctx.spec
    prefix = str(_opt(ctx, "pri_prefix", "pri"))
    large_n = int(_opt(ctx, "pri_large_n", 10_000))
    budget = float(_opt(ctx, "pri_manageable_seconds", 600.0))
    rows = tidy(ctx.frame)
    if rows["sigma"].nunique() > 1:
        raise ValueError(f"the PRI report compares runs at one sigma (the paper's 0.2); the store holds sigma in "
                         f"{sorted(rows['sigma'].unique())}: report one sigma per experiment")
    summary = summarise(rows)
    from .claims import render
    claims_md, claims_json = render(ctx.results_dir / "tables", summary, prefix, large_n, budget)
    per_group = growth_exponents(rows)
    pooled = pooled_exponent(rows)
    pooled_iter = pooled_exponent(rows, "n_iter")
    ns = np.sort(rows["n"].unique())
    n_hi = int(ns[(len(ns) - 1) // 2]) if len(ns) else 0  # the upper half of the N grid
    pooled_hi = pooled_exponent(rows[rows["n"] >= n_hi]) if len(ns) >= 3 else float("nan")
    variant = spec.variants[0]
    kernel_width = str(variant.fixed.get("kernel_width", "sqrt2_sigma"))
    sigmas = sorted({float(s) for v in spec.variants for s in v.grid.get("sigma", [0.2])})
    footer = (f"{spec.protocol.describe()}; PRISMO kernel_width={kernel_width}, sigma={', '.join(map(str, sigmas))}, "
              f"max_iter=ceil(N ln N), one BLAS thread")

    figs, tables, out = ctx.results_dir / "figures", ctx.results_dir / "tables", ctx.artefacts
    paths = []
    if len(summary):
        paths += save(_panels(summary, "seconds_median", "seconds_min", "seconds_max",
                              ylabel="fit time (s), median over repeats",
                              title="PRI-SMO Figure 1: computation time vs N per tolerance", footer=footer),
                      figs / f"{prefix}_fig1", out)
        paths += save(_panels(summary, "n_sv_mean", "n_sv_min", "n_sv_max", ylabel="# support vectors (mean)",
                              title="PRI-SMO Figure 2: support vectors vs N per tolerance", footer=footer,
                              diagonal=True), figs / f"{prefix}_fig2", out)
    s_n, s_lam = int(_opt(ctx, "pri_support_n", 2000)), float(_opt(ctx, "pri_support_lam", 2.0))
    s_tol, s_seed = float(_opt(ctx, "pri_support_tol", 1e-3)), int(_opt(ctx, "pri_support_seed", 0))
    fig, sup = support_figure(s_n, s_lam, s_tol, s_seed, sigmas[0], kernel_width)
    paths += save(fig, figs / f"{prefix}_support", out)

    n_failed = int((rows["status"] != "ok").sum())
    missing = ctx.n_planned - len(ctx.frame)
    grid = variant.grid
    lines = [
        "# PRI-SMO Section 6.1 — time and support vectors versus N, tolerance and lambda", "",
        f"Experiment `{spec.name}`: N in {grid.get('n_samples')}, tol in {grid.get('tol')}, lambda in "
        f"{grid.get('lam')}, sigma in {sigmas} (kernel_width={kernel_width}); {spec.protocol.describe()}. "
        f"Each repeat draws a new sample of the paper's 3-Gaussian mixture from its model seed; max iterations "
        f"ceil(N ln N). Stored runs: {len(rows)} of {ctx.n_planned} planned ({missing} missing, {n_failed} failed).",
        ""]
    lines += claims_pointer(prefix)
    lines += ["", "## Growth of the fit time in N", "",
              f"Pooled least-squares exponent b in log(seconds) = a_(lambda,tol) + b log(N) over all {len(_ok(rows))} "
              f"successful runs (one intercept per setting): **b = {pooled:.3f}** (iterations: b = {pooled_iter:.3f}); "
              f"over the upper half of the grid, N >= {n_hi}: b = {pooled_hi:.3f}. "
              "A fit is one O(N^2) pass for q = V alpha plus O(N) per pair step (and a fixed Python cost per step, "
              "which dominates at small N), so the exponent describes this implementation on this machine.", ""]
    if len(per_group):
        lines += [frame_markdown(pd.DataFrame({
            "lambda": per_group["lam"].map(lambda v: f"{v:g}"), "tol": per_group["tol"].map(_fmt_tol),
            "exponent": per_group["exponent"].map(lambda v: f"{v:.3f}"), "R^2": per_group["r2"].map(lambda v: f"{v:.3f}"),
            "runs": per_group["runs"], "N range": per_group["n_min"].astype(str) + "-" + per_group["n_max"].astype(str)})),
            ""]
    lines += ["## Per setting", "", _summary_markdown(summary) if len(summary) else "no successful runs stored", "",
              f"Figures: `figures/{prefix}_fig1.png|pdf` (time), `figures/{prefix}_fig2.png|pdf` (#SV), "
              f"`figures/{prefix}_support.png|pdf` (illustration, refitted by the report: N={s_n}, lambda={s_lam:g}, "
              f"tol={_fmt_tol(s_tol)}, seed {s_seed}: {len(sup.support_)} support points, stop {sup.stop_reason_}).",
              "", "The paper's figures are plots without numbers in the text copy; no published values are compared."]
    md = out.write_text(tables / f"{prefix}_report.md", "\n".join(lines) + "\n")
    js = out.write_json(tables / f"{prefix}_report.json", {"pooled_exponent": pooled, "pooled_iteration_exponent": pooled_iter,
                              "upper_half_n_min": n_hi, "pooled_exponent_upper_half": pooled_hi,
                              "exponents": per_group.to_dict(orient="records"), "runs": len(rows),
                              "failed": n_failed, "planned": ctx.n_planned,
                              "support_figure": {"n": s_n, "lam": s_lam, "tol": s_tol, "seed": s_seed,
                                                 "n_sv": int(len(sup.support_))}}, indent=1, default=float)
    csv = out.write_csv(tables / f"{prefix}_summary.csv", summary)
    cmd = out.write_text(tables / f"{prefix}_claims.md", claims_md)
    cjs = out.write_json(tables / f"{prefix}_claims.json", claims_json, indent=1)
    print("\n".join(lines))
    return paths + [md, js, csv, cmd, cjs]
