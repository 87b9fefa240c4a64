#!/usr/bin/env python
"""`make reports`: rebuild every committed artefact that is a function of the committed result frames
(``results/frames/``), the committed inputs and the code, without fitting anything (minutes).

    .venv/bin/python scripts/reports.py [--out DIR] [--list]

``--out DIR`` rebuilds into DIR (a copy of ``results/``: ``tests/test_reports.py`` compares it byte for byte with
the committed files); ``--list`` prints what is rebuilt, what is not (an experiment without a frame, or whose frame
holds rows of a dataset this machine cannot load offline: :func:`unavailable_here`) and the machine-dependent
files, and runs nothing. The steps, in order: each experiment a frame holds, reported from the
frame alone (an empty store above it); the tables rendered without a frame (EEM Table 3 from the dataset registry,
the PRI sensitivity from its committed csv); the claims reports of the papers whose experiments all have frames or
that read committed csv files only; the statistics over datasets; the site.

Written here (not a Makefile list) so that the test and the target run the same steps.
"""
from __future__ import annotations

import argparse
import fnmatch
import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRAMES = ROOT / "results" / "frames"
PY = sys.executable

#: committed files that a rebuild does not reproduce byte for byte, and why (docs/reproducing.md)
MACHINE_DEPENDENT = {
    "tables/bench_*": "benchmarks: timings of the machine that ran them (make bench)",
    "figures/bench_*": "benchmark figures (make bench)",
    "tables/*_profile.md": "compute profiles: wall times of the run that filled the store",
    "site/screenshots/*": "browser screenshots (make site-check)",
}

#: committed files under results/ that the steps read and never write: a rebuild keeps them
INPUTS = {
    "frames/*": "the result frames",
    "tables/*_verdicts.jsonl": "each paper's verdict history: appended when a verdict changes, never rewritten",
    "tables/pri_sensitivity.csv": "per-fit numbers of `make pri-sensitivity` (fits of its own outside the engine, no "
                                  "frame); the step below renders its md and json from it",
}

#: artefacts rendered without a frame: (name, module argv) from the registry or a committed csv
RENDERS = [
    ("eem_table3.md", ["-m", "randml_papers.eem.table3", "--results", "{results}"]),
    ("pri_sensitivity.md", ["-m", "randml_papers.pri.sensitivity", "--render", "--results", "{results}"]),
]

#: claims reports: (name, module argv, the experiments whose frames it needs: empty = committed csv files only)
CLAIMS = [
    ("memd_report.md", ["-m", "randml_papers.memd.summary", "{tables}"], ("memd_table2", "memd_table3")),
    ("pri_claims.md", ["-m", "randml_papers.pri.claims", "{tables}"], ()),
    ("elmboost_claims.md", ["-m", "randml_papers.elmboost.report", "--from-levels", "{tables}/elmboost_levels.csv",
                            "--results", "{results}"], ()),
    ("slm_report.md", ["-m", "randml_papers.slm.summary", "{results}"], ("slm_table1", "slm_table2", "slm_table3",
                                                                        "slm_fig5")),
    ("eem_report.md", ["-m", "randml_papers.eem.summary", "{tables}"], ("eem_table4", "eem_table1",
                                                                        "eem_table4_unbalanced", "eem_table5", "eem_table5_svm",
                                                                        "eem_fig3")),
]


@functools.lru_cache(maxsize=None)
def framed_experiments(frames: Path = FRAMES) -> dict[str, str]:
    """``{experiment: frame file name}`` of every experiment a committed frame holds (from its provenance)."""
    sys.path.insert(0, str(ROOT))
    from randml_core.frames import provenance
    out = {}
    for path in sorted(frames.glob("*.parquet")):
        for name in sorted(provenance(path).get("experiments", {})):
            out[name] = path.name
    return out


@functools.lru_cache(maxsize=None)
def unavailable_here(frames: Path = FRAMES) -> dict[str, tuple[str, ...]]:
    """``{experiment: datasets}``: the datasets an experiment's frame holds rows of (its provenance) that this machine
    cannot load without a download (an optional system package such as Debian's Fashion-MNIST, an empty OpenML
    cache). Its report is not rebuilt here: rebuilt without them it would drop their rows; its committed files are
    kept, and a machine that has the data rebuilds them."""
    sys.path.insert(0, str(ROOT))
    from randml_core.data import get_spec
    from randml_core.frames import provenance
    before = os.environ.get("RANDML_OFFLINE")
    os.environ["RANDML_OFFLINE"] = "1"  # available = loadable offline (a download source: its cache)
    try:
        def here(name: str) -> bool:
            try:
                return any(src.available() for src in get_spec(name).sources)
            except LookupError:
                return False
        out = {}
        for path in sorted(frames.glob("*.parquet")):
            for name, info in sorted(provenance(path).get("experiments", {}).items()):
                lacking = tuple(d for d in sorted(info.get("data", {})) if not here(d))
                if lacking:
                    out[name] = lacking
        return out
    finally:
        if before is None:
            os.environ.pop("RANDML_OFFLINE", None)
        else:
            os.environ["RANDML_OFFLINE"] = before


def machine_dependent(rel: str) -> bool:
    return any(fnmatch.fnmatch(rel, pat) for pat in MACHINE_DEPENDENT)


@functools.lru_cache(maxsize=None)
def experiment_names() -> tuple[str, ...]:
    """Every shipped experiment config's name (the engine's conf/ and each paper's)."""
    paths = [*ROOT.glob("conf/experiment/*.yaml"), *ROOT.glob("experiments/*/conf/experiment/*.yaml")]
    return tuple(sorted({p.stem for p in paths}))


def owner(rel: str, names, framed=()) -> str | None:
    """The experiment whose artefact ``rel`` (relative to results/) is: the longest experiment name its file name
    starts with (``leaderboard_grid_cd.png`` is leaderboard_grid's, not leaderboard's), a framed one first
    (``elmboost_fig1.png`` is written by elmboost's report: elmboost_fig1 is a one-figure run of the same cells,
    with no frame of its own), else None."""
    stem = Path(rel).name
    found = [n for n in names if stem == n or stem.startswith((n + ".", n + "_"))]
    reported = [n for n in found if n in framed]
    return max(reported or found, key=len) if found else None


def kept(rel: str, frames: Path = FRAMES, names=None) -> str | None:
    """Why a committed file under results/ is not expected from a rebuild (None: a rebuild writes it): machine-
    dependent, an input of the steps, or the artefact of an experiment without a frame (not rebuilt yet)."""
    if machine_dependent(rel):
        return "machine-dependent"
    if any(fnmatch.fnmatch(rel, pat) for pat in INPUTS):
        return "input"
    name = owner(rel, experiment_names() if names is None else names, framed_experiments(frames))
    if name is not None and name not in framed_experiments(frames):
        return f"waits for the frame of {name}"
    if name is not None and name in unavailable_here(frames):
        return f"needs {', '.join(unavailable_here(frames)[name])} here (its frame holds their rows)"
    return None


def committed_results() -> list[str]:
    """The committed files under results/, relative to it (``git ls-files``; none outside a git checkout)."""
    done = subprocess.run(["git", "ls-files", "results"], cwd=ROOT, capture_output=True, text=True)
    return [line[len("results/"):] for line in done.stdout.splitlines() if line] if done.returncode == 0 else []


def steps(out: Path, frames: Path = FRAMES) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """``(steps, not rebuilt)``: each step a (label, argv) run in ``out``'s parent folder with ``out`` named by its
    relative name (reports quote the paths they read: the same text wherever the folder is); the other lines say
    what is not rebuilt and why."""
    framed = framed_experiments(frames)
    out = Path(out.name)
    randml = [PY, "-m", "randml_core.cli"]
    todo, skipped = [], []
    lacking_data = unavailable_here(frames)
    for name in framed:
        if name in lacking_data:
            skipped.append(f"report {name}: needs dataset(s) {', '.join(lacking_data[name])}, not available here "
                           "(its frame holds their rows; the committed files are kept)")
            continue
        todo.append((f"report {name}", [*randml, "report", f"experiment={name}", "store_dir={store}",
                                        f"results_dir={out}", "progress=false"]))
    for label, argv in RENDERS:
        todo.append((label, [PY, *(a.format(results=out) for a in argv)]))
    for label, argv, needs in CLAIMS:
        lacking = [n for n in needs if n not in framed]
        if lacking:
            skipped.append(f"{label}: needs the frames of {', '.join(lacking)}")
            continue
        todo.append((label, [PY, *(a.format(tables=out / "tables", results=out) for a in argv)]))
    todo.append(("statistics over datasets", [PY, "-m", "randml_core.report.table_stats", "--results-dir", str(out)]))
    todo.append(("site", [PY, "-m", "randml_core.site", "build", "--results", str(out)]))
    return todo, skipped


def run(out: Path, frames: Path = FRAMES, quiet: bool = False) -> int:
    todo, skipped = steps(out, frames)
    with tempfile.TemporaryDirectory(prefix="randml-reports-") as tmp:
        env = {**os.environ, "RANDML_FRAMES": str(frames), "RANDML_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
        for label, argv in todo:
            argv = [a.replace("{store}", str(Path(tmp) / "store")) for a in argv]
            done = subprocess.run(argv, cwd=out.parent, env=env, capture_output=True, text=True)
            if not quiet:
                print(f"reports: {label}: exit {done.returncode}", file=sys.stderr)
            if done.returncode not in (0, 3):
                print(done.stdout[-3000:], done.stderr[-3000:], sep="\n", file=sys.stderr)
                print(f"reports: {label} failed (exit {done.returncode}); the files written before it are kept",
                      file=sys.stderr)
                return done.returncode
    for line in skipped:
        print(f"reports: not rebuilt: {line}", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "results", help="results folder to write (default: results/)")
    ap.add_argument("--list", action="store_true", help="print the steps and what is not rebuilt; run nothing")
    a = ap.parse_args(argv)
    if a.list:
        todo, skipped = steps(a.out)
        print("rebuilt, in order:", *[f"  {label}" for label, _ in todo], sep="\n")
        print("not rebuilt:", *[f"  {s}" for s in skipped], sep="\n")
        waiting = {}
        for rel in committed_results():
            why = kept(rel)
            if why and why.startswith(("waits", "needs")):
                waiting.setdefault(why, []).append(rel)
        print("committed, kept as they are (their experiment has no frame yet, or its frame needs data not here):",
              *[f"  {len(files)} file(s): {why}" for why, files in sorted(waiting.items())], sep="\n")
        print("inputs (read, never written):", *[f"  results/{p}: {why}" for p, why in INPUTS.items()], sep="\n")
        print("machine-dependent (never compared):", *[f"  results/{p}: {why}" for p, why in MACHINE_DEPENDENT.items()],
              sep="\n")
        return 0
    return run(a.out.resolve())


if __name__ == "__main__":
    raise SystemExit(main())
