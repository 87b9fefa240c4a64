"""SLM paper Table III: test RMSE of the regressors, ours beside the published value.

Ours: mean ± std over the outer 60/40 splits of the RMSE at the hyper-parameters picked on each
training part (2-fold inner CV, lowest mean RMSE; see :mod:`randml_papers.slm.common`).
"""
from __future__ import annotations

from randml_core.report.tables import features_line, split_scores

from .common import (comparison_rows, nested_picks, provenance_lines, published, selection_lines, summarise,
                     wide_text, write_artefacts)

TITLE = "SLM Table III — test RMSE: ours (mean ± std over splits) / paper (delta, verdict)"
MODELS = ["LSVR", "SVR/RBF", "DT", "SLR Baseline", "RF", "XGBoost", "SLR Forest", "SLR Boost"]


def table3_frames(ctx):
    picks = nested_picks(ctx.frame, "rmse", higher=False) if len(ctx.frame) else ctx.frame
    summary = summarise(picks, "rmse")
    datasets = list(ctx.spec.datasets)
    long = comparison_rows(summary, published(), "III", "rmse", datasets, MODELS, ctx.substitutes, ctx.unavailable)
    return long, wide_text(long, datasets, MODELS, 2), picks


def _features(options: dict) -> str:
    svr = "SVR / LSVR: libsvm on the standardised target (mapped back)"
    usual = f"{svr}, features min-max scaled on the training part."
    line = features_line(options, usual)
    return line if line == usual else f"{svr}. {line}"


def build(ctx) -> list:
    long, wide, picks = table3_frames(ctx)
    counts = long.loc[long["verdict"] != "", "verdict"].value_counts().to_dict()
    footer = [
        "Cell: our test RMSE mean ± std over the outer splits / the paper's single-split value "
        "(ours − paper, verdict: within = |delta| <= our std, else above/below; lower is better).",
        f"Selection: per outer split, {ctx.spec.protocol.inner_splits}-fold inner CV on the training part picks the "
        "hyper-parameters by RMSE.",
        f"Verdicts over the comparable cells: {counts}.",
        "Friedman 1: 10 features (sklearn default; the paper's D is stripped), no noise on any Friedman set.",
        _features(ctx.spec.options),
        *selection_lines(ctx, picks),
        *provenance_lines(ctx),
    ]
    stem = ctx.results_dir / "tables" / "slm_table3"
    folds = ctx.artefacts.write_csv(stem.with_name("slm_table3_folds.csv"),
                                    split_scores(picks, "rmse", ["x_depth", "x_n_parameters"]))  # the claims' paired splits
    return [*write_artefacts(ctx.artefacts, stem, TITLE, wide, long, footer), folds]
