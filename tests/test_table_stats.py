"""Statistics of committed paper tables: the score matrix is read from either table form, and the
written section's ranks and Friedman statistic equal an independent computation."""
import numpy as np
import pandas as pd
from scipy.stats import rankdata

from randml_core.report.table_stats import score_matrix_from_csv, write_stats


def _scores():
    rng = np.random.default_rng(3)
    return pd.DataFrame(rng.random((6, 3)), index=[f"d{i}" for i in range(6)], columns=["A", "B", "C"])


def test_both_table_forms_give_the_same_matrix(tmp_path):
    s = _scores()
    wide = s.rename(columns=lambda c: f"{c} mean").rename_axis("dataset").reset_index().assign(note="")
    wide.to_csv(tmp_path / "wide.csv", index=False)
    long = s.rename_axis("dataset").reset_index().melt("dataset", var_name="model", value_name="ours")
    long.to_csv(tmp_path / "long.csv", index=False)
    for name in ("wide", "long"):
        m = score_matrix_from_csv(tmp_path / f"{name}.csv").loc[s.index, s.columns]
        np.testing.assert_allclose(m.to_numpy(), s.to_numpy())


def test_written_section_matches_hand_ranks_and_friedman(tmp_path):
    s = _scores()
    (tmp_path / "tables").mkdir()
    s.rename(columns=lambda c: f"{c} mean").rename_axis("dataset").reset_index().to_csv(
        tmp_path / "tables" / "tiny.csv", index=False)
    paths = write_stats("tiny", "gmean", "test", tmp_path)
    text = (tmp_path / "tables" / "tiny_stats.md").read_text()
    ranks = np.mean([rankdata(-row) for row in s.to_numpy()], axis=0)  # 1 = best (highest gmean)
    for model, r in zip(s.columns, ranks):
        assert f"| {model} | {r:.3f} |" in text
    n, k = s.shape
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(ranks ** 2) - k * (k + 1) ** 2 / 4)
    assert f"chi2_F = {chi2:.3f}" in text
    assert {p.suffix for p in paths} == {".md", ".png", ".pdf"}


def test_a_table_of_one_dataset_is_refused_with_the_reason(tmp_path):
    (tmp_path / "tables").mkdir()
    _scores().iloc[:1].rename(columns=lambda c: f"{c} mean").rename_axis("dataset").reset_index().to_csv(
        tmp_path / "tables" / "tiny.csv", index=False)
    write_stats("tiny", "accuracy", "test", tmp_path)
    text = (tmp_path / "tables" / "tiny_stats.md").read_text()
    assert "Not applicable" in text and ">= 2 datasets" in text
    assert not list(tmp_path.rglob("*.png"))  # no diagram for a comparison that does not apply


def test_committed_stats_are_those_of_the_committed_tables(tmp_path):
    """Every committed `<table>_stats.md` is what `make stats` computes from the committed `<table>.csv` today:
    a table re-run without `make stats` fails here (SLM Tables I / III and the unbalanced part were stale)."""
    import shutil

    from randml_core.report.table_stats import ROOT, TABLES
    tables = ROOT / "results" / "tables"
    (tmp_path / "tables").mkdir()
    checked = []
    for stem, (metric, what) in TABLES.items():
        committed = tables / f"{stem}_stats.md"
        if not (tables / f"{stem}.csv").exists() or not committed.exists():
            continue
        shutil.copy(tables / f"{stem}.csv", tmp_path / "tables" / f"{stem}.csv")
        write_stats(stem, metric, what, tmp_path)
        fresh = (tmp_path / "tables" / f"{stem}_stats.md").read_text()
        assert fresh == committed.read_text(), f"{committed.name} is stale: run `make stats` and commit it"
        checked.append(stem)
    assert len(checked) >= 5, checked  # the paper tables with several datasets are committed
