"""scripts/claims_status.py: verdict counts from both claims-file layouts, and the README table is current."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("claims_status", ROOT / "scripts" / "claims_status.py")
cs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cs)


def test_counts_of_the_module_layout_and_of_the_older_per_dataset_rows():
    new = {"counts": {"held": 2, "not held": 1, "inconclusive": 0, "not tested": 4},
           "claims": [{"id": "a", "real": {"verdict": "held"}}]}
    assert cs.counts(new, "X") == {"held": 2, "not held": 1, "inconclusive": 0, "not tested": 4}
    old = {"claims": [  # per claim x dataset; real sets of ELM boosting are mnist and fashion-mnist
        {"id": "acc", "dataset": "mnist", "status": "held"}, {"id": "acc", "dataset": "fashion-mnist", "status": "not held"},
        {"id": "gap", "dataset": "mnist", "status": "held"}, {"id": "gap", "dataset": "fashion-mnist", "status": "held"},
        {"id": "gap", "dataset": "mnist-5k", "status": "not held"},        # a substitute: left out
        {"id": "ref", "dataset": "mnist", "status": "reference"}]}         # not a claim
    assert cs.counts(old, "ELM boosting") == {"held": 1, "not held": 1, "inconclusive": 0, "not tested": 0}


def test_readme_now_column_matches_the_committed_claims_files():
    readme = (ROOT / "README.md").read_text()
    block = readme.split(cs.START, 1)[1].split(cs.END, 1)[0]
    cells = {r[0]: r for r in ([c.strip() for c in ln.strip("|").split("|")] for ln in block.strip().splitlines()[2:])}
    for paper, _before, _mid, now, none, _note in cs.rows():
        assert cells[paper][3] == cs._fmt(now), (paper, "run: python scripts/claims_status.py --write-readme")
        assert cells[paper][4] == ("-" if none is None else str(none))


def test_no_real_counts_claims_decided_only_on_regenerated_data_or_substitutes():
    data = {"claims": [{"id": "a", "real": {"verdict": "not tested"}, "substitutes": {"verdict": "held"}},
                       {"id": "b", "real": {"verdict": "not tested"}, "regenerated": {"verdict": "not held"}},
                       {"id": "c", "real": {"verdict": "not tested"}, "substitutes": None},
                       {"id": "d", "real": {"verdict": "held"}, "substitutes": {"verdict": "held"}}]}
    assert cs.no_real(data) == 2
