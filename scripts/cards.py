#!/usr/bin/env python
"""Write conf/dataset/<name>.yaml for every dataset defined in Python (the benchmarks' experiments/*/datasets.py).

Usage: .venv/bin/python scripts/cards.py [--check] [--dir conf/dataset]

Writes the generated card of each Python spec (randml_core.data.cards_generated.render_card), deletes
generated cards whose spec is gone, and leaves hand-written cards (a dataset defined by its card: csv,
parquet, openml, ...) alone. --check writes nothing and exits 1 if any card would change (what
tests/test_cards.py asserts).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

with warnings.catch_warnings():  # the stale cards this script replaces may be warned about at import
    warnings.simplefilter("ignore")
    from randml_core.data.cards_generated import card_drift, generated_cards  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=ROOT / "conf" / "dataset", help="the dataset config group directory")
    ap.add_argument("--check", action="store_true", help="only report differences; exit 1 if there are any")
    args = ap.parse_args(argv)
    drift = card_drift(args.dir)
    n = sum(map(len, drift.values()))
    if args.check:
        for what, files in drift.items():
            for f in files:
                print(f"{what}: {args.dir / f}")
        print(f"{n} card(s) differ from the registry" if n else "cards are current")
        return 1 if n else 0
    cards = generated_cards()
    args.dir.mkdir(parents=True, exist_ok=True)
    for f in drift["missing"] + drift["changed"]:
        (args.dir / f).write_text(cards[f], encoding="utf-8")
    for f in drift["stale"]:
        (args.dir / f).unlink()
    print(f"{len(cards)} generated cards in {args.dir}: wrote {len(drift['missing'])} new, "
          f"{len(drift['changed'])} changed; deleted {len(drift['stale'])} stale")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
