"""The site for any benchmark (issue 45): the README's own-benchmark example (examples/byo, made small: 2 datasets,
2 folds) run, reported and built with ``python -m randml_core.site build --benchmark mine --config-dir CONF`` gets
pages with only what it has: no claims, no published numbers, no paper wording; code versions from the report's
sidecar; a datasets page from the dataset cards its experiment uses; statistics that fit 2 datasets. Without
markdown-it-py the build names the extra to install."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import pytest

pytest.importorskip("markdown_it", reason="markdown-it-py is in the site and dev extras: pip install -e '.[site]'")

from randml_core.site.check import check_static  # noqa: E402

from conftest import REPO  # noqa: E402

#: the example made small (a few seconds): the edits must apply, so a changed example fails here, not silently
SMALL = {"n_splits: 5": "n_splits: 2", "datasets: [blobs, heart, sonar]": "datasets: [blobs, heart]",
         "grid: {n_hidden: [20, 50, 100]}": "grid: {n_hidden: [20]}"}


def _run(args, cwd, env):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("anybench")
    conf = root / "conf"
    shutil.copytree(REPO / "examples" / "byo", conf)
    exp = (conf / "experiment" / "mine.yaml").read_text()
    for old, new in SMALL.items():
        assert old in exp, f"examples/byo/experiment/mine.yaml no longer has {old!r}: update SMALL"
        exp = exp.replace(old, new)
    (conf / "experiment" / "mine.yaml").write_text(exp)
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    common = ["--config-dir", str(conf), "experiment=mine", f"store_dir={root}/store", f"results_dir={root}/out",
              f"hydra.run.dir={root}/logs"]
    run = _run(["-m", "randml_core", "run", *common, "n_jobs=1", "progress=false"], root, env)
    assert run.returncode == 0, run.stderr[-3000:]
    rep = _run(["-m", "randml_core", "report", *common], root, env)
    assert rep.returncode == 0, rep.stderr[-3000:]
    site = _run(["-m", "randml_core.site", "build", "--results", str(root / "out"), "--benchmark", "mine",
                 "--config-dir", str(conf)], root, env)
    assert site.returncode == 0, site.stderr[-3000:]
    return root, root / "out", root / "out" / "site", env


class Text(HTMLParser):
    """The visible text of a page and its tables as rows of cell texts."""

    def __init__(self, page: str):
        super().__init__()
        self.text, self.rows, self._row, self._cell = [], [], None, None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def test_benchmark_page_has_no_paper_furniture_and_its_code_versions(built):
    root, out, site, _ = built
    page = (site / "mine.html").read_text()
    text = " ".join(Text(page).text)
    assert 'id="claims"' not in page and ">Claims<" not in page
    assert "this paper" not in text and "published" not in text.lower()
    assert '<p class="lead">.' not in page and "No benchmark for this" not in text
    assert 'id="benchmarks"' not in page  # no timing benchmark files: no empty section
    # the code version of each artefact, from the report's sidecar (the tables name none)
    sidecar = (out / "tables" / "mine.meta.json")
    assert sidecar.exists()
    prov = page.split('id="provenance"')[1]
    rows = [r for r in Text(prov).rows if len(r) == 2 and r[0].startswith("mine")]
    assert {r[0] for r in rows} == {"mine.md", "mine_stats.md"}
    for name, version in rows:
        assert re.fullmatch(r"[0-9a-f]{10}(\+dirty)? \(mine\.meta\.json\)", version), (name, version)
    assert "No experiment config names" not in prov and "the generic report" in prov
    assert "datasets/README.md" not in page  # its data sources come from its cards, not the repo's catalogue
    index = (site / "index.html").read_text()
    assert 'id="status"' not in index and ">Papers<" not in index and "<th>claims</th>" not in index
    assert check_static(site) == []


def test_datasets_page_is_built_from_the_cards_the_experiment_uses(built):
    _, _, site, _ = built
    page = (site / "datasets.html").read_text()
    rows = {r[0]: r for r in Text(page).rows if r and r[0] in ("blobs", "heart", "sonar")}
    assert set(rows) == {"blobs", "heart"}  # the experiment's datasets, not the repo's catalogue of 80
    head = next(r for r in Text(page).rows if r and r[0] == "dataset")
    blobs = dict(zip(head, rows["blobs"]))
    # the card's expected block and the CSV agree: 240 rows, 4 features (sample_id dropped), 150 common / 90 rare
    assert blobs["task"] == "binary" and blobs["size (rows x features)"] == "240 x 4"
    assert blobs["classes"] == "2" and blobs["class counts"] == "150 / 90" and blobs["missing values"] == "0"
    assert blobs["here"] == "offline"
    card = page.split('<article class="artefact" id="blobs">')[1].split("</article>")[0]
    assert "licence: CC0 (generated for the randml README example)" in card  # the card's licence
    assert "citation: not stated in the card" in card  # the card gives none
    assert "Two Gaussian blobs in 4 dimensions" in card and "blobs.yaml" in card
    heart = page.split('<article class="artefact" id="heart">')[1].split("</article>")[0]
    assert "Statlog (Heart)" in heart and "UCI Machine Learning Repository" in heart  # a shipped card's citation
    assert "datasets/README.md" not in page and len(page) < 20_000


def test_statistics_fit_two_datasets(built):
    """6 models on 2 datasets: the Friedman test cannot reach p < 0.05 (it needs 3) and the Nemenyi CD (5.33) exceeds
    k - 1 = 5, so the report draws no CD diagram and the page shows no ranks or pairwise table; each says why in one
    line."""
    _, out, site, _ = built
    stats = (out / "tables" / "mine_stats.md").read_text()
    assert "### Comparison of 6 models on 2 datasets" in stats and "mine_cd.png" not in stats
    assert "No CD diagram: with 2 datasets the Nemenyi CD (5.3" in stats
    assert not (out / "figures").exists()  # no figure at all, and the overview links no figures folder
    page = (site / "mine.html").read_text()
    assert "mine_cd" not in page and not (site / "heatmaps").exists()
    section = page.split('id="statistics"')[1].split('id="provenance"')[0]
    assert "Not shown: on 2 datasets no difference between 6 models can be significant" in section
    assert "average rank" not in section and "Wilcoxon" not in section


def test_build_without_markdown_it_names_the_extra(built):
    root, out, _, env = built
    code = ("import runpy, sys; sys.modules['markdown_it'] = None; "
            f"sys.argv = ['randml_core.site', 'build', '--results', {str(out)!r}, '--out', {str(root / 'nomd')!r}]; "
            "runpy.run_module('randml_core.site', run_name='__main__', alter_sys=True)")
    res = _run(["-c", code], root, env)
    assert res.returncode == 2, res.stderr[-2000:]
    assert "markdown-it-py" in res.stderr and "pip install 'randml[site]'" in res.stderr
    assert "Traceback" not in res.stderr and not (root / "nomd").exists()
