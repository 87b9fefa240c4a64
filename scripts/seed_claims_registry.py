#!/usr/bin/env python
"""Seed each paper's claims registry (``experiments/<paper>/claims_registry.jsonl``) from the git history of its
committed claims file: one ``rule`` entry per claim each time its rule or margin text changed, dated and named by the
commit that first carried it, with the verdict that commit's report printed under it (issue 42: the rules were
written into reports before a registry existed, so their history is the only record of the rule as first
registered). Run once per paper, on a registry that does not exist yet; later rules are appended with
``python -m randml_core.report.registry register``.

    .venv/bin/python scripts/seed_claims_registry.py PAPER [PAPER ...]
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from randml_core.report import registry as R  # noqa: E402

#: paper -> (claims files in the order they held the claims: (path, the last commit it holds them at or None))
FILES = {
    "eem": ["results/tables/eem_claims.json"],
    "slm": ["results/tables/slm_claims.json"],
    "memd": ["results/tables/memd_claims.json"],
    "elmboost": ["results/tables/elmboost_claims.json"],
    "pri": ["results/tables/pri_report.json", "results/tables/pri_claims.json"],
}


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def _claims(data) -> list[dict]:
    rows = data.get("claims", []) if isinstance(data, dict) else data if isinstance(data, list) else []
    return [c for c in rows if isinstance(c, dict) and "id" in c]


def _verdict(c: dict) -> str | None:
    real = c.get("real")
    if isinstance(real, dict):
        return real.get("verdict")
    return c.get("status") or c.get("verdict")


def _evidence(c: dict) -> str:
    real = c.get("real")
    return str((real or {}).get("evidence", "") if isinstance(real, dict) else c.get("evidence", ""))


def history(paper: str) -> list[dict]:
    entries, last = [], {}
    for path in FILES[paper]:
        for line in _git("log", "--reverse", "--format=%h %cs %s", "--", path).splitlines():
            commit, day, subject = line.split(" ", 2)
            try:
                data = json.loads(_git("show", f"{commit}:{path}"))
            except (subprocess.CalledProcessError, ValueError):
                continue
            for c in _claims(data):
                if "dataset" in c:  # the older per-(claim, dataset) layout: no rule text per claim
                    continue
                rule = c.get("rule") or f"(no rule text recorded in {Path(path).name}: its verdict and evidence then are kept)"
                margin = c.get("margin") or ""
                if last.get(c["id"]) == (rule, margin):
                    continue
                first = c["id"] not in last
                last[c["id"]] = (rule, margin)
                entries.append({
                    "kind": "rule", "claim": c["id"], "words": c.get("words") or c.get("claim", ""), "where": c.get("where", ""),
                    "rule": rule, "margin": margin, "population": "", "registered": day, "commit": commit,
                    "reason": ("first registered: the rule as first committed (seeded from the git history of "
                               f"{path}; registered after its data, as the issue 42 audit found)") if first else
                    f"from the git history ({commit}): {subject[:400]}",
                    "first_verdict": {"verdict": _verdict(c), "commit": commit,
                                      "evidence": _evidence(c)[:600]}})
    return entries


def main(argv=None) -> int:
    papers = (argv if argv is not None else sys.argv[1:]) or list(FILES)
    for paper in papers:
        path = ROOT / "experiments" / paper / "claims_registry.jsonl"
        if path.exists():
            print(f"{path} exists: the seed is written once (append later rules with the registry's register command)")
            continue
        entries = history(paper)
        R.append(path, entries)
        print(f"{path}: {len(entries)} rule entries for {len({e['claim'] for e in entries})} claims")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
