"""Claim rules registered before their verdicts (randml_core.report.registry), each claim's rule p with Holm over a
paper's claims, and the "undecidable here" label (randml_core.report.claims)."""
from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from randml_core.report import claims as C
from randml_core.report import registry as R

ROOT = Path(__file__).resolve().parents[1]


def _registered_modules() -> dict[str, str]:
    """``{benchmark key: its claims module}`` for every benchmark of this repository with a claims registry: the
    module of its folder that defines ``REGISTRY`` (found by reading, not by a list)."""
    from randml_core import plugins
    out = {}
    for name, package in plugins.packages():
        for folder in map(Path, plugins.folders(package)):
            if not folder.resolve().is_relative_to(ROOT) or not (folder / "claims_registry.jsonl").is_file():
                continue
            for py in sorted(folder.glob("*.py")):
                if 'REGISTRY = Path(__file__).with_name("claims_registry.jsonl")' in py.read_text():
                    out[name] = f"{package}.{py.stem}"
    return out


PAPERS = _registered_modules()


def rule_a(x):
    return x + 1


def rule_b(x):
    return x + 2


def _claim(cid: str, rule: str, verdict: str = C.HELD, p=None, best_p=None, margin: str = "-") -> C.Claim:
    return C.Claim(cid, "the words", "Section 1", rule, C.Decision(verdict, "ev", p=p, best_p=best_p), margin=margin)


def test_register_then_check_then_a_changed_rule_or_code_is_refused(tmp_path):
    reg = tmp_path / "claims_registry.jsonl"
    claims = [_claim("c1", "rule one"), _claim("c2", "rule two")]
    with pytest.raises(R.RegistryError, match="claim c1.*claim c2.*rule code"):
        R.check(claims, reg, (rule_a,), "REGISTER")
    with pytest.raises(R.RegistryError, match="--reason is required"):
        R.register(claims, reg, (rule_a,), "  ")
    new = R.register(claims, reg, (rule_a,), "first rules", today="2026-11-28")
    assert [e["kind"] for e in new] == ["rule", "rule", "code"]
    assert new[0]["reason"] == "first registered: first rules" and new[0]["registered"] == "2026-11-28"
    R.check(claims, reg, (rule_a,), "REGISTER")  # nothing pending
    assert R.register(claims, reg, (rule_a,), "again") == []  # idempotent

    changed = [_claim("c1", "rule one, revised"), claims[1]]
    with pytest.raises(R.RegistryError, match=r"claim c1: rule or margin not registered.*REGISTER --reason"):
        R.check(changed, reg, (rule_a,), "REGISTER")
    with pytest.raises(R.RegistryError, match="margin not registered"):
        R.check([_claim("c1", "rule one", margin="±2"), claims[1]], reg, (rule_a,), "REGISTER")
    with pytest.raises(R.RegistryError, match="rule code"):  # same texts, other code
        R.check(claims, reg, (rule_b,), "REGISTER")

    added = R.register(changed, reg, (rule_a,), "the margin was fixed after the data", today="2026-11-29")
    assert [(e["claim"], e["reason"]) for e in added] == [("c1", "the margin was fixed after the data")]
    entries = R.read(reg)
    assert R.first(entries)["c1"]["rule"] == "rule one" and R.latest(entries)[0]["c1"]["rule"] == "rule one, revised"
    lines = "\n".join(R.lines(changed, reg))
    assert "| c1 | 2026-11-28 | - | 2 | 2026-11-29 | held |" in lines
    assert "| c2 | 2026-11-28 | same rule | 1 | 2026-11-28 | held |" in lines


def test_an_edited_or_removed_entry_breaks_the_chain(tmp_path):
    reg = tmp_path / "r.jsonl"
    R.register([_claim("c1", "r1"), _claim("c2", "r2"), _claim("c3", "r3")], reg, (rule_a,), "seed")
    text = reg.read_text().splitlines()
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join([text[0].replace('"r1"', '"r1 softened"'), *text[1:]]) + "\n")
    with pytest.raises(R.RegistryError, match=r"edited.jsonl:2: .*edited or removed"):
        R.read(edited)
    removed = tmp_path / "removed.jsonl"
    removed.write_text("\n".join([text[0], *text[2:]]) + "\n")
    with pytest.raises(R.RegistryError, match=r"removed.jsonl:2"):
        R.read(removed)
    with pytest.raises(R.RegistryError):  # nothing is appended to a broken chain
        R.append(removed, [{"kind": "code", "digest": "x"}])
    assert len(removed.read_text().splitlines()) == 3


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_each_papers_committed_claims_are_its_latest_registered_rules(paper):
    """The committed claims file (rebuilt from the frames by tests/test_reports.py) decides with the latest
    registered rule of every claim, and the paper's rule code is the latest registered digest: a rule or rule-code
    change without a registry entry fails here."""
    mod = importlib.import_module(PAPERS[paper])
    entries = R.read(mod.REGISTRY)
    assert len(PAPERS) >= 1 and mod.REGISTRY.parent.resolve().is_relative_to(ROOT)
    rules, code = R.latest(entries)
    committed = json.loads((ROOT / "results" / "tables" / f"{paper}_claims.json").read_text())["claims"]
    for c in committed:
        assert c["id"] in rules, f"{paper}: claim {c['id']} has no registered rule"
        assert (rules[c["id"]]["rule"], rules[c["id"]]["margin"]) == (c["rule"], c["margin"]), (paper, c["id"])
    assert code is not None and code["digest"] == R.code_digest(R._rule_functions(mod.RULE_CODE)), (
        f"{paper}: the rule code changed without a registry entry: python -m randml_core.report.registry register "
        f"{PAPERS[paper]} --reason ...")
    for e in entries:  # every entry says when and why
        assert e["registered"] and e["reason"], e


def test_the_rule_p_of_per_dataset_claims_by_hand():
    p = np.array([0.03, 1.0, 0.01])  # Holm-adjusted p in A's favour per dataset (1: A not ahead)
    assert C._need_p("all", p) == 1.0
    assert C._need_p("all", np.array([0.03, 0.01])) == 0.03
    assert C._need_p("all", np.array([0.03, 0.01]), missing=True) == 1.0
    assert C._need_p("any", p) == 0.01
    assert C._need_p("majority", p) == 0.03  # 2 of 3 needed: the 2nd smallest
    assert C._need_p("majority", np.array([0.01, 0.02, 0.2, 0.3])) == 0.2  # 3 of 4 needed


def _table(diffs) -> pd.DataFrame:
    rows = []
    for i, d in enumerate(diffs):
        for f in range(10):
            rows += [{"dataset": f"d{i}", "model": "A", "repeat": 0, "fold": f, "accuracy": 0.5 + d, "n_test": 1,
                      "n_train": 9},
                     {"dataset": f"d{i}", "model": "B", "repeat": 0, "fold": f, "accuracy": 0.5, "n_test": 1,
                      "n_train": 9}]
    return pd.DataFrame(rows)


def test_over_datasets_five_sets_are_undecidable_six_can_hold():
    five = C.beats_over_datasets(_table([.01, .02, .03, .04, .05]), "A", "B", "accuracy", [f"d{i}" for i in range(5)],
                                 unit="pp", rope=0.001)
    assert five.verdict == C.INCONCLUSIVE and five.best_p == pytest.approx(2 / 32) and five.undecidable
    assert five.label() == C.UNDECIDABLE and "best attainable p = 0.0625" in five.cell()
    six = C.beats_over_datasets(_table([.01, .02, .03, .04, .05, .06]), "A", "B", "accuracy",
                                [f"d{i}" for i in range(6)], unit="pp", rope=0.001)
    assert six.verdict == C.HELD and six.p == pytest.approx(2 / 64) and not six.undecidable
    against = C.beats_over_datasets(_table([-.01, -.02, -.03, -.04, -.05, -.06]), "A", "B", "accuracy",
                                    [f"d{i}" for i in range(6)], unit="pp", rope=0.001)
    assert against.verdict == C.NOT_HELD and against.p == 1.0  # the rule p is in the claim's favour


def test_holm_over_claims_and_the_counts_keep_undecidable_apart():
    claims = [_claim("a", "r", C.HELD, p=0.01), _claim("b", "r", C.HELD, p=0.04), _claim("c", "r", C.INCONCLUSIVE, p=0.03),
              _claim("d", "r", C.INCONCLUSIVE, best_p=0.0625), _claim("e", "r", C.NOT_TESTED)]
    # by hand: sorted 0.01, 0.03, 0.04 -> 3 x 0.01 = 0.03, 2 x 0.03 = 0.06, max(0.06, 1 x 0.04) = 0.06
    assert C.holm_over_claims(claims) == pytest.approx({"a": 0.03, "c": 0.06, "b": 0.06})
    text = "\n".join(C.multiplicity_lines(claims))
    assert "| b | held | 0.0400 | 0.0600 | no |" in text and "not after Holm over the paper's claims: b" in text
    assert C.counts(claims) == {"held": 2, "not held": 0, "inconclusive": 1, "undecidable here": 1, "not tested": 1}
    assert C.counts_line(claims).startswith("2 held, 0 not held, 1 inconclusive, 1 undecidable here, 1 not tested")
    rec = C.records(claims)["claims"][3]["real"]
    assert rec["label"] == C.UNDECIDABLE and rec["best_p"] == 0.0625 and rec["verdict"] == C.INCONCLUSIVE
