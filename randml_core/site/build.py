"""Build the static results site: ``index.html``, one page per paper, ``leaderboard.html`` (the cross-paper
experiment, when its report is in ``results/tables``), ``datasets.html``.

Pages are plain HTML with relative links to the files in ``results/tables`` and
``results/figures`` (nothing is copied), one stylesheet and one small sorting script; they open
from disk in a browser without a server or network. The site draws one figure of its own: beside each
CD diagram, a datasets x models heatmap of the table's ranks (``heatmaps/<table>_heatmap.png``,
:mod:`.heatmap`). Every file is written atomically, and a page or heatmap the build no longer makes is
removed. The output depends only on the inputs (no timestamps).

A page carries what its benchmark has: a Claims section only beside a claims report, the published numbers
and the paper's wording only for a benchmark with published numbers, a claims report or authors (the five
papers); statistics as the number of datasets allows (:mod:`.stats_fit`). A user's own benchmark
(``--benchmark KEY``) gets a datasets page built from the dataset cards its experiments use
(:mod:`.datasets`) instead of the repository's catalogue, and its artefacts' code versions from the report's
sidecars (``tables/*.meta.json``). The papers' pages never read the sidecars: they are gitignored, and the
committed site is built from committed files only.
"""
from __future__ import annotations

import hashlib
import html
import json
import os
from pathlib import Path

import pandas as pd

from ..paths import shipped_config_dirs
from ..provenance import REPO_ROOT
from ..results import make_target
from . import assets, heatmap
from .datasets import DatasetInfo, benchmark_datasets
from .files import write_bytes, write_text
from .mdrender import badge, render, render_inline, section_of, tables_after_heading
from .papers import PAPERS, Artefacts, Paper, published, artefacts, code_versions, experiments, siblings
from .stats_fit import fit_stats, unfit_figures

CSV_ROWS_SHOWN = 400  # a data CSV with more rows is linked, not shown
LEADERBOARD = "leaderboard"  # the cross-paper experiment (conf/experiment/leaderboard.yaml): a page of its own
HEATMAPS = "heatmaps"  # the site's own figures (one per CD diagram), under the site's folder
esc = html.escape


def _shipped_packages() -> set[str]:
    """The benchmark packages that the ``randml`` distribution itself declares (its entry points)."""
    from importlib import metadata

    from ..plugins import GROUP
    return {ep.value for ep in metadata.entry_points(group=GROUP)
            if getattr(ep, "dist", None) is not None and ep.dist.name == "randml"}


class Site:
    def __init__(self, results: Path, out: Path, repo: Path = REPO_ROOT, benchmarks=None, config_dirs=()):
        self.results, self.out, self.repo = Path(results).resolve(), Path(out).resolve(), Path(repo).resolve()
        self.catalogue = (self.repo / "datasets" / "README.md")
        #: the benchmarks with a page: the given ones (a user's), else the installed ones that describe themselves
        #: and have artefacts in ``results``
        self.own = benchmarks is not None
        # the benchmarks randml itself ships, and another installed package's only when these results hold its
        # artefacts (a benchmark installed beside randml does not change randml's site)
        self.papers = list(benchmarks) if self.own else [p for p in PAPERS if p.package in _shipped_packages()
                                                         or artefacts(p, self.results).all()]
        self.arts = {p.key: artefacts(p, self.results) for p in self.papers}
        #: every experiment config by name, as Hydra finds it: a user's config dir first, then the shipped ones
        self.shipped = shipped_config_dirs()
        found: dict[str, object] = {}
        for d in [*map(Path, config_dirs), *self.shipped]:
            for e in experiments(d):
                found.setdefault(e.name, e)
        self.experiments = sorted(found.values(), key=lambda e: e.name)
        self.leaderboard = leaderboard_artefacts(self.results)
        self.heatmaps: dict[str, bytes] = {}  # file name in HEATMAPS -> PNG, filled while the pages are made
        self._datasets: tuple[list[DatasetInfo], list[str]] | None = None  # a user's benchmarks' datasets
        self._sidecars: dict[Path, tuple[str, Path, str]] | None = None  # artefact -> (version, sidecar, sha256)

    # -- helpers ---------------------------------------------------------------------------------
    def href(self, path: Path) -> str:
        return esc(os.path.relpath(Path(path).resolve(), self.out).replace(os.sep, "/"))

    def files_line(self, path: Path, label: str = "files") -> str:
        links = " ".join(f'<a href="{self.href(q)}">{esc(q.name)}</a>' for q in siblings(path))
        return f'<p class="files">{label}: {links}</p>'

    def md(self, path: Path, demote: int = 2, **kw) -> str:
        return render(path.read_text(errors="replace"), self.out, path.parent, demote, **kw)

    def stats_md(self, path: Path) -> str:
        """A statistics file, each comparison shown as far as its number of datasets allows (:mod:`.stats_fit`)."""
        return render(fit_stats(path.read_text(errors="replace")), self.out, path.parent, 2)

    @staticmethod
    def unfit(stats: list[Path]) -> dict[Path, str]:
        """The figures of ``stats``' comparisons on too few datasets, with why they are not shown."""
        out: dict[Path, str] = {}
        for path in stats:
            out.update(unfit_figures(path.read_text(errors="replace"), path.parent))
        return out

    def figures(self, paths: list[Path], unfit: dict[Path, str]) -> list[str]:
        """Each figure, or for a diagram over too few datasets one line with its files and why."""
        out = []
        for path in paths:
            why = unfit.get(path.resolve())
            if why is None:
                out.append(self.figure(path))
                continue
            links = " ".join(f'<a href="{self.href(q)}">{esc(q.suffix[1:])}</a>' for q in siblings(path))
            out.append(f'<p class="placeholder unfit" id="{esc(path.stem)}">{esc(path.stem)} ({links}): '
                       f"{esc(why)}</p>")
        return out

    def sidecars(self) -> dict[Path, tuple[str, Path, str]]:
        """Every artefact a report's sidecar (``tables/*.meta.json``) names: (its code version, the sidecar, the
        sha256 the sidecar recorded). Read for a user's benchmark only (see the module docstring)."""
        if self._sidecars is None:
            self._sidecars = {}
            tables = self.results / "tables"
            for meta in sorted(tables.glob("*.meta.json")) if self.own and tables.is_dir() else []:
                try:
                    data = json.loads(meta.read_text())
                except (OSError, ValueError):
                    continue
                version = data.get("generated_by") if isinstance(data, dict) else None
                files = data.get("files") if isinstance(data, dict) else None
                if not isinstance(version, str) or not isinstance(files, dict):
                    continue
                for rel, sha in files.items():
                    self._sidecars[(self.results / rel).resolve()] = (version, meta, str(sha))
        return self._sidecars

    def versions(self, path: Path) -> str:
        """The code versions cell of an artefact: what the file names, else what its report's sidecar records
        (with the sidecar's name; marked when the file changed since), else "-"."""
        named = ", ".join(code_versions(path))
        if named:
            return esc(named)
        found = self.sidecars().get(path.resolve())
        if found is None:
            return "-"
        version, meta, sha = found
        if hashlib.sha256(path.read_bytes()).hexdigest() != sha:
            return f"- (changed since <code>{esc(meta.name)}</code> recorded {esc(version)})"
        return f'{esc(version)} (<a href="{self.href(meta)}">{esc(meta.name)}</a>)'

    def figure(self, path: Path) -> str:
        """A figure with links to its formats; a CD diagram gets the heatmap of its table beside it."""
        links = " ".join(f'<a href="{self.href(q)}">{esc(q.suffix[1:])}</a>' for q in siblings(path))
        fig = (f'<figure id="{esc(path.stem)}"><img src="{self.href(path)}" alt="{esc(path.stem)}">'
               f"<figcaption>{esc(path.stem)}: {links}</figcaption></figure>")
        png = heatmap.heatmap_png(path, self.results / "tables")
        if png is None:
            return fig
        name = f"{path.stem[: -len(heatmap.CD_SUFFIX)]}_heatmap.png"
        self.heatmaps[name] = png
        csv = heatmap.table_of(path, self.results / "tables")
        return (f'<div class="pair">{fig}<figure id="{esc(Path(name).stem)}"><img src="{HEATMAPS}/{name}" '
                f'alt="{esc(Path(name).stem)}"><figcaption>The ranks behind the diagram, per dataset, from '
                f'<a href="{self.href(csv)}">{esc(csv.name)}</a> (1 = best; grey = no score). A model\'s average '
                "rank (in brackets) is over the datasets where it has a score; the diagram ranks only the "
                "datasets where every model has one. Drawn by the site build.</figcaption></figure></div>")

    def page(self, name: str, title: str, body: str) -> str:
        nav = [("index.html", "Overview"), *[(f"{p.key}.html", p.short) for p in self.papers],
               *([("leaderboard.html", "Leaderboard")] if self.leaderboard else []), ("datasets.html", "Datasets")]
        current = ' aria-current="page"'
        links = "".join(f'<a href="{h}"{current if h == name else ""}>{esc(t)}</a>' for h, t in nav)
        return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)} · randml results</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="assets/site.css">
<script src="assets/sort.js" defer></script>
</head>
<body>
<header class="site"><a class="home" href="index.html">randml results</a><nav>{links}</nav></header>
<main>
{body}
</main>
<footer><div class="wrap">{self.footer()} Static files with
relative links: no server, no network. Click a table header to sort.</div></footer>
</body>
</html>
"""

    def footer(self) -> str:
        if self.own:
            return ("Generated by <code>python -m randml_core.site</code> from the <code>tables</code> and "
                    "<code>figures</code> folders of the results directory and the dataset cards of the "
                    "experiments.")
        return ("Generated by <code>make site</code> (randml_core.site) from\n<code>results/tables</code>, "
                "<code>results/figures</code> and <code>datasets/README.md</code>.")

    def csv_table(self, path: Path, max_rows: int = CSV_ROWS_SHOWN) -> str:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        if len(frame) > max_rows:
            return f'<p class="placeholder">{len(frame)} rows: open the file.</p>'
        table = frame.to_html(index=False, classes="sortable", border=0, escape=True)
        return (f'<details><summary>show the {len(frame)} rows</summary><div class="scroll">{table}</div>'
                "</details>")

    # -- pages -----------------------------------------------------------------------------------
    def is_paper(self, paper: Paper) -> bool:
        """A reproduction of a paper (its authors, a claims report or published numbers), not only a benchmark:
        its page speaks of "the paper" and keeps a Benchmarks section even when empty."""
        published = published_values(paper)
        return bool(paper.authors or self.arts[paper.key].claims or (published is not None and published.exists()))

    def paper_page(self, paper: Paper) -> str:
        a = self.arts[paper.key]
        is_paper = self.is_paper(paper)
        noun = "paper" if is_paper else "benchmark"
        published = published_values(paper)
        published = published if published is not None and published.exists() else None
        sections = [*([("claims", "Claims")] if a.claims else []), ("tables", "Tables"), ("figures", "Figures"),
                    ("statistics", "Statistics"),
                    *([("benchmarks", "Benchmarks")] if is_paper or a.bench or a.bench_data else []),
                    ("provenance", "Provenance")]
        if is_paper:
            authors = f"{esc(paper.authors)}. " if paper.authors else ""
            lead = (f"{authors}Our reproduction: every artefact in <code>results/</code> for this paper"
                    + (", the published numbers beside ours where the paper gives them." if published or a.claims
                       else "."))
        else:
            lead = (f"Every artefact of the benchmark <code>{esc(paper.key)}</code> in the results directory "
                    f"(<code>tables/{esc(paper.key)}*</code>, <code>figures/{esc(paper.key)}*</code>): its tables, "
                    "figures, statistics over datasets and provenance; its datasets are on the "
                    '<a href="datasets.html">Datasets</a> page.')
        parts = [f"<h1>{esc(paper.title)}</h1>", f'<p class="lead">{lead}</p>',
                 '<nav class="toc">' + "".join(f'<a href="#{k}">{t}</a>' for k, t in sections) + "</nav>"]
        if a.claims:
            parts.append('<h2 id="claims">Claims</h2>')
            parts.append(f"<p>The paper's claims as our run decides them: {badge('held')} {badge('not held')} "
                         f"{badge('inconclusive')} (no significant difference either way) {badge('undecidable here')} (inconclusive, and the "
                         f"rule could not have said held on data of this size) {badge('not tested')} (each report states the rule that decided each claim; "
                         f"{badge('substitute')} marks data standing in for a set that is not available here).</p>")
        for path in a.claims:
            parts.append(f'<article class="artefact claims">{self.files_line(path)}{self.md(path)}</article>')
        parts.append('<h2 id="tables">Tables</h2>')
        for path in a.tables:
            parts.append(f'<article class="artefact" id="{esc(path.stem)}">{self.files_line(path)}'
                         f"{self.md(path)}</article>")
        for path in a.data:
            body = self.csv_table(path) if path.suffix == ".csv" else ""
            parts.append(f'<article class="artefact" id="{esc(path.stem)}"><h3>{esc(path.name)}</h3>'
                         f"{self.files_line(path, 'data')}{body}</article>")
        if published is not None:
            parts.append(f'<article class="artefact" id="published"><h3>Published numbers (the paper)</h3>'
                         f"<p>The values typed in from the paper; the tables above put them beside ours.</p>"
                         f"{self.files_line(published, 'data')}{self.csv_table(published)}</article>")
        if not (a.tables or a.data):
            parts.append('<p class="placeholder">No tables in results/tables yet.</p>')
        parts.append('<h2 id="figures">Figures</h2>')
        parts += self.figures(a.figures, self.unfit(a.stats))
        if not a.figures:
            parts.append(f'<p class="placeholder">No figures for this {noun}.</p>')
        parts.append('<h2 id="statistics">Statistics</h2>')
        if a.stats:
            for path in a.stats:
                parts.append(f'<article class="artefact stats">{self.files_line(path)}{self.stats_md(path)}</article>')
        else:
            parts.append(f'<p class="placeholder">No statistics yet: this section shows '
                         f"<code>results/tables/{esc(paper.key)}_*_stats.md</code> once the statistics module "
                         "writes them.</p>")
        if any(k == "benchmarks" for k, _ in sections):
            parts.append('<h2 id="benchmarks">Benchmarks</h2>')
            for path in a.bench:
                parts.append(f'<article class="artefact">{self.files_line(path)}{self.md(path)}</article>')
            for path in a.bench_data:
                parts.append(f'<p class="files">data: <a href="{self.href(path)}">{esc(path.name)}</a></p>')
            if not (a.bench or a.bench_data):
                parts.append(f'<p class="placeholder">No benchmark for this {noun}.</p>')
        parts.append('<h2 id="provenance">Provenance</h2>' + self.provenance(paper, a))
        return self.page(f"{paper.key}.html", paper.short, "\n".join(parts))

    def leaderboard_page(self) -> str:
        """The cross-paper leaderboard: its tables, statistics (ranks, CD diagrams), compute profile, config."""
        a = self.leaderboard
        config = next((e for e in self.experiments if e.name == LEADERBOARD), None)
        lead = ("Every classifier of the five papers and the usual baselines on every classification dataset of "
                "the papers that loads offline, under one protocol; ranks and critical-difference diagrams over the "
                "datasets. The headline compares like with like: every model with the same tuning budget (6 settings "
                "drawn at random and searched inside the inner folds: nested CV), ranked within the models that "
                "weight the classes (<code>leaderboard</code>) and within those that do not "
                "(<code>leaderboard_unweighted</code>); then the whole equal-budget table, then the grids (nested, "
                "then the papers' optimistic best of the grid). Rerun: <code>make leaderboard-full</code> (the "
                "equal-budget tables), <code>make leaderboard-grid</code> (the grids).")
        parts = ["<h1>Cross-paper leaderboard</h1>", f'<p class="lead">{lead}</p>',
                 '<nav class="toc"><a href="#tables">Tables</a><a href="#statistics">Statistics</a>'
                 '<a href="#figures">Figures</a><a href="#compute">Compute</a><a href="#provenance">Provenance</a></nav>',
                 '<h2 id="tables">Tables</h2>']
        parts += [f'<article class="artefact" id="{esc(p.stem)}">{self.files_line(p)}{self.md(p)}</article>'
                  for p in a.tables]
        parts.append('<h2 id="statistics">Statistics</h2>')
        parts += [f'<article class="artefact stats">{self.files_line(p)}{self.stats_md(p)}</article>' for p in a.stats]
        if not a.stats:
            parts.append('<p class="placeholder">No statistics: the report writes them with the tables.</p>')
        parts.append('<h2 id="figures">Figures</h2>')
        parts += self.figures(a.figures, self.unfit(a.stats))
        parts.append('<h2 id="compute">Compute</h2>')
        parts += [f'<article class="artefact">{self.files_line(p)}{self.md(p)}</article>' for p in a.bench]
        if not a.bench:
            parts.append('<p class="placeholder">No compute profile (scripts/time_profile.py writes one).</p>')
        parts.append('<h2 id="provenance">Provenance</h2>')
        if config is not None:
            parts.append(f'<p>Config: <a href="{self.href(config.config)}">{esc(config.config.name)}</a> '
                         "(datasets, models, grids and why each is there, in its header comment).</p>")
        rows = [f'<tr><td><a href="{self.href(p)}">{esc(p.name)}</a></td><td>{self.versions(p)}</td></tr>'
                for p in a.all() if p.suffix != ".png"]
        parts.append('<div class="scroll"><table class="sortable"><thead><tr><th>artefact</th><th>code version</th>'
                     "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")
        return self.page("leaderboard.html", "Leaderboard", "\n".join(parts))

    def experiments_of(self, paper: Paper) -> list:
        """The experiment configs of a benchmark: ``experiment.paper`` one of its ``config_names``; for a user's
        benchmark also the experiment named like it or naming it as its paper."""
        return [e for e in self.experiments
                if e.paper in paper.config_names or (self.own and paper.key in (e.name, e.paper))]

    def provenance(self, paper: Paper, a: Artefacts) -> str:
        noun = "paper" if self.is_paper(paper) else "benchmark"
        out = ["<h3>Experiments and how to rerun them</h3>"]
        rows = []
        for e in self.experiments_of(paper):
            target = make_target(e.name)
            rows.append(f"<tr><td>{esc(e.name)}</td><td>{'<code>make ' + esc(target) + '</code>' if target else '-'}"
                        f"</td><td><code>randml run{esc(self.config_dir_arg(e))} experiment={esc(e.name)}</code></td>"
                        f'<td><a href="{self.href(e.config)}">{esc(e.config.name)}</a></td>'
                        f"<td>{'<code>' + esc(e.report) + '</code>' if e.report else 'the generic report'}</td></tr>")
        out.append('<div class="scroll"><table class="sortable"><thead><tr><th>experiment</th><th>make target</th>'
                   "<th>command</th><th>config</th><th>report builder</th></tr></thead><tbody>"
                   + "".join(rows) + "</tbody></table></div>" if rows else
                   f'<p class="placeholder">No experiment config names this {noun}.</p>')
        sidecar = (" A file that names none shows the version its report's sidecar (<code>tables/*.meta.json</code>) "
                   "records, with the sidecar's name; a file changed since the sidecar was written is marked."
                   if self.own else "")
        out.append("<h3>Code versions named in the artefacts</h3><p>The git commit (first 10 hex digits; "
                   f"<code>+dirty</code> = uncommitted changes) each file says generated it.{sidecar}</p>")
        rows = [f'<tr><td><a href="{self.href(p)}">{esc(p.name)}</a></td><td>{self.versions(p)}</td></tr>'
                for p in a.all() if p.suffix != ".png"]
        out.append('<div class="scroll"><table class="sortable"><thead><tr><th>artefact</th><th>code version</th>'
                   "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")
        out.append("<h3>Data sources</h3>" + (self.card_sources(paper) if self.own else self.data_sources(paper)))
        return "\n".join(out)

    def config_dir_arg(self, e) -> str:
        """`` --config-dir DIR`` for an experiment from a user's config dir (relative to the working directory)."""
        d = e.config.resolve().parent.parent
        if d in self.shipped:
            return ""
        try:
            return f" --config-dir {os.path.relpath(d)}"
        except ValueError:  # another drive
            return f" --config-dir {d}"

    def data_sources(self, paper: Paper) -> str:
        if not self.catalogue.exists():
            return '<p class="placeholder">datasets/README.md (the catalogue) is missing.</p>'
        tables = tables_after_heading(self.catalogue.read_text(), "Catalogue")
        if not tables:
            return '<p class="placeholder">datasets/README.md has no Catalogue table.</p>'
        header, rows = tables[0]
        col = {h: i for i, h in enumerate(header)}
        mine = [r for r in rows if paper.catalogue in [s.strip() for s in r[col["papers"]].split(",")]]
        if not mine:
            return ("<p>No registered dataset: this paper's data are generated inside its experiment "
                    "(see the experiment config above).</p>")
        show = [h for h in ("name", "task", "group", "n", "d", "kind", "source used", "substitute of", "hash") if h in col]
        body = []
        for r in mine:
            cells = []
            for h in show:
                text = r[col[h]]
                cell = render_inline(text)
                if h == "substitute of" and text.strip():
                    cell = f"{badge('substitute')} for {cell}"
                if h == "kind" and text.startswith("not loaded"):
                    cell = '<span class="badge v-download">needs download</span>'
                cells.append(f"<td>{cell}</td>")
            sub = ' class="substitute"' if r[col["substitute of"]].strip() else ""
            body.append(f"<tr{sub}>{''.join(cells)}</tr>")
        return (f"<p>{len(mine)} datasets (from <a href=\"datasets.html\">the catalogue</a>, "
                f"<code>datasets/README.md</code>); substitutes are marked, \"needs download\" sets were not "
                "run here (<code>make data</code>).</p>"
                '<div class="scroll"><table class="sortable"><thead><tr>'
                + "".join(f"<th>{esc(h)}</th>" for h in show) + "</tr></thead><tbody>" + "".join(body)
                + "</tbody></table></div>")

    # -- a user's benchmark: its datasets from the cards its experiments use -------------------------
    def own_datasets(self) -> tuple[list[DatasetInfo], list[str]]:
        """The datasets of the user's benchmarks' experiments (:mod:`.datasets`), composed once per build."""
        if self._datasets is None:
            exps = []
            for p in self.papers:
                for e in self.experiments_of(p):
                    d = e.config.resolve().parent.parent
                    if (e.name, d) not in exps:
                        exps.append((e.name, None if d in self.shipped else d))
            self._datasets = benchmark_datasets(exps)
        return self._datasets

    def card_sources(self, paper: Paper) -> str:
        """The provenance's data sources of a user's benchmark: its datasets, where each comes from, whether it
        is here."""
        names = {e.name for e in self.experiments_of(paper)}
        infos = [i for i in self.own_datasets()[0] if names & set(i.experiments)]
        if not infos:
            return (f'<p class="placeholder">No dataset: no experiment config of {esc(paper.key)} composes with '
                    'datasets (see the <a href="datasets.html">Datasets</a> page).</p>')
        rows = "".join(f"<tr><td><a href=\"datasets.html#{esc(i.name)}\">{esc(i.name)}</a></td><td>{esc(i.kind)}</td>"
                       f"<td>{self.here(i)}</td><td>{self.card_link(i)}</td></tr>" for i in infos)
        return (f'<p>{len(infos)} dataset{"" if len(infos) == 1 else "s"}, described on the '
                '<a href="datasets.html">Datasets</a> page.</p><div class="scroll"><table class="sortable"><thead><tr>'
                "<th>dataset</th><th>source kind</th><th>here</th><th>card</th></tr></thead><tbody>" + rows
                + "</tbody></table></div>")

    @staticmethod
    def here(i: DatasetInfo) -> str:
        if i.here in ("offline", "cached"):
            return esc(i.here)
        return f'<span class="badge v-download">{esc(i.here)}</span>'

    def card_link(self, i: DatasetInfo) -> str:
        if i.card is None:
            return "shipped with randml"
        return f'<a href="{self.href(i.card)}">{esc(i.card.name)}</a>'

    def own_datasets_page(self) -> str:
        infos, problems = self.own_datasets()
        keys = ", ".join(f"<code>{esc(p.key)}</code>" for p in self.papers)
        parts = ["<h1>Datasets</h1>",
                 f'<p class="lead">The datasets the experiments of {keys} use, from their dataset cards (as '
                 "<code>randml run</code> composes the experiment). Size, classes and missing values come from the "
                 "data as a run loads it when it is here without a download, else from the card's "
                 "<code>expected</code> block.</p>"]
        parts += [f'<p class="placeholder">Not composed: {esc(m)}</p>' for m in problems]
        if not infos and not problems:
            parts.append(f'<p class="placeholder">No experiment config of {keys} found: pass the config dir that holds '
                         "<code>experiment/&lt;name&gt;.yaml</code> with <code>--config-dir</code>.</p>")
        if not infos:
            return self.page("datasets.html", "Datasets", "\n".join(parts))
        head = ("dataset", "task", "size (rows x features)", "classes", "class counts", "missing values", "source",
                "here")
        rows = []
        for i in infos:
            sub = f" {badge('substitute')} for {esc(i.substitute_of)}" if i.substitute_of else ""
            missing = "not checked" if i.missing is None else str(i.missing)
            cells = [f'<a href="#{esc(i.name)}">{esc(i.name)}</a>{sub}', esc(i.task), esc(i.size), esc(i.classes),
                     esc(i.counts) or "-", esc(missing), esc(i.kind), self.here(i)]
            rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        parts.append('<div class="scroll"><table class="sortable"><thead><tr>'
                     + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr></thead><tbody>" + "".join(rows)
                     + "</tbody></table></div>")
        for i in infos:
            facts = [("licence", esc(i.licence)), ("citation", esc(i.citation)),
                     *([("notes", esc(i.notes))] if i.notes else []),
                     ("card", self.card_link(i)),
                     ("used by", ", ".join(f"<code>{esc(e)}</code>" for e in i.experiments)),
                     ("size, classes and missing values from", esc(i.measured))]
            parts.append(f'<article class="artefact" id="{esc(i.name)}"><h2>{esc(i.name)}</h2><ul>'
                         + "".join(f"<li>{k}: {v}</li>" for k, v in facts) + "</ul></article>")
        return self.page("datasets.html", "Datasets", "\n".join(parts))

    def datasets_page(self) -> str:
        if self.own:
            return self.own_datasets_page()
        if not self.catalogue.exists():
            body = '<h1>Datasets</h1><p class="placeholder">datasets/README.md is missing.</p>'
        else:
            def mark(header, cells):
                col = {h: i for i, h in enumerate(header)}
                if "substitute of" in col and cells[col["substitute of"]].strip():
                    return "substitute"
                return None
            body = (f"{self.files_line(self.catalogue, 'source')}"
                    + self.md(self.catalogue, demote=0, row_class=mark))
        return self.page("datasets.html", "Datasets", body)

    def index_page(self) -> str:
        rows = []
        any_claims = not self.own or any(self.arts[p.key].claims for p in self.papers)
        any_bench = not self.own or any(self.arts[p.key].bench for p in self.papers)
        what = "paper" if not self.own or all(self.is_paper(p) for p in self.papers) else "benchmark"
        for p in self.papers:
            a = self.arts[p.key]
            claims = f'<a href="{p.key}.html#claims">{len(a.claims)} report</a>' if a.claims else "-"
            rows.append(f'<tr><td><a href="{p.key}.html">{esc(p.short)}</a></td><td>{esc(p.title)}</td>'
                        + (f"<td>{claims}</td>" if any_claims else "")
                        + f"<td>{len(a.tables) + len(a.data)}</td><td>{len(a.figures)}</td>"
                        f"<td>{len(a.stats) or '-'}</td>" + (f"<td>{len(a.bench) or '-'}</td>" if any_bench else "")
                        + "</tr>")
        readme = self.repo / "README.md"
        # the repository's Status section is about its papers: not on a user's benchmark's pages
        status = section_of(readme.read_text(), "Status") if readme.exists() and not self.own else ""
        claimed = {q.resolve() for a in [*self.arts.values(), *([self.leaderboard] if self.leaderboard else [])]
                   for p in a.all() for q in siblings(p)}
        others = [p for d in ("tables", "figures") if (self.results / d).is_dir()
                  for p in sorted((self.results / d).iterdir())
                  if p.is_file() and not p.name.startswith(".") and published(p) and p.resolve() not in claimed]
        notebook = self.repo / "notebooks" / "explore_results.ipynb"
        folder = esc(self.results.name) if self.own else "results"
        body = [
            "<h1>randml results</h1>",
            ('<p class="lead">Your benchmark: its tables, figures, statistics and provenance, one page each. '
             if self.own else
             '<p class="lead">The reproductions of five papers: each paper\'s claims (held / not held / not tested, '
             "with the rule that decided them), its tables with the published numbers beside ours, its figures, "
             "statistics, benchmarks and provenance. ")
            + "These are static pages: open them from disk, no server needed.</p>",
            f'<h2 id="{what}s">{what.title()}s</h2><div class="scroll"><table class="sortable"><thead><tr>'
            f"<th>{what}</th><th>title</th>" + ("<th>claims</th>" if any_claims else "")
            + "<th>tables</th><th>figures</th><th>statistics</th>" + ("<th>benchmarks</th>" if any_bench else "")
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>",
        ]
        if status:
            body.append('<h2 id="status">Status</h2><p>From <code>README.md</code>: what is done and what could not be '
                        "run here.</p>" + render(status, self.out, readme.parent, 1))
        body.append('<h2 id="more">More</h2><ul>'
                    + ('<li><a href="leaderboard.html">Cross-paper leaderboard</a>: every classifier of the papers and '
                       "the baselines on every offline classification set, one protocol, ranks and CD diagrams.</li>"
                       if self.leaderboard else "")
                    + ('<li><a href="datasets.html">Datasets</a>: the datasets of the experiments, from their dataset '
                       "cards: task, size, classes, missing values, licence, citation, here or needs a download.</li>"
                       if self.own else
                       '<li><a href="datasets.html">Datasets</a>: the catalogue of every registered dataset, its source '
                       "and substitutes.</li>")
                    + (f'<li><a href="{self.href(notebook)}">notebooks/explore_results.ipynb</a>: load, pivot, select, '
                       "plot and compare stored results yourself (<code>randml_core.results.load</code>).</li>"
                       if notebook.exists() else "")
                    + "<li>The files themselves: " + ", ".join(
                        f'<a href="{self.href(self.results / part)}">{folder}/{part}</a>'
                        for part in ("tables", "figures") if (self.results / part).is_dir()) + ".</li></ul>")
        if others:
            body.append(f'<h2 id="other">Other files</h2><p>Artefacts that belong to no {what} page:</p><ul>'
                        + "".join(f'<li><a href="{self.href(p)}">{esc(p.parent.name)}/{esc(p.name)}</a></li>'
                                  for p in others) + "</ul>")
        return self.page("index.html", "Overview", "\n".join(body))

    def pages(self) -> dict[str, str]:
        out = {"index.html": self.index_page(), "datasets.html": self.datasets_page()}
        out.update({f"{p.key}.html": self.paper_page(p) for p in self.papers})
        if self.leaderboard:
            out["leaderboard.html"] = self.leaderboard_page()
        return out


#: the leaderboard page's order: like for like first (equal budgets, nested, each class-weighting set apart), then the
#: whole equal-budget table, then the grid tables (nested, then the papers' optimistic best of the grid)
LEADERBOARD_ORDER = ("", "_unweighted", "_budget", "_grid_nested", "_grid")


def _leaderboard_order(path: Path) -> tuple:
    stem = path.stem.removeprefix(LEADERBOARD).removesuffix("_stats").removesuffix("_profile")
    return (LEADERBOARD_ORDER.index(stem) if stem in LEADERBOARD_ORDER else len(LEADERBOARD_ORDER), path.name)


def leaderboard_artefacts(results: Path) -> Artefacts | None:
    """The leaderboard report's files: ``leaderboard.md`` and ``leaderboard_<rule>.md`` tables, ``_stats.md``,
    ``_profile.md`` (compute), ``leaderboard_*.png``; None when its table is not in ``results/tables``."""
    tables, figures = results / "tables", results / "figures"
    if not (tables / f"{LEADERBOARD}.md").is_file():
        return None
    a = Artefacts()
    for p in sorted(filter(published, [tables / f"{LEADERBOARD}.md", *tables.glob(f"{LEADERBOARD}_*.md")]),
                    key=_leaderboard_order):
        (a.stats if p.stem.endswith("_stats") else a.bench if p.stem.endswith("_profile") else a.tables).append(p)
    a.figures = sorted(filter(published, figures.glob(f"{LEADERBOARD}_*.png"))) if figures.is_dir() else []
    return a


def published_values(bench: Paper) -> Path | None:
    """The benchmark's ``published.csv`` (beside its package's ``__init__``), found without importing it."""
    from ..plugins import folders
    found = folders(bench.package) if bench.package else []
    return Path(found[0]) / "published.csv" if found else None


def build_site(results: str | os.PathLike = REPO_ROOT / "results", out: str | os.PathLike | None = None,
               repo: str | os.PathLike = REPO_ROOT, benchmarks=None, config_dirs=()) -> list[Path]:
    """Write the site into ``out`` (default ``<results>/site``); returns the pages written. ``benchmarks``:
    the pages to make (default: the installed benchmarks'); ``config_dirs``: where their experiments are."""
    out = Path(out) if out is not None else Path(results) / "site"
    site = Site(Path(results), out, Path(repo), benchmarks, config_dirs)
    pages = site.pages()
    written = [write_text(out / "assets" / "site.css", assets.SITE_CSS),
               write_text(out / "assets" / "sort.js", assets.SORT_JS)]
    written += [write_text(out / name, text) for name, text in pages.items()]
    if site.heatmaps:
        (out / HEATMAPS).mkdir(parents=True, exist_ok=True)
    written += [write_bytes(out / HEATMAPS / name, png) for name, png in sorted(site.heatmaps.items())]
    stale = [p for p in out.glob("*.html") if p.name not in pages]
    stale += [p for p in out.glob(f"{HEATMAPS}/*.png") if p.name not in site.heatmaps]
    for path in stale:
        path.unlink()
    return written
