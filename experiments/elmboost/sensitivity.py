"""ELM ridge boosting: sensitivity to the readings the paper leaves open (issue 17, item 3), at reduced scale.

Never replaces the literal reading (the headline of ``elmboost_claims.md``); it shows how far the
open choices move the numbers. On ``mnist-5k`` (offline, 4000 train / 1000 test MNIST images, a
substitute: the paper used 60000 / 10000), tanh, J = M, alpha = 1/2, T = 50, levels l = 0..7
(the paper's claim point), float32, one model seed by default. Readings:

- ridge: mu = 1 on the unnormalised ``H^T H`` (literal), ``mu * N`` (mu on ``H^T H / N``), mu on the
  Gram scaled to unit mean diagonal (``ridge_scale="trace"``), and a literal mu sweep 10 / 100 / 1000;
- noise protocol: 10 % of the pixels zeroed in the test images only (literal) or also in the training
  images (another draw), choosing among all pixels (literal) or the foreground (nonzero) pixels only;
  every fit is scored on the clean, the uniform-noise and the foreground-noise test sets;
- normalisation of Eq. (21): ``<x_n>`` as the image's own pixel mean (literal) or the per-pixel mean
  over the training set.

Writes ``results/tables/elmboost_sensitivity.csv`` (accuracy per reading x seed x level x test set) and
``elmboost_sensitivity.md``; the claims report includes the markdown as a section.

    python -m randml_papers.elmboost.sensitivity [--levels 8] [--steps 50] [--seeds 1] [--results results]
    python -m randml_papers.elmboost.sensitivity --render     # the markdown again from the committed csv

Nine fits of 400 ridge steps on 4000 x 784 with one BLAS thread: 7.5 min of CPU, 14.7 min wall on our shared
2-core machine under load (the fit times go to the sidecar ``elmboost_sensitivity.meta.json``, not the table).
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from randml_papers.elmboost.families import zero_pixels
from randml_core.artefacts import ArtefactSet
from randml_core.data.loading import load_dataset
from randml_core.models.elmboost import ELMBoostClassifier, ELMBoostNormalizer
from randml_core.provenance import short_version

DATASET = "mnist-5k"
NOISE = 0.1
TEST_NOISE_SEED, TRAIN_NOISE_SEED = 0, 1
#: the paper's numbers for full MNIST (Section 3.1, Conclusion): clean > 98.9 % for l >= 7, noisy "98 %"
PAPER_CLEAN, PAPER_NOISY = 98.9, 98.0
STEPS = 50  # the paper's T
RISE_PP = 0.5  # "the classification accuracy increases with the number of boosting levels": gain l=0->7 >= this
TESTS = ("clean", "uniform", "foreground")


@dataclass(frozen=True)
class Reading:
    name: str
    group: str
    what: str
    booster: dict = field(default_factory=dict)
    center: str = "sample"
    train_noise: str | None = None  # None, "all" or "foreground"
    literal: bool = False


READINGS = [
    Reading("literal", "all", "mu = 1 on H^T H; test-only noise, uniform pixels; <x_n> per image (the headline)",
            literal=True),
    Reading("mu*N", "ridge", "lambda = mu N = 4000 (mu on H^T H / N)", {"ridge_scale": "n_samples"}),
    Reading("mu on unit-diagonal Gram", "ridge", "lambda = mu tr(H^T H) / J", {"ridge_scale": "trace"}),
    Reading("mu = 10", "ridge", "literal, mu = 10", {"ridge": 10.0}),
    Reading("mu = 100", "ridge", "literal, mu = 100", {"ridge": 100.0}),
    Reading("mu = 1000", "ridge", "literal, mu = 1000", {"ridge": 1000.0}),
    Reading("train+test noise, uniform", "noise", "training images also 10 % zeroed (uniform)", train_noise="all"),
    Reading("train+test noise, foreground", "noise", "training images also 10 % zeroed (foreground pixels)",
            train_noise="foreground"),
    Reading("<x_n> per pixel", "normalisation", "Eq. (21) mean over the training set per pixel", center="feature"),
]


def run(levels: int = 8, steps: int = STEPS, seeds: int = 1, readings=READINGS) -> pd.DataFrame:
    """Long frame: reading, group, seed, level, test, accuracy (%), seconds."""
    ds = load_dataset(DATASET)
    test = np.zeros(len(ds.y), bool)
    test[ds.test_index] = True
    Xtr_raw, ytr = np.asarray(ds.X[~test], float), np.asarray(ds.y[~test])
    Xte_raw, yte = np.asarray(ds.X[test], float), np.asarray(ds.y[test])
    test_sets = {"clean": Xte_raw, "uniform": zero_pixels(Xte_raw, NOISE, TEST_NOISE_SEED),
                 "foreground": zero_pixels(Xte_raw, NOISE, TEST_NOISE_SEED, pixels="foreground")}
    rows = []
    for r in readings:
        Xtr = Xtr_raw if r.train_noise is None else zero_pixels(Xtr_raw, NOISE, TRAIN_NOISE_SEED, pixels=r.train_noise)
        norm = ELMBoostNormalizer(center=r.center).fit(Xtr)
        Xtr_n = norm.transform(Xtr).astype(np.float32)
        Xev = np.concatenate([norm.transform(test_sets[t]) for t in TESTS]).astype(np.float32)
        for seed in range(seeds):
            params = {"n_levels": levels, "n_steps": steps, "alpha": 0.5, "ridge": 1.0, "activation": "tanh",
                      "dtype": "float32", "random_state": seed, **r.booster}
            t0 = time.perf_counter()
            m = ELMBoostClassifier(**params)
            scores = m.fit_staged_eval(Xtr_n, ytr, Xev)
            secs = time.perf_counter() - t0
            n = len(yte)
            for lev in range(levels):
                pred = m.classes_[scores[lev].argmax(1)]
                for i, t in enumerate(TESTS):
                    acc = 100.0 * float(np.mean(pred[i * n:(i + 1) * n] == yte))
                    rows.append({"reading": r.name, "group": r.group, "seed": seed, "level": lev, "test": t,
                                 "accuracy": acc, "seconds": secs})
            print(f"{r.name} seed {seed}: {secs:.0f} s, clean {rows[-3]['accuracy']:.2f} %", flush=True)
    return pd.DataFrame(rows)


def summary(long: pd.DataFrame) -> pd.DataFrame:
    """Per reading: accuracy at l = 0 and the last level (clean, both noisy test sets), the gain and the drops."""
    m = long.groupby(["reading", "group", "level", "test"], sort=False)["accuracy"].mean().unstack("test")
    out = []
    for (name, group), part in m.groupby(level=[0, 1], sort=False):
        part = part.droplevel([0, 1])
        last = int(part.index.max())
        c0, cl = part.loc[0, "clean"], part.loc[last, "clean"]
        out.append({"reading": name, "group": group, "clean l=0": c0, f"clean l={last}": cl, "gain l=0->last": cl - c0,
                    f"uniform noise l={last}": part.loc[last, "uniform"], "drop uniform": cl - part.loc[last, "uniform"],
                    f"foreground noise l={last}": part.loc[last, "foreground"],
                    "drop foreground": cl - part.loc[last, "foreground"]})
    s = pd.DataFrame(out)
    last = int(long["level"].max())
    # distance to the paper's full-MNIST numbers at the claim point (clean, and the paper's noise protocol as read)
    s["distance to paper"] = (PAPER_CLEAN - s[f"clean l={last}"]).abs() + (PAPER_NOISY - s[f"uniform noise l={last}"]).abs()
    return s


def sampling_margin(acc: float, n_test: int) -> float:
    """95 % half-width (pp) of the test-sampling error of a difference of two accuracies near ``acc`` (%)."""
    p = acc / 100.0
    return 100.0 * 1.959963984540054 * float(np.sqrt(2 * p * (1 - p) / n_test))


def closest(s: pd.DataFrame, n_test: int = 1000) -> list[str]:
    """Sentences naming the reading closest to the paper's numbers (rule in the text), the readings that cannot be
    told apart from it on this test set, and the closest of each group."""
    rising = s[s["gain l=0->last"] >= RISE_PP]
    pool = rising if len(rising) else s
    best = pool.loc[pool["distance to paper"].idxmin()]
    lit = s.loc[s["reading"] == "literal"].iloc[0]
    last = [c for c in s.columns if c.startswith("clean l=") and c != "clean l=0"][0]
    m = sampling_margin(float(best[last]), n_test)
    near = [r["reading"] for _, r in pool.iterrows()
            if r["reading"] != best["reading"] and r["distance to paper"] - best["distance to paper"] <= m]
    out = [f"Closest to the published numbers (rule: among the readings whose curve rises by >= {RISE_PP} pp from "
           f"l = 0 to the last level, as the paper's Figure 1 does, the smallest |{PAPER_CLEAN} - clean| + "
           f"|{PAPER_NOISY} - uniform-noise accuracy| at the last level): **{best['reading']}** (distance "
           f"{best['distance to paper']:.2f} pp, gain {best['gain l=0->last']:+.2f} pp) versus the literal reading "
           f"(distance {lit['distance to paper']:.2f} pp, gain {lit['gain l=0->last']:+.2f} pp"
           f"{'' if lit['gain l=0->last'] >= RISE_PP else ': its curve does not rise'}). "
           + (f"Not separable from it on {n_test} test images and one seed (distance within the {m:.1f} pp sampling "
              f"margin of a difference of two accuracies): {', '.join(near)}." if near else
              f"No other rising reading is within the {m:.1f} pp sampling margin of it.")]
    for group, part in s[s["group"] != "all"].groupby("group", sort=False):
        b = part.loc[part["distance to paper"].idxmin()]
        out.append(f"- {group}: closest {b['reading']} (distance {b['distance to paper']:.2f} pp, uniform-noise drop "
                   f"{b['drop uniform']:.2f} pp, foreground-noise drop {b['drop foreground']:.2f} pp) vs literal "
                   f"(distance {lit['distance to paper']:.2f} pp, drops {lit['drop uniform']:.2f} / "
                   f"{lit['drop foreground']:.2f} pp).")
    return out


def markdown(long: pd.DataFrame) -> str:
    s = summary(long)
    levels, seeds = int(long["level"].max()) + 1, int(long["seed"].nunique())
    show = s.copy()
    for c in show.columns[2:]:
        show[c] = show[c].map(lambda v: f"{v:.2f}")
    head = "| " + " | ".join(show.columns) + " |"
    lines = ["## Sensitivity to the readings the paper leaves open (reduced scale)", "",
             f"On **{DATASET}** (4000 training / 1000 test MNIST images: a substitute, the paper used 60000 / 10000), "
             f"tanh, J = M, alpha = 1/2, T = {STEPS}, levels l = 0..{levels - 1}, {seeds} model seed(s) (seed 0"
             f"{'' if seeds == 1 else f'..{seeds - 1}'}), float32, one BLAS thread. "
             "Accuracies in % (mean over the seeds); drops = clean - noisy at the last level, in pp. Test noise: 10 % "
             f"of the pixels (78 of 784) of every test image zeroed (seed {TEST_NOISE_SEED}), 'uniform' over all "
             "pixels or 'foreground' among the nonzero pixels only; training noise (two readings) uses another draw "
             f"(seed {TRAIN_NOISE_SEED}). 'distance to paper' = |{PAPER_CLEAN} - clean| + |{PAPER_NOISY} - uniform-noise| "
             "at the last level, against the paper's full-MNIST numbers: with 1/15 of the training images no reading "
             "is expected to reach them, so read it as a ranking, not as agreement.", "",
             head, "|" + "---|" * len(show.columns)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in show.itertuples(index=False)]
    lines += ["", "Readings: " + "; ".join(f"*{r.name}*: {r.what}" for r in READINGS) + ".", "",
              *closest(s), "",
              "What mnist-5k cannot show: the Fashion-MNIST noise miss (noise_tanh above; the paper's 91.3 % -> 90 % is a drop of ~1.3 pp) "
              "needs Fashion-MNIST, which is not installed here; the foreground reading (78 stroke pixels zeroed) "
              f"costs {s['drop foreground'].min():.0f}-{s['drop foreground'].max():.0f} points on mnist-5k (foreground "
              "column), far from the paper's 'still reaching 98%': as far "
              "as mnist-5k can tell, the paper did not zero 10 % of the pixels among the strokes only.", "",
              "The literal reading (mu = 1 added to the unnormalised H^T H; only the test images corrupted, pixels drawn "
              "uniformly; <x_n> the image's own mean) stays the headline of the claims above: the paper writes "
              "(H^T H + lambda I) with lambda = mu = 1 and says nothing of a scaling, of corrupting the training "
              "images, or of a mean over the training set, so no other reading is clearly supported by its text. "
              "The paper's remark that mu = 1 is \"a high value, which discourages overfitting\" fits mu on a "
              "per-sample Gram better than the literal reading (on 60000 images the diagonal of H^T H is ~2e4 for "
              "tanh), but it is a remark, not an equation.", "",
              "Per-level numbers: `tables/elmboost_sensitivity.csv`; regenerate with "
              "`python -m randml_papers.elmboost.sensitivity`."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--levels", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--results", default="results")
    ap.add_argument("--render", action="store_true", help="rewrite the markdown from the existing csv (no fit)")
    a = ap.parse_args(argv)
    root = Path(a.results)
    csv = root / "tables" / "elmboost_sensitivity.csv"
    if a.render:
        long = pd.read_csv(csv)
    else:
        with threadpool_limits(1):
            long = run(a.levels, STEPS, a.seeds)
    with ArtefactSet(root, "elmboost_sensitivity", code_version=short_version()) as out:
        if not a.render:
            out.write_csv(csv, long.drop(columns="seconds"), float_format="%.10g")
            out.record("fit_seconds", repr(long.groupby(["reading", "seed"])["seconds"].first().to_dict()))
        out.write_text(root / "tables" / "elmboost_sensitivity.md", markdown(long))
    print(markdown(long))


if __name__ == "__main__":
    main()
