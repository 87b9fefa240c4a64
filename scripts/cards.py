#!/usr/bin/env python
"""Write <benchmark>/conf/dataset/<name>.yaml for every dataset a benchmark defines in Python
(experiments/<paper>/datasets.py -> experiments/<paper>/conf/dataset/).

Usage: .venv/bin/python scripts/cards.py [--check] [--dir DIR]   (--dir: every card into one folder)

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
    from randml_core.data.cards_generated import card_dirs, card_drift, generated_cards  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=None,
                    help="write every card into this one folder (default: each benchmark's conf/dataset/)")
    ap.add_argument("--check", action="store_true", help="only report differences; exit 1 if there are any")
    args = ap.parse_args(argv)
    targets = {None: args.dir} if args.dir is not None else card_dirs()
    total = 0
    for package, folder in targets.items():
        drift = card_drift(folder, package)
        n = sum(map(len, drift.values()))
        total += n
        if args.check:
            for what, files in drift.items():
                for f in files:
                    print(f"{what}: {folder / f}")
            continue
        cards = generated_cards(package)
        folder.mkdir(parents=True, exist_ok=True)
        for f in drift["missing"] + drift["changed"]:
            (folder / f).write_text(cards[f], encoding="utf-8")
        for f in drift["stale"]:
            (folder / f).unlink()
        print(f"{len(cards)} generated cards in {folder}: wrote {len(drift['missing'])} new, "
              f"{len(drift['changed'])} changed; deleted {len(drift['stale'])} stale")
    if args.check:
        print(f"{total} card(s) differ from the registry" if total else "cards are current")
        return 1 if total else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
