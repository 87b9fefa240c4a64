"""Every committed artefact that `make reports` rebuilds is what the code writes from the committed frames and
inputs: rebuilt into a copy of results/ from which those files were removed, each must come back byte for byte (a
hand edit, a stale file or an orphan no step writes fails here), and nothing is written that is not committed.
Machine-dependent files, the steps' inputs and the artefacts of experiments without a frame are listed in
scripts/reports.py (MACHINE_DEPENDENT, INPUTS, kept) and left in place."""
import shutil
import subprocess

import pytest

from conftest import REPO


@pytest.fixture(scope="module")
def reports(script):
    return script("reports")


@pytest.fixture(scope="module")
def script():
    import importlib.util

    def load(name):
        spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    return load


def _committed(rel_root="results"):
    out = subprocess.run(["git", "ls-files", rel_root], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line]


def test_make_reports_rewrites_every_committed_artefact_byte_for_byte(reports, tmp_path):
    committed = _committed()
    if not committed:
        pytest.skip("not a git checkout")
    copy = tmp_path / "results"
    shutil.copytree(REPO / "results", copy, ignore=shutil.ignore_patterns("store", "logs", "scratch", "multirun"))
    for p in copy.rglob("*.meta.json"):  # sidecars (gitignored) of this machine's earlier runs
        p.unlink()
    # every committed file a rebuild should write is removed from the copy first: one that does not come back is
    # written by no step (an orphan: a renamed or dropped artefact, or an input scripts/reports.py does not name)
    expected = [rel for rel in committed if reports.kept(rel[len("results/"):]) is None]
    for rel in expected:
        (tmp_path / rel).unlink()
    assert reports.run(copy, quiet=True) == 0
    orphans = [rel for rel in expected if not (tmp_path / rel).is_file()]
    assert not orphans, f"committed files that no step of `make reports` writes: {orphans}"
    rebuilt = {str(p.relative_to(tmp_path)) for p in copy.rglob("*") if p.is_file() and not p.name.endswith(".meta.json")}
    # the site links the repository's config files relative to itself: from the copy, the same files are reached
    # by another relative path (the only difference a copy elsewhere makes; replaced before comparing)
    import os
    away = os.path.relpath(REPO, copy / "site") + "/"

    def rebuilt_bytes(rel):
        data = (tmp_path / rel).read_bytes()
        return data.replace(f'href="{away}'.encode(), b'href="../../') if rel.startswith("results/site/") else data
    differ = [rel for rel in committed if not reports.machine_dependent(rel[len("results/"):])
              and rebuilt_bytes(rel) != (REPO / rel).read_bytes()]
    extra = rebuilt - set(committed) - {r for r in rebuilt if reports.machine_dependent(r[len("results/"):])}
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=REPO, input="\n".join(extra),
                             capture_output=True, text=True).stdout.split()  # logs, locks, sidecars: gitignored
    extra = sorted(extra - set(ignored))
    assert not differ, f"committed files that `make reports` does not reproduce: {differ}"
    assert not extra, f"files `make reports` writes that are not committed: {extra}"


def test_the_frames_stay_within_their_budget():
    """results/frames/ at most 80 MB in all (the brief), every other committed file at most 5 MB."""
    sizes = {rel: (REPO / rel).stat().st_size for rel in _committed(".") if (REPO / rel).is_file()}
    frames = sum(s for rel, s in sizes.items() if rel.startswith("results/frames/"))
    assert frames <= 80e6
    big = {rel: s for rel, s in sizes.items() if s > 5e6 and not rel.startswith("results/frames/")}
    assert not big


def test_the_readmes_frame_table_says_each_frames_rows_and_size():
    """README's table of committed frames names every frame with the experiments its provenance holds, its row count
    and its size to 0.01 MB (a frame exported again without the table following fails here)."""
    import re

    import pyarrow.parquet as pq
    from randml_core.frames import provenance
    rows = {m.group(1): m.groups()[1:] for m in re.finditer(
        r"^\| `([\w.-]+\.parquet)` \| ([^|]+) \| ([\d,]+) \| ([\d.]+) MB \|", (REPO / "README.md").read_text(), re.M)}
    committed = sorted((REPO / "results" / "frames").glob("*.parquet"))
    assert committed and sorted(rows) == [p.name for p in committed]
    total = 0.0
    for path in committed:
        experiments, n, size = rows[path.name]
        assert [e.strip() for e in experiments.split(",")] == sorted(provenance(path)["experiments"]), path.name
        assert int(n.replace(",", "")) == pq.ParquetFile(path).metadata.num_rows, path.name
        assert abs(float(size) - path.stat().st_size / 1e6) < 0.006, path.name
        total += path.stat().st_size / 1e6
    said = re.search(r"The committed frames \(([\d.]+) MB in all", (REPO / "README.md").read_text())
    assert said and abs(float(said.group(1)) - total) < 0.006
