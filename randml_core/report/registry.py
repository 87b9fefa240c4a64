"""A paper's claim rules, registered before their verdicts: a committed, append-only registry per paper.

Written here because no library keeps a pre-registration log of a benchmark's decision rules. The registry is a
JSON-lines file in the paper's folder (``claims_registry.jsonl``), an input, never written by a report:

- a ``rule`` entry: ``claim``, the paper's ``words`` and ``where``, the ``population`` (data the rule is decided on),
  the ``rule`` and ``margin`` texts exactly as the claims report prints them, ``registered`` (date), ``commit`` (the
  commit that first carried it, when known), ``reason`` (why a later entry replaces the one before) and
  ``first_verdict`` (the real-data verdict its first report printed, with that commit: kept because most early rules'
  code is no longer runnable);
- a ``code`` entry: the ``digest`` of the paper's rule code (:func:`code_digest` of the functions the paper lists),
  with the ``reason`` it changed ("refactor, rules unchanged" is a reason).

Each line carries ``prev``, the SHA-256 of the line before it, so an edited or deleted earlier entry is found
(:func:`read` raises). A claims report calls :func:`check` before it writes anything: a claim whose rule or margin is
not the latest registered one, or rule code whose digest is not the latest registered, stops the report with the
command that registers it (``python -m randml_core.report.registry register ...``, which appends and prints no
verdict). :func:`lines` renders the first registered rule's verdict beside the current one.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import importlib
import inspect
import json
import sys
from pathlib import Path

FORMAT = "randml-claims-registry/1"
KINDS = ("rule", "code")


class RegistryError(ValueError):
    """The registry is broken (edited, unreadable) or does not register the rules a report is about to decide."""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read(path: Path) -> list[dict]:
    """The entries of ``path``, after checking every line's ``prev`` link (an edited or removed line raises)."""
    path = Path(path)
    if not path.is_file():
        return []
    out, prev = [], ""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            raise RegistryError(f"{path}:{n}: not a JSON line; the registry is appended to, never edited: restore it "
                                "with `git checkout -- <file>`") from None
        if entry.get("prev") != prev:
            raise RegistryError(f"{path}:{n}: its 'prev' link does not match line {n - 1}: an earlier entry was edited "
                                "or removed. A rule is changed by appending a new entry with its reason; restore the "
                                "file with `git checkout -- <file>`")
        if entry.get("kind") not in KINDS:
            raise RegistryError(f"{path}:{n}: kind {entry.get('kind')!r}, expected one of {KINDS}")
        out.append(entry)
        prev = _digest(line)
    return out


def append(path: Path, entries: list[dict]) -> None:
    """Append ``entries`` (dicts without ``prev``), each linked to the line before it."""
    path = Path(path)
    read(path)  # refuse to extend a broken chain
    lines = [ln for ln in (path.read_text(encoding="utf-8").splitlines() if path.is_file() else []) if ln.strip()]
    prev = _digest(lines[-1]) if lines else ""
    with open(path, "a", encoding="utf-8") as fh:
        for e in entries:
            line = json.dumps({"format": FORMAT, **e, "prev": prev}, sort_keys=True, ensure_ascii=False)
            fh.write(line + "\n")
            prev = _digest(line)


def latest(entries: list[dict]) -> tuple[dict[str, dict], dict | None]:
    """(``{claim: its latest rule entry}``, the latest code entry)."""
    rules, code = {}, None
    for e in entries:
        if e["kind"] == "rule":
            rules[e["claim"]] = e
        else:
            code = e
    return rules, code


def first(entries: list[dict]) -> dict[str, dict]:
    """``{claim: its first rule entry}``."""
    out: dict[str, dict] = {}
    for e in entries:
        if e["kind"] == "rule":
            out.setdefault(e["claim"], e)
    return out


def code_digest(functions) -> str:
    """SHA-256 over the source of ``functions`` (in order): the rule code a registry entry stands for."""
    return _digest("\n".join(inspect.getsource(f) for f in functions))


def _rule_functions(paper_functions) -> list:
    """The paper's rule functions followed by the shared decision rules they call."""
    from . import claims as C
    return [*paper_functions, *C.RULE_FUNCTIONS]


def pending(claims, path: Path, paper_functions) -> tuple[list, bool]:
    """(the claims whose rule or margin is not the latest registered, whether the rule code's digest is new)."""
    rules, code = latest(read(path))
    todo = [c for c in claims if c.id not in rules or (rules[c.id]["rule"], rules[c.id]["margin"]) != (c.rule, c.margin)]
    digest = code_digest(_rule_functions(paper_functions))
    return todo, code is None or code["digest"] != digest


def check(claims, path: Path, paper_functions, register: str) -> None:
    """Raise :class:`RegistryError` unless every claim's rule and margin and the rule code are the latest registered
    in ``path``. ``register`` is the command that registers them (shown in the error)."""
    todo, code_new = pending(claims, path, paper_functions)
    if not todo and not code_new:
        return
    what = ([f"claim {c.id}: rule or margin not registered" for c in todo]
            + (["the rule code (the paper's rule functions or the shared rules of randml_core.report.claims) changed"]
               if code_new else []))
    raise RegistryError(f"{Path(path)}: " + "; ".join(what) + ". A rule is registered before its verdict is seen: "
                        f"run `{register} --reason \"...\"` (it appends the new entries with your reason and prints no "
                        "verdict), review the diff, then rebuild the report")


def register(claims, path: Path, paper_functions, reason: str, population: dict | None = None,
             today: str | None = None) -> list[dict]:
    """Append an entry for each claim whose rule or margin is new, and a code entry when the rule code's digest is
    new; returns what was appended (nothing when all is registered)."""
    if not reason.strip():
        raise RegistryError("--reason is required: say why the rule is new or changed")
    todo, code_new = pending(claims, path, paper_functions)
    day = today or _dt.date.today().isoformat()
    known = latest(read(path))[0]
    new = [{"kind": "rule", "claim": c.id, "words": c.words, "where": c.where, "rule": c.rule, "margin": c.margin,
            "population": (population or {}).get(c.id, ""), "registered": day, "commit": None,
            "reason": reason if c.id in known else f"first registered: {reason}", "first_verdict": None}
           for c in todo]
    if code_new:
        new.append({"kind": "code", "digest": code_digest(_rule_functions(paper_functions)), "registered": day,
                    "reason": reason})
    if new:
        append(path, new)
    return new


def lines(claims, path: Path) -> list[str]:
    """The "Registered rules" section: per claim the first registered rule (date, commit) and the verdict its report
    printed then, beside the current rule's date and verdict on the real data."""
    entries = read(path)
    firsts, now = first(entries), latest(entries)[0]
    counts = {}
    for e in entries:
        if e["kind"] == "rule":
            counts[e["claim"]] = counts.get(e["claim"], 0) + 1
    out = [f"## Registered rules (the committed registry `{Path(path).name}`, appended, never edited)", "",
           "Each claim's rule as first registered and as now; a later rule is a new entry with its reason. The first "
           "rule's verdict is the one its report printed on the data of that day (most early rules' code is no longer "
           "runnable: their words are in the registry).", "",
           "| claim | first registered | first rule's verdict | rule entries | current rule since | current verdict |",
           "|---|---|---|---|---|---|"]
    for c in claims:
        f, n = firsts.get(c.id), now.get(c.id)
        fv = (f or {}).get("first_verdict") or {}
        first_cell = (f"{fv['verdict']} ({fv['commit']})" if fv.get("verdict") else "-") if counts.get(c.id, 0) > 1 \
            else "same rule"
        out.append(f"| {c.id} | {(f or {}).get('registered', '-')}" + (f" ({f['commit']})" if f and f.get("commit") else "")
                   + f" | {first_cell} | {counts.get(c.id, 0)} | {(n or {}).get('registered', '-')} | {_now(c)} |")
    return out + [""]


def section(claims, path: Path, paper_functions, module: str) -> list[str]:
    """What a claims report adds for its registry: :func:`check` first (raises before anything is written), then
    the registered-rules table and the Holm section over the paper's claims. ``module`` is the paper's claims module
    (named in the registration command)."""
    from . import claims as C
    check(claims, path, paper_functions, f"python -m randml_core.report.registry register {module}")
    return [*lines(claims, path), *C.multiplicity_lines(claims)]


def _now(claim) -> str:
    from . import claims as C
    label, d = C._deciding(claim)
    return f"{label}{d.label()}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m randml_core.report.registry",
                                 description="register a paper's claim rules before their verdicts are seen")
    sub = ap.add_subparsers(dest="cmd", required=True)
    reg = sub.add_parser("register", help="append entries for new or changed rules (prints no verdict)")
    reg.add_argument("module", help="the paper's claims module (it defines REGISTRY, RULE_CODE and claims_for(results))")
    reg.add_argument("--results", default="results", help="the results folder its claims read (default: results)")
    reg.add_argument("--reason", required=True, help="why the rule is new or changed")
    show = sub.add_parser("show", help="print a registry's entries (checks its links)")
    show.add_argument("path")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "show":
            for e in read(Path(args.path)):
                print(json.dumps({k: v for k, v in e.items() if k != "prev"}, sort_keys=True))
            return 0
        mod = importlib.import_module(args.module)
        claims = mod.claims_for(Path(args.results))
        new = register(claims, mod.REGISTRY, mod.RULE_CODE, args.reason, getattr(mod, "POPULATION", None))
    except RegistryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for e in new:
        print(f"registered {e['kind']} {e.get('claim', e.get('digest', '')[:12])} in {mod.REGISTRY}")
    if not new:
        print(f"nothing to register: every rule of {args.module} is the latest in {mod.REGISTRY}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
