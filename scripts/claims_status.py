"""Claim counts per paper, before and after the fidelity issue's rules (issue 17), for the README status table.

Usage: ``python scripts/claims_status.py [--write-readme]``

"After" = the committed claims JSON of each paper (``results/tables/<paper>_claims.json``, written by the paper's
claims report with :mod:`randml_core.report.claims`: ``counts`` on the real datasets). "Before" = the same file at
the commit that recorded the previous rules' verdicts (:data:`BEFORE`), read with ``git show``; a paper whose
claims did not move to the claims module yet shows its current counts under both. Printed as a markdown table;
``--write-readme`` replaces the table between the ``claims-status`` markers of README.md.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VERDICTS = ("held", "not held", "inconclusive", "not tested")
#: paper -> (claims JSON, commit holding the previous rules' verdicts in that file)
BEFORE = {
    "EEM": ("results/tables/eem_claims.json", "8e5f803"),
    "SLM": ("results/tables/slm_claims.json", "b5077ea"),
    "MeMd": ("results/tables/memd_claims.json", "f048d13"),
    "ELM boosting": ("results/tables/elmboost_claims.json", "492211f"),
    "PRI-SMO": ("results/tables/pri_report.json", None),
}
#: the real datasets of a per-dataset claims file (the ELM boosting file before issue 17: one row per claim x dataset)
REAL = {"ELM boosting": ("mnist", "fashion-mnist")}
START, END = "<!-- claims-status:start -->", "<!-- claims-status:end -->"


def counts(data: dict, paper: str) -> dict[str, int]:
    """Verdict -> number of claims on the real datasets, for either JSON layout."""
    if isinstance(data.get("counts"), dict) and all(isinstance(c.get("real"), (dict, type(None))) for c in data["claims"]):
        return {v: int(data["counts"].get(v, 0)) for v in VERDICTS}
    # older layout: {"claims": [{"id", "status", ["dataset"]}]}; per-dataset rows are folded per claim over the
    # real datasets (held on every one -> held, not held on any -> not held); 'reference' rows are not claims
    by_id: dict[str, list[str]] = {}
    for c in data["claims"]:
        st = str(c.get("status", "")).lower()
        if st == "reference" or ("dataset" in c and c["dataset"] not in REAL.get(paper, (c["dataset"],))):
            continue
        by_id.setdefault(c["id"], []).append(st)
    out = Counter()
    for sts in by_id.values():
        out["not held" if "not held" in sts else "held" if all(s == "held" for s in sts) else
            "not tested" if all(s.startswith("not tested") for s in sts) else "inconclusive"] += 1
    return {v: out.get(v, 0) for v in VERDICTS}


def _git_json(path: str, ref: str) -> dict | None:
    try:
        raw = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
    return json.loads(raw)


def rows() -> list[tuple[str, dict | None, dict | None, str]]:
    out = []
    for paper, (path, ref) in BEFORE.items():
        f = ROOT / path
        now = counts(json.loads(f.read_text()), paper) if f.is_file() else None
        if ref is None:
            out.append((paper, now, now, "rules unchanged by issue 17" if now else f"no {path} yet"))
            continue
        old = _git_json(path, ref)
        out.append((paper, counts(old, paper) if old else None, now, f"before: {path} at {ref}"))
    return out


def _fmt(c: dict | None) -> str:
    return "-" if c is None else " / ".join(str(c[v]) for v in VERDICTS)


def table() -> str:
    lines = ["| paper | before: held / not held / inconclusive / not tested | after | source |", "|---|---|---|---|"]
    lines += [f"| {p} | {_fmt(b)} | {_fmt(a)} | {note} |" for p, b, a, note in rows()]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write-readme", action="store_true", help="replace the table between the README markers")
    args = ap.parse_args(argv)
    text = table()
    print(text)
    if args.write_readme:
        readme = ROOT / "README.md"
        body = readme.read_text()
        if START not in body or END not in body:
            print(f"README.md has no {START} ... {END} markers: add them where the table goes", file=sys.stderr)
            return 2
        head, rest = body.split(START, 1)
        _, tail = rest.split(END, 1)
        readme.write_text(f"{head}{START}\n{text}\n{END}{tail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
