"""Check the built site: links and images resolve (pure Python), and every page loads in headless
Chromium without console errors, its tables sort, and a screenshot is written.

``check_static`` parses each page with the standard library's ``html.parser`` and resolves every
``href`` / ``src`` against the page's directory (fragments against the target page's ids).
``check_browser`` drives the system Chromium (Debian's ``chromium``) through Playwright's Python
package (no browser download): it records console errors, uncaught exceptions and failed requests,
checks that every image decoded, that nothing is wider than the page (a wide table scrolls inside its
box), clicks a numeric column's header of each page's first sortable table and verifies the order from
the cell texts, and saves a 1280 x 2000 screenshot per page.
"""
from __future__ import annotations

import re
import shutil
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .files import quantized_png, write_bytes

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
WINDOW = {"width": 1280, "height": 2000}
NUMBER = re.compile(r"^[\u2212+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?", re.I)


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str]] = []   # (tag, url)
        self.ids: set[str] = set()
        self.titles = 0
        self.h1 = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        for attr in ("href", "src"):
            if a.get(attr) is not None and tag in ("a", "link", "img", "script", "iframe", "source"):
                self.refs.append((tag, a[attr]))
        self.titles += tag == "title"
        self.h1 += tag == "h1"


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def check_static(site: str | Path) -> list[str]:
    """Problems with the pages in ``site``: a missing title or h1, a relative link or image whose
    file does not exist, a fragment naming no id, any absolute (network) URL."""
    site = Path(site)
    pages = sorted(site.glob("*.html"))
    if not pages:
        return [f"{site}: no pages (build the site first: make site)"]
    parsed = {p.resolve(): _parse(p) for p in pages}
    problems = []
    for path in pages:
        page = parsed[path.resolve()]
        if page.titles != 1 or page.h1 != 1:
            problems.append(f"{path.name}: {page.titles} <title> and {page.h1} <h1> elements (want 1 each)")
        for tag, url in page.refs:
            parts = urlsplit(url)
            if parts.scheme == "data":
                continue
            if parts.scheme or parts.netloc:
                problems.append(f"{path.name}: <{tag}> points outside the site ({url}); the site must work offline")
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path.resolve()
            if not target.exists():
                problems.append(f"{path.name}: <{tag}> {url} does not resolve ({target} is missing)")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if parts.fragment not in ids:
                    problems.append(f"{path.name}: <{tag}> {url}: no element with id {parts.fragment!r}")
    return problems


def _numeric_column(cells: list[list[str]]) -> int | None:
    """The first column where every body cell starts with a number (and not all are equal)."""
    if len(cells) < 3:
        return None
    for col in range(min(len(r) for r in cells)):
        values = [NUMBER.match(r[col].strip()) for r in cells]
        if all(values) and len({v.group(0) for v in values}) > 1:
            return col
    return None


def _numbers(cells: list[list[str]], col: int) -> list[float]:
    return [float(NUMBER.match(r[col].strip()).group(0).replace("\u2212", "-")) for r in cells]


ROWS_JS = """t => Array.from(t.tBodies[0].rows, r => Array.from(r.cells, c => c.textContent))"""
#: the page's width and, per table, [its width, its box's width and right edge, whether the box scrolls]
WIDTHS_JS = """() => ({page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth,
  tables: Array.from(document.querySelectorAll("table"), t => {
    const box = t.parentElement, r = t.getBoundingClientRect(), b = box.getBoundingClientRect();
    const scrolls = ["auto", "scroll"].includes(getComputedStyle(box).overflowX);
    return [Math.ceil(t.scrollWidth), Math.floor(box.clientWidth), Math.ceil(scrolls ? b.right : r.right), scrolls,
            r.width > 0];
  })})"""


def check_browser(site: str | Path, screenshots: str | Path | None = None, chromium: str = CHROMIUM,
                  quantize: bool = True) -> tuple[list[str], dict]:
    """Load every page of ``site`` in headless Chromium. Returns (problems, facts); facts has the
    pages loaded, the tables whose sorting was verified and the screenshots written."""
    from playwright.sync_api import sync_playwright

    site = Path(site)
    if not Path(chromium).exists() and not shutil.which(chromium):
        return [f"Chromium not found at {chromium}: apt-get update && apt-get install -y chromium "
                "(make site-check does this)"], {}
    problems, facts = [], {"pages": [], "sorted": [], "screenshots": [], "tables": []}
    with tempfile.TemporaryDirectory(prefix="randml-chromium-") as profile, sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(profile, executable_path=chromium, headless=True,
                                                    args=FLAGS, viewport=WINDOW)
        try:
            for path in sorted(site.glob("*.html")):
                page = ctx.new_page()
                errors: list[str] = []
                page.on("console", lambda m, e=errors: e.append(f"console {m.type}: {m.text}")
                        if m.type == "error" else None)
                page.on("pageerror", lambda exc, e=errors: e.append(f"uncaught: {exc}"))
                page.on("requestfailed", lambda r, e=errors: e.append(f"failed to load {r.url}: {r.failure}"))
                page.goto(path.resolve().as_uri(), wait_until="load")
                broken = page.eval_on_selector_all(
                    "img", "imgs => imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
                errors += [f"image did not load: {src}" for src in broken]
                problems += [f"{path.name}: {e}" for e in errors]
                facts["pages"].append(path.name)
                if screenshots is not None:  # before sorting, which scrolls the page and reorders rows
                    png = page.screenshot(type="png")
                    out = Path(screenshots) / f"{path.stem}.png"
                    write_bytes(out, quantized_png(png) if quantize else png)
                    facts["screenshots"].append(out)
                problems += _check_widths(page, path.name, facts)
                problems += _check_sorting(page, path.name, facts)
                page.close()
        finally:
            ctx.close()
    return problems, facts


def _check_widths(page, name: str, facts: dict) -> list[str]:
    """Nothing wider than the window: the page does not scroll sideways, and every shown table ends inside
    the page (a wider table in a box that scrolls, the box inside the page). Records each shown table as
    facts["tables"]: (page, index, table width, box width, scrolls) in CSS pixels."""
    w = page.evaluate(WIDTHS_JS)
    problems = []
    if w["page"] > w["window"]:
        problems.append(f"{name}: the page is {w['page']} px wide in a {w['window']} px window (scrolls sideways)")
    for i, (width, box, right, scrolls, shown) in enumerate(w["tables"]):
        if not shown:
            continue
        facts["tables"].append((name, i, width, box, scrolls))
        if right > w["window"]:
            problems.append(f"{name}: table {i} ({width} px) ends at {right} px, past the {w['window']} px window"
                            + ("" if scrolls else "; put it in a <div class=\"scroll\"> (overflow-x: auto)"))
    return problems


def _check_sorting(page, name: str, facts: dict) -> list[str]:
    """Click the header of the first all-numeric column of the first sortable table that has one;
    the rows must then be in ascending order of that column, and descending after a second click."""
    tables = page.locator("table.sortable")
    for i in range(tables.count()):
        table = tables.nth(i)
        if not table.is_visible():
            continue
        cells = table.evaluate(ROWS_JS)
        col = _numeric_column(cells)
        if col is None:
            continue
        header = table.locator("thead th").nth(col)
        header.click()
        up = _numbers(table.evaluate(ROWS_JS), col)
        header.click()
        down = _numbers(table.evaluate(ROWS_JS), col)
        facts["sorted"].append((name, i, header.inner_text().strip()))
        if up != sorted(up) or down != sorted(down, reverse=True):
            return [f"{name}: sorting table {i} by {header.inner_text().strip()!r} gave {up[:6]} / {down[:6]}"]
        if sorted(up) != sorted(_numbers(cells, col)):
            return [f"{name}: sorting table {i} changed its cells"]
        return []
    return []
