"""``python -m randml_core.site build | check`` (``make site`` / ``make site-check``).

build: write results/site/ (index.html, one page per paper, datasets.html); ``--benchmark KEY --results DIR``
builds the pages of your own benchmark from DIR/tables and DIR/figures instead, with a datasets page from the
dataset cards its experiments use (``--config-dir``: your config dir) and code versions from the report's
sidecars (DIR/tables/*.meta.json).
Needs markdown-it-py (the ``site`` extra: pip install 'randml[site]').
check: build, then check every link and image, load every page in headless Chromium (no console
errors, images decode, tables sort) and write results/site/screenshots/<page>.png.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..plugins import Benchmark
from ..provenance import REPO_ROOT
from .check import CHROMIUM, check_browser, check_static


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m randml_core.site", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["build", "check"])
    ap.add_argument("--results", type=Path, default=REPO_ROOT / "results", help="the results directory")
    ap.add_argument("--out", type=Path, default=None, help="where the site goes (default RESULTS/site)")
    ap.add_argument("--chromium", default=CHROMIUM, help="the Chromium binary (default %(default)s)")
    ap.add_argument("--no-browser", action="store_true", help="check links and images only")
    ap.add_argument("--benchmark", action="append", metavar="KEY", default=None,
                    help="a page for your own benchmark: the artefacts RESULTS/tables/KEY* and RESULTS/figures/KEY* "
                         "(repeatable; default: the installed benchmarks' pages)")
    ap.add_argument("--config-dir", action="append", type=Path, default=[], metavar="DIR",
                    help="your config dir, for the page's experiments and their datasets (repeatable)")
    args = ap.parse_args(argv)
    try:
        from .build import build_site
    except ModuleNotFoundError as exc:  # markdown-it-py (the `site` extra): the message names the install command
        if exc.name not in ("markdown_it", "mdurl"):
            raise
        print(f"python -m randml_core.site: {exc}", file=sys.stderr)
        return 2
    out = args.out or args.results / "site"
    t0 = time.time()
    own = [Benchmark(key=k, short=k, title=k) for k in args.benchmark] if args.benchmark else None
    pages = [p for p in build_site(args.results, out, benchmarks=own, config_dirs=args.config_dir)
             if p.suffix == ".html"]
    print(f"site: wrote {len(pages)} pages to {out} in {time.time() - t0:.1f} s; open {out / 'index.html'}")
    if args.command == "build":
        return 0
    problems = check_static(out)
    print(f"site-check: links and images of {len(pages)} pages: {len(problems)} problem(s)")
    if not args.no_browser:
        t0 = time.time()
        browser, facts = check_browser(out, out / "screenshots", args.chromium)
        problems += browser
        print(f"site-check: Chromium loaded {len(facts.get('pages', []))} pages in {time.time() - t0:.1f} s, "
              f"verified sorting on {len(facts.get('sorted', []))}, wrote {len(facts.get('screenshots', []))} "
              f"screenshots to {out / 'screenshots'}; {len(browser)} problem(s)")
    for p in problems:
        print(f"  {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
