"""Claim counts per paper: before issue 17's rules, under them, and now (issue 31's rules), for the README table.

Usage: ``python scripts/claims_status.py [--write-readme]``

"Now" = the committed claims JSON of each paper (``results/tables/<paper>_claims.json``, written by the paper's
claims report with :mod:`randml_core.report.claims`: ``counts`` on the real datasets only), with the number of
claims that rest on no real data (not tested on real data, decided on regenerated data or substitutes only).
"Before" = the same file at the commit that recorded the rules before issue 17 (:data:`BEFORE`) and "issue 17
rules" at the commit before issue 31's rules (:data:`ISSUE17`), read with ``git show``; a paper whose rules did not
change shows its current counts. Printed as a markdown table; ``--write-readme`` replaces the table between the
``claims-status`` markers of README.md.
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
#: "now" separates the inconclusive verdicts whose rule could not reach held on the data it has (issue 42)
LABELS = ("held", "not held", "inconclusive", "undecidable here", "not tested")
#: paper -> (claims JSON, commit holding the previous rules' verdicts[, the file that held them then])
BEFORE = {
    "EEM": ("results/tables/eem_claims.json", "8e5f803"),
    "SLM": ("results/tables/slm_claims.json", "b5077ea"),
    "MeMd": ("results/tables/memd_claims.json", "f048d13"),
    "ELM boosting": ("results/tables/elmboost_claims.json", "492211f"),
    "PRI-SMO": ("results/tables/pri_claims.json", "480a9f3", "results/tables/pri_report.json"),
}
#: the commit whose claims files hold issue 17's verdicts (the rules before issue 31's, 2026-11-27)
ISSUE17 = "0e1e051"
#: the real datasets of a per-dataset claims file (the ELM boosting file before issue 17: one row per claim x dataset)
REAL = {"ELM boosting": ("mnist", "fashion-mnist")}
START, END = "<!-- claims-status:start -->", "<!-- claims-status:end -->"


def counts(data: dict, paper: str, labels: bool = False) -> dict[str, int]:
    """Verdict -> number of claims on the real datasets, for either JSON layout; with ``labels`` "undecidable here"
    apart from "inconclusive" (a file written before the label counts every such claim as inconclusive)."""
    if isinstance(data.get("counts"), dict) and all(isinstance(c.get("real"), (dict, type(None))) for c in data["claims"]):
        if labels and "undecidable here" in data["counts"]:
            return {v: int(data["counts"].get(v, 0)) for v in LABELS}
        got = {v: int(data["counts"].get(v, 0)) for v in VERDICTS}
        got["inconclusive"] += int(data["counts"].get("undecidable here", 0))
        return got
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


def no_real(data: dict) -> int | None:
    """Claims not tested on real data but decided on regenerated data or substitutes (None: older layout)."""
    claims = data.get("claims", [])
    if not claims or not all("real" in c and isinstance(c["real"], (dict, type(None))) for c in claims):
        return None
    n = 0
    for c in data["claims"]:
        real = (c.get("real") or {}).get("verdict", "not tested")
        other = [(c.get(k) or {}).get("verdict") for k in ("regenerated", "substitutes")]
        n += real == "not tested" and any(v and v != "not tested" for v in other)
    return n


def rows() -> list[tuple[str, dict | None, dict | None, dict | None, int | None, str]]:
    """(paper, before issue 17, issue 17 rules, now, claims resting on no real data now, note)."""
    out = []
    for paper, (path, ref, *then) in BEFORE.items():
        old_path = then[0] if then else path
        f = ROOT / path
        data = json.loads(f.read_text()) if f.is_file() else None
        now = counts(data, paper, labels=True) if data else None
        mid_data = _git_json(old_path, ISSUE17) if ref is not None else None
        mid = counts(mid_data, paper) if mid_data else now
        if ref is None:
            out.append((paper, counts(data, paper) if data else None, counts(data, paper) if data else None, now,
                    no_real(data) if data else None,
                        "rules unchanged since the first rules" if now else f"no {path} yet"))
            continue
        old = _git_json(old_path, ref)
        split = bool(now) and "undecidable here" in now
        out.append((paper, counts(old, paper) if old else None, mid, now, no_real(data) if data else None,
                    f"first rules: {old_path} at {ref}; rules with uncertainty: at {ISSUE17}" + (
                        "" if split or not now else f"; now: {path} predates the 'undecidable here' label (held / "
                        "not held / inconclusive / not tested)")))
    return out


def _fmt(c: dict | None) -> str:
    return "-" if c is None else " / ".join(str(c[v]) for v in (LABELS if "undecidable here" in c else VERDICTS))


def table() -> str:
    lines = ["| paper | first rules: held / not held / inconclusive / not tested | rules with uncertainty (2026-11-25) | now "
             "(real data only; current registered rules): held / not held / inconclusive / undecidable here / not tested | "
             "claims resting on no real data | source |", "|---|---|---|---|---|---|"]
    lines += [f"| {p} | {_fmt(b)} | {_fmt(m)} | {_fmt(a)} | {'-' if n is None else n} | {note} |"
              for p, b, m, a, n, note in rows()]
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
