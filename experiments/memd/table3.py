"""MeMd Table III (20 Newsgroups, 2-fold CV accuracy) from the stored frame."""
from __future__ import annotations

from .common import build_table, footer, write

TITLE = "MeMd Table III — 2-fold CV accuracy (%) on 20 Newsgroups problems"


#: experiment options this report reads (the config checks refuse any other unknown key)
OPTIONS = {"table_stem": "file name of the table (default: the experiment name)"}

def build(ctx) -> list:
    spec = ctx.spec
    shown, csv = build_table(ctx, "III", spec.options.get("title", TITLE))
    foot = footer(ctx, ctx.frame, [
        "MeMd: 1-moment ME marginals (exponential on [0, inf), mean floored at 1e-3) of the normalised term "
        "frequencies; K = smallest K of best accuracy on 20 % of the training part after ranking on the other "
        "80 % (Section VI-C). SVM: LIBLINEAR LinearSVC, C from 0.01..100; DME: multinomial logistic regression "
        "(lbfgs, L2), C from 1..1000; both C by 3-fold CV on the training part (the paper does not give its C).",
        "20 Newsgroups: scikit-learn's bydate 'all' corpus; English stop words and words of corpus count < 2 "
        "removed per problem; sparse CSR, no scaling. Document counts differ from the paper for the rec.autos/"
        "rec.motorcycles and religion problems (see randml_core/data/text_memd.py).",
    ])
    stem = ctx.results_dir / "tables" / spec.options.get("table_stem", spec.name)
    return write(ctx.artefacts, stem, spec.options.get("title", TITLE), shown, csv, foot, ctx.frame)
