"""The results site: verdict badges, sortable tables, notes as marks with a legend, a heatmap beside each CD
diagram, statistics slot, links that resolve, and (when Debian's chromium is installed; .ci/run installs it)
every page loading in headless Chromium without console errors or anything wider than the window."""
from __future__ import annotations

import os
import re
import shutil
import struct
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("markdown_it", reason="markdown-it-py is in the dev extra: pip install -e '.[dev]'")

from randml_core.plugins import Benchmark  # noqa: E402
from randml_core.site import build_site  # noqa: E402
from randml_core.site.check import check_static  # noqa: E402
from randml_core.site.mdrender import render  # noqa: E402
from randml_core.site.build import _shipped_packages  # noqa: E402
from randml_core.site.papers import PAPERS as INSTALLED  # noqa: E402

#: the benchmarks the default site shows: randml's own (another installed benchmark has no artefacts here)
PAPERS = [p for p in INSTALLED if p.package in _shipped_packages()]
#: the benchmarks of the tests' own results (``build_site(benchmarks=...)``, as ``--benchmark KEY``): the site files
#: a benchmark's artefacts by their prefix ``<key>_``; ``demo`` has files of every kind, ``empty`` none
DEMO = Benchmark(key="demo", short="Demo", title="The site tests' benchmark")
EMPTY = Benchmark(key="empty", short="Empty", title="A benchmark without artefacts")

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")


class Collect(HTMLParser):
    """Badges (class, text), tables' classes, img srcs and a hrefs of a page."""

    def __init__(self, text: str):
        super().__init__()
        self.badges, self.tables, self.imgs, self.links, self._badge = [], [], [], [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "span" and "badge" in (a.get("class") or "").split():
            self._badge = [a["class"].split()[1], ""]
        elif tag == "table":
            self.tables.append(a.get("class"))
        elif tag == "img":
            self.imgs.append(a["src"])
        elif tag == "a" and "href" in a:
            self.links.append(a["href"])

    def handle_data(self, data):
        if self._badge is not None:
            self._badge[1] += data

    def handle_endtag(self, tag):
        if tag == "span" and self._badge is not None:
            self.badges.append(tuple(self._badge))
            self._badge = None


REPORT = """# Claims

- **HELD**: claim one (held if x > 1).
- NOT HELD: claim two; the rule: held when every set passes.

| claim | our run |
|---|---|
| a is held to be | not held (3 datasets) |
| b | NOT TESTED (SUBSTITUTE; NOT HELD ON IT) |
| c | the held-out fold |

Our run: **not held (8)**, so the claim is not held here. <script>alert(1)</script>
"""


def test_verdict_words_become_badges_and_rule_text_stays_plain(tmp_path):
    out = render(REPORT, tmp_path)
    page = Collect(out)
    # worked by hand: bold or upper-case verdicts, and a lower-case verdict that starts a body cell
    assert page.badges == [("v-held", "HELD"), ("v-not-held", "NOT HELD"), ("v-not-held", "not held"),
                           ("v-not-tested", "NOT TESTED"), ("v-substitute", "SUBSTITUTE"),
                           ("v-not-held", "NOT HELD"), ("v-not-held", "not held")]
    assert "held if x &gt; 1" in out and "held when every set" in out and "the claim is not held here" in out
    assert "&lt;script&gt;" in out and "<script>" not in out  # raw HTML in a report is shown, not run
    assert page.tables == ["sortable"] and '<div class="scroll"><table' in out


def test_comment_marker_lines_are_dropped_and_end_a_table(tmp_path):
    # as README's claims-status table: a marker line right after the last row (GitHub hides it)
    text = "<!-- s:start -->\n| a | b |\n|---|---|\n| 1 | 2 |\n<!-- s:end -->\nafter <!-- inline --> text\n"
    out = render(text, tmp_path)
    assert "s:start" not in out and "s:end" not in out
    assert out.count("<tr>") == 2  # header and the one body row: the end marker is no row
    assert "after &lt;!-- inline --&gt; text" in out  # a comment inside a line of text stays escaped text


def test_relative_links_in_markdown_are_rebased_to_the_page(tmp_path):
    src = tmp_path / "results" / "tables"
    src.mkdir(parents=True)
    (src / "x.csv").write_text("a\n1\n")
    out = render("see [the csv](x.csv#top) and [site](https://example.org)", tmp_path / "results" / "site", src)
    href = Collect(out).links[0]
    assert href == "../tables/x.csv#top"
    assert (tmp_path / "results" / "site" / href.split("#")[0]).resolve() == (src / "x.csv").resolve()
    assert Collect(out).links[1] == "https://example.org"


NOTES = """| dataset | A | B | C |
|---|---|---|---|
| not run (skipped by rule, see below) | 0.857 ± 0.027 | not run (skipped by rule, see below) | needs download: `make data` |
| d2 | not run (skipped by rule, see below) | not held (3 datasets: worse on 3) | needs download: `make data` |
| d3 | a note that occurs once only | not held (3 datasets: worse on 3) | 0.5 |
"""


def test_repeated_cell_notes_become_marks_with_a_legend(tmp_path):
    out = render(NOTES, tmp_path)
    table, legend = out.split("</table>\n</div>")
    marks = re.findall(r'<abbr class="mark" title="([^"]*)">(\w)</abbr>', table)
    # worked by hand: the note repeated in body cells (first column left out) is "a", the second "b";
    # a verdict (a badge), a note that occurs once and the first column's text stay as they are
    assert marks == [("not run (skipped by rule, see below)", "a"), ("needs download: make data", "b"),
                     ("not run (skipped by rule, see below)", "a"), ("needs download: make data", "b")]
    assert "<td>not run (skipped by rule, see below)</td>" in table  # the dataset column
    assert "a note that occurs once only" in table and table.count("v-not-held") == 2
    items = re.findall(r"<li>(.*?)</li>", legend)
    assert items == ['<abbr class="mark" title="not run (skipped by rule, see below)">a</abbr> '
                     "not run (skipped by rule, see below)",
                     '<abbr class="mark" title="needs download: make data">b</abbr> needs download: '
                     "<code>make data</code>"]
    assert legend.startswith('\n<ul class="legend">')  # under the table, outside its scrolling box
    assert "0.857 \u00b1\u00a00.027" in table  # a narrow column wraps before the "±" only


def test_heatmap_ranks_worked_by_hand():
    import numpy as np
    import pandas as pd
    from randml_core.site import heatmap
    scores = pd.DataFrame({"A": [0.9, 0.5, np.nan], "B": [0.8, 0.7, np.nan], "C": [0.8, np.nan, np.nan],
                           "D": [np.nan, np.nan, np.nan]}, index=["d1", "d2", "d3"])
    # higher is better: d1 ranks A 1, B and C tie at 2.5; d2 ranks B 1, A 2 (C has no score there);
    # averages over each model's own datasets: A 1.5, B 1.75, C 2.5; D and d3 have no score and are left out
    s, r, mean = heatmap.ordered(scores, higher=True)
    assert list(r.columns) == ["A", "B", "C"] and list(r.index) == ["d1", "d2"]
    assert r.loc["d1"].tolist() == [1.0, 2.5, 2.5] and r.loc["d2", "A"] == 2.0 and r.loc["d2", "B"] == 1.0
    assert np.isnan(r.loc["d2", "C"]) and mean.tolist() == [1.5, 1.75, 2.5]
    # lower is better (an error metric): d1 ranks B and C 1.5, A 3; d2 A 1, B 2 -> A 2.0, B 1.75, C 1.5
    s, r, mean = heatmap.ordered(scores, higher=False)
    assert list(r.columns) == ["C", "B", "A"] and mean.tolist() == [1.5, 1.75, 2.0]
    png = heatmap.draw(scores, True, "t")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == heatmap.draw(scores, True, "t")  # same bytes again


def test_each_cd_diagram_gets_the_heatmap_of_its_table(small_results, tmp_path):
    t, f = small_results / "tables", small_results / "figures"
    # 3 models on 3 datasets: the fewest a CD diagram can say something on (the site leaves out a diagram on fewer)
    (t / "demo_table1.csv").write_text("dataset,note,EEM mean,EEM std,SVM mean,SVM std,ELM mean,ELM std\n"
                                      "heart,,0.80,0.1,0.70,0.1,0.60,0.1\nsonar,,0.90,0.1,0.95,0.1,0.85,0.1\n"
                                      "iris,,0.70,0.1,0.75,0.1,0.50,0.1\n")
    (t / "demo_table1_stats.md").write_text("# Stats\n\n## All\n\n![critical difference diagram](../figures/demo_table1_cd.png)"
                                          "\n\n### Comparison of 3 models on 3 datasets (gmean, higher is better)\n")
    tiny_png(f / "demo_table1_cd.png")
    tiny_png(f / "demo_table1_real_cd.png")  # a subset's diagram: no heatmap of its own
    site = tmp_path / "site"
    (site / "heatmaps").mkdir(parents=True)
    (site / "heatmaps" / "gone_heatmap.png").write_bytes(b"old")  # from an earlier build
    build_site(small_results, site, benchmarks=[DEMO])
    assert sorted(p.name for p in (site / "heatmaps").iterdir()) == ["demo_table1_heatmap.png"]
    page = (site / "demo.html").read_text()
    pair = page.split('<div class="pair">')[1].split("</div>")[0]
    assert 'id="demo_table1_cd"' in pair and 'src="heatmaps/demo_table1_heatmap.png"' in pair
    assert page.count('<div class="pair">') == 1 and 'id="demo_table1_real_cd"' in page
    assert check_static(site) == []
    png = (site / "heatmaps" / "demo_table1_heatmap.png").read_bytes()
    build_site(small_results, site, benchmarks=[DEMO])
    assert (site / "heatmaps" / "demo_table1_heatmap.png").read_bytes() == png


def tiny_png(path: Path, width=4, height=3) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(width, height), dpi=10)
    fig.savefig(path)
    plt.close(fig)
    return path


@pytest.fixture
def small_results(tmp_path):
    res = tmp_path / "results"
    t, f = res / "tables", res / "figures"
    t.mkdir(parents=True)
    f.mkdir()
    (t / "demo_table1.md").write_text("# Demo Table 1\n\n| dataset | EEM |\n|---|---|\n| heart | 0.80 |\n| sonar | 0.90 |\n"
                                     "| iris | 0.70 |\n\n- Code version: 0123456789\n")
    (t / "demo_table1.csv").write_text("dataset,EEM mean,generated_by\nheart,0.8,0123456789\n")
    (t / "demo_table1.tex").write_text("\\begin{tabular}\\end{tabular}\n")
    (t / "demo_report.md").write_text(REPORT)
    (t / "demo_table1_stats.md").write_text("# Friedman test\n\np = 0.012 (Nemenyi CD 1.3)\n")
    (t / "demo_levels.csv").write_text("level,acc\n0,0.9\n1,0.95\n")
    (t / "bench_demo.md").write_text("# bench\n\nfit 1.0 s\n")
    (t / "zzz_misc.md").write_text("# misc\n")
    tiny_png(f / "demo_fig1.png")
    (f / "demo_fig1.pdf").write_bytes(b"%PDF-1.4\n")
    return res


def test_build_on_small_results(small_results, tmp_path):
    site = tmp_path / "site"
    (site).mkdir()
    (site / "old.html").write_text("<html></html>")  # a page of an earlier build
    build_site(small_results, site, benchmarks=[DEMO, EMPTY])
    assert not (site / "old.html").exists()
    assert sorted(p.name for p in site.glob("*.html")) == ["datasets.html", "demo.html", "empty.html", "index.html"]
    assert not list(site.rglob("*.tmp"))
    demo = (site / "demo.html").read_text()
    page = Collect(demo)
    assert ("v-held", "HELD") in page.badges
    # statistics: the module's file is shown in its section; a benchmark without one says where it will go
    stats = demo.split('id="statistics"')[1].split('id="benchmarks"')[0]
    assert "Friedman test" in stats and "p = 0.012" in stats and "No statistics yet" not in stats
    assert "demo_table1_stats.md" not in demo.split('id="tables"')[1].split('id="figures"')[0]
    assert "No statistics yet" in (site / "empty.html").read_text()
    # every file reachable: md, csv, tex of the table, the data csv, png and pdf of the figure
    targets = {os.path.normpath(site / h).split(os.sep)[-1] for h in page.links + page.imgs if "#" not in h}
    assert {"demo_table1.md", "demo_table1.csv", "demo_table1.tex", "demo_levels.csv", "demo_fig1.png",
            "demo_fig1.pdf", "bench_demo.md", "demo_report.md"} <= targets
    assert page.imgs == ["../results/figures/demo_fig1.png"]
    assert "0123456789" in demo.split('id="provenance"')[1]  # the code version the table names
    assert "zzz_misc.md" in (site / "index.html").read_text()  # a file no benchmark claims is still listed
    assert check_static(site) == []
    # the same inputs give the same bytes
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    build_site(small_results, site, benchmarks=[DEMO, EMPTY])
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_default_site_has_a_page_per_installed_benchmark_and_lists_the_other_files(small_results, tmp_path):
    """Without ``benchmarks``, the pages are randml's own installed benchmarks'; demo is none of them (no page), so
    its files are listed among the files no page claims."""
    site = tmp_path / "site"
    build_site(small_results, site)
    assert sorted(p.name for p in site.glob("*.html")) == sorted(
        ["index.html", "datasets.html", *[f"{p.key}.html" for p in PAPERS]])
    assert all("No statistics yet" in (site / f"{p.key}.html").read_text() for p in PAPERS)  # none has files here
    index = (site / "index.html").read_text()
    others = Collect(index.split('id="other"')[1]).links
    assert {Path(h).name for h in others} == {p.name for d in ("tables", "figures")
                                                for p in (small_results / d).iterdir()}
    assert check_static(site) == []


def test_leaderboard_report_gets_its_own_page(small_results, tmp_path):
    t, f = small_results / "tables", small_results / "figures"
    (t / "leaderboard.md").write_text("# leaderboard: gmean\n\n| dataset | A | B |\n|---|---|---|\n| d | 0.9 | 0.8 |\n")
    (t / "leaderboard.csv").write_text("dataset,A mean\nd,0.9\n")
    (t / "leaderboard_nested.md").write_text("# leaderboard: gmean (nested CV selection)\n")
    (t / "leaderboard_stats.md").write_text("# ranks\n\n![critical difference diagram](../figures/leaderboard_cd.png)\n")
    (t / "leaderboard_profile.md").write_text("# Where the compute went\n\nSVC-rbf 40 %\n")
    tiny_png(f / "leaderboard_cd.png")
    site = tmp_path / "site"
    build_site(small_results, site)
    page = (site / "leaderboard.html").read_text()
    c = Collect(page)
    targets = {os.path.normpath(site / h).split(os.sep)[-1] for h in c.links + c.imgs if "#" not in h}
    assert {"leaderboard.md", "leaderboard.csv", "leaderboard_nested.md", "leaderboard_stats.md",
            "leaderboard_profile.md", "leaderboard_cd.png", "leaderboard.yaml"} <= targets
    compute = page.split('id="compute"')[1].split('id="provenance"')[0]
    assert "SVC-rbf 40 %" in compute and "ranks" in page.split('id="statistics"')[1].split('id="figures"')[0]
    index = (site / "index.html").read_text()
    others = index.split('id="other"')[1] if 'id="other"' in index else ""
    assert 'href="leaderboard.html"' in index and "leaderboard" not in others  # its files are the page's
    assert all('href="leaderboard.html"' in p.read_text() for p in site.glob("*.html"))  # in every nav
    assert check_static(site) == []


def test_static_check_finds_broken_links(small_results, tmp_path):
    site = tmp_path / "site"
    build_site(small_results, site)
    (site / "broken.html").write_text(
        '<html><head><title>x</title></head><body><h1>x</h1><a href="missing.csv">a</a>'
        '<img src="https://cdn.example.org/x.png"><a href="index.html#nowhere">b</a><a href="#claims">c</a></body></html>')
    problems = check_static(site)
    assert len(problems) == 4, problems
    assert any("missing.csv does not resolve" in p for p in problems)
    assert any("outside the site" in p for p in problems)
    assert any("'nowhere'" in p for p in problems) and any("'claims'" in p for p in problems)


def test_site_from_the_repository_results_shows_everything(tmp_path):
    site = tmp_path / "site"
    build_site(REPO / "results", site)
    assert check_static(site) == []
    pages = {p.name: Collect(p.read_text()) for p in site.glob("*.html")}
    shown = {os.path.normpath(site / u) for c in pages.values() for u in c.imgs}
    linked = {os.path.normpath(site / u.split("#")[0]) for c in pages.values() for u in c.links}
    # every figure is shown, but a CD diagram over fewer datasets than its tests need, which is linked with the reason
    unfit = {m for p in site.glob("*.html") for m in re.findall(r'<p class="placeholder unfit" id="([^"]+)"', p.read_text())}
    for png in (REPO / "results" / "figures").glob("*.png"):
        if png.stem in unfit:
            assert os.path.normpath(png) in linked and os.path.normpath(png) not in shown, png.name
        else:
            assert os.path.normpath(png) in shown, png.name
    from randml_core.site.papers import published
    for f in (REPO / "results" / "tables").iterdir():
        if f.suffix in (".csv", ".md", ".json") and published(f):  # report sidecars are gitignored
            assert os.path.normpath(f) in linked, f.name
    for paper in PAPERS:
        reports = [p for p in (REPO / "results" / "tables").glob(f"{paper.key}_*.md")
                   if p.stem in (f"{paper.key}_report", f"{paper.key}_claims")]
        assert reports, f"no claims report for {paper.key}"
        assert pages[f"{paper.key}.html"].badges, f"{paper.key}: no verdict badge"
        assert all("sortable" in (t or "").split() for t in pages[f"{paper.key}.html"].tables)


def test_committed_snapshot_links_resolve_and_is_small():
    snap = REPO / "results" / "site"
    assert (snap / "index.html").exists(), "results/site is not built: make site"
    assert check_static(snap) == [], "the committed site has broken links: make site-check"
    sizes = [p.stat().st_size for p in snap.rglob("*") if p.is_file()]
    assert max(sizes) < 5e6 and sum(sizes) < 5e6
    assert {p.stem for p in (snap / "screenshots").glob("*.png")} == {p.stem for p in snap.glob("*.html")}


def test_committed_site_shows_the_committed_results(tmp_path):
    # the site is a committed artefact built from results/: after a table or claims file changes, the pages
    # must be rebuilt (this session found two benchmark pages showing claims two commits old).
    # Built from a copy, so links out of results/ (conf/, datasets/) differ: ignored.
    results = tmp_path / "results"
    for part in ("tables", "figures"):
        shutil.copytree(REPO / "results" / part, results / part)
    build_site(results, results / "site")

    def norm(text: str) -> str:
        return re.sub(r'(href|src)="[^"]*"', r'\1=""', text)

    committed = sorted((REPO / "results" / "site").glob("*.html"))
    assert [p.name for p in committed] == sorted(p.name for p in (results / "site").glob("*.html"))
    for page in committed:
        assert norm(page.read_text()) == norm((results / "site" / page.name).read_text()), (
            f"results/site/{page.name} does not show the committed results: run make site and commit it")
    # the heatmaps beside the CD diagrams are drawn from the committed tables (pinned matplotlib: same bytes)
    heatmaps = {p.name: p.read_bytes() for p in (REPO / "results" / "site" / "heatmaps").glob("*.png")}
    assert heatmaps == {p.name: p.read_bytes() for p in (results / "site" / "heatmaps").glob("*.png")}, (
        "results/site/heatmaps/ does not match the committed tables: run make site and commit it")


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])  # IHDR width, height


def needs_chromium():
    """Skip without Debian's chromium, unless RANDML_REQUIRE_CHROMIUM is set (.ci/run sets it after installing
    chromium): then its absence fails, so a green CI run means the pages were loaded in a browser."""
    if CHROMIUM.exists():
        return
    why = "needs Debian's chromium at /usr/bin/chromium (.ci/run and make site-check install it)"
    if os.environ.get("RANDML_REQUIRE_CHROMIUM"):
        pytest.fail(f"RANDML_REQUIRE_CHROMIUM is set but {why}")
    pytest.skip(why)


WIDE_TABLE = "<table>" + "<tr>" + "<td>a&nbsp;long&nbsp;unbreakable&nbsp;cell</td>" * 40 + "</tr></table>"


def test_every_page_loads_in_chromium_without_errors(tmp_path):
    needs_chromium()
    pytest.importorskip("playwright", reason="playwright is in the dev extra: pip install -e '.[dev]'")
    from randml_core.site.check import check_browser
    site = tmp_path / "site"
    build_site(REPO / "results", site)
    # a page with a script error, a missing image and a table wider than the window outside a scrolling box,
    # and a page whose equally wide table is in a scrolling box: only the first is wrong (the check can fail)
    (site / "zz_bad.html").write_text('<html><head><title>b</title></head><body><h1>b</h1>'
                                      f'<img src="nope.png"><script>undefinedFunction()</script>{WIDE_TABLE}'
                                      '</body></html>')
    (site / "zz_scroll.html").write_text('<html><head><title>s</title></head><body><h1>s</h1>'
                                         f'<div style="overflow-x: auto">{WIDE_TABLE}</div></body></html>')
    problems, facts = check_browser(site, site / "screenshots")
    bad = [p for p in problems if p.startswith("zz_bad.html")]
    assert any("undefinedFunction" in p for p in bad) and any("nope.png" in p for p in bad)
    assert any("scrolls sideways" in p for p in bad) and any("table 0" in p and "past the 1280 px" in p for p in bad)
    # no real page overflows the window: every table fits the page or scrolls inside a box that does
    assert [p for p in problems if not p.startswith("zz_bad.html")] == []
    widths = {(name, i): (width, box, scrolls) for name, i, width, box, scrolls in facts["tables"]}
    width, box, scrolls = widths[("zz_scroll.html", 0)]
    assert scrolls and width > 1280 > box  # wider than the window, scrolling inside its box
    assert all(scrolls or width <= box for (name, _), (width, box, scrolls) in widths.items()
               if not name.startswith("zz_"))
    # index, datasets, the two test pages, one per paper, and the leaderboard's when its report is committed
    has_leaderboard = (REPO / "results" / "tables" / "leaderboard.md").exists()
    assert len(facts["pages"]) == len(PAPERS) + 4 + has_leaderboard
    if has_leaderboard:  # the case: its 13 model columns are all in view at 1280 px, none cut off
        width, box, _ = widths[("leaderboard.html", 0)]
        assert width <= box, f"the leaderboard table is {width} px in a {box} px box"
    assert len(facts["sorted"]) >= len(PAPERS)  # a numeric column sorted both ways on each page
    for shot in facts["screenshots"]:
        assert png_size(shot) == (1280, 2000)


def test_the_leaderboard_page_puts_like_for_like_first(small_results, tmp_path):
    """The headline (equal budgets, the models that weight the classes), the unweighted set, then the whole
    equal-budget table, then the grids (nested, then best of the grid), whatever the file names' sort order; the
    lead says what comes first."""
    t = small_results / "tables"
    for stem in ("leaderboard_grid", "leaderboard_grid_nested", "leaderboard_budget", "leaderboard_unweighted",
                 "leaderboard"):
        (t / f"{stem}.md").write_text(f"# {stem}: gmean\n\n| dataset | A |\n|---|---|\n| d | 0.9 |\n")
    site = tmp_path / "site"
    build_site(small_results, site)
    page = (site / "leaderboard.html").read_text()
    tables = page.split('id="tables"')[1].split('id="statistics"')[0]
    order = [tables.index(f'id="{s}"') for s in ("leaderboard", "leaderboard_unweighted", "leaderboard_budget",
                                                  "leaderboard_grid_nested", "leaderboard_grid")]
    assert order == sorted(order)
    assert "The headline compares like with like" in page
