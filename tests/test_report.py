"""Selection rules and table writers on hand-made frames."""
import numpy as np
import pandas as pd
import pytest

from randml_core.report.tables import Table, select_best, select_by_criterion, select_nested


def frame():
    rows = []
    # dataset d, model M, two settings; outer folds 0..2, inner folds 0..1 per outer fold
    scores = {"A": [0.9, 0.7, 0.8], "B": [0.6, 0.95, 0.85]}   # A mean 0.8, B mean 0.8
    inner = {"A": {0: 0.9, 1: 0.5, 2: 0.7}, "B": {0: 0.4, 1: 0.8, 2: 0.6}}
    crit = {"A": [1.0, 3.0, 0.5], "B": [2.0, 1.0, 0.7]}
    for p in ("A", "B"):
        for f in range(3):
            rows.append(dict(dataset="d", model="M", params_json=p, repeat=0, fold=f, inner_fold=-1,
                             gmean=scores[p][f], status="ok", converged=True, x_c=crit[p][f]))
            for i in range(2):
                rows.append(dict(dataset="d", model="M", params_json=p, repeat=0, fold=f, inner_fold=i,
                                 gmean=inner[p][f], status="ok", converged=True, x_c=np.nan))
    return pd.DataFrame(rows)


def test_select_best_ties_go_to_first_params_and_std_is_over_folds():
    s = select_best(frame()).iloc[0]
    assert s["params_json"] == "A" and s["mean"] == pytest.approx(0.8)
    assert s["std"] == pytest.approx(np.std([0.9, 0.7, 0.8], ddof=1)) and s["n_folds"] == 3


def test_select_best_skips_settings_with_failed_folds():
    f = frame()
    f.loc[(f.params_json == "A") & (f.fold == 1) & (f.inner_fold == -1), ["status", "gmean"]] = ["failed", np.nan]
    s = select_best(f).iloc[0]
    assert s["params_json"] == "B" and s["mean"] == pytest.approx(0.8)


def test_nested_selection_uses_inner_folds_per_outer_fold():
    s = select_nested(frame()).iloc[0]
    # fold 0 picks A (0.9 > 0.4) -> 0.9; fold 1 picks B (0.8 > 0.5) -> 0.95; fold 2 picks A (0.7 > 0.6) -> 0.8
    assert s["mean"] == pytest.approx(np.mean([0.9, 0.95, 0.8])) and s["n_folds"] == 3


def test_nested_selection_names_skipped_and_failed_models_as_select_best_does():
    f = frame()
    skipped = f.assign(model="S", status="skipped", gmean=np.nan)          # every row skipped by rule
    failed = f.assign(model="F", status="failed", gmean=np.nan)            # every row failed
    full = pd.concat([f, skipped, failed], ignore_index=True)
    for pick in (select_best(full), select_nested(full)):
        by = pick.set_index("model")
        assert bool(by.loc["S", "skipped"]) and by.loc["S", "n_folds"] == 0
        # n_failed counts the outer rows not ok (2 settings x 3 folds), as select_best does
        assert not bool(by.loc["F", "skipped"]) and by.loc["F", "n_folds"] == 0 and by.loc["F", "n_failed"] == 6
        assert not bool(by.loc["M", "skipped"]) and by.loc["M", "n_folds"] == 3
        t = Table("T", ["d"], ["M", "S", "F"], pick, {}, [], skipped_text="not run (skipped by rule)")
        assert t.cell_text("d", "S") == "not run (skipped by rule)"
        assert t.cell_text("d", "F") == "failed (6 cells)"


def test_criterion_selection_per_fold():
    s = select_by_criterion(frame(), "x_c").iloc[0]
    # fold 0: B (2.0) -> 0.6; fold 1: A (3.0) -> 0.7; fold 2: B (0.7) -> 0.85
    assert s["mean"] == pytest.approx(np.mean([0.6, 0.7, 0.85]))


def test_table_marks_best_and_notes_missing_data(tmp_path):
    summary = pd.DataFrame([
        dict(dataset="d", model="X", mean=0.81234, std=0.05, n_folds=10, n_failed=0, n_bounded=0, params_json="{}"),
        dict(dataset="d", model="Y", mean=0.7, std=0.01, n_folds=10, n_failed=2, n_bounded=0, params_json="{}")])
    t = Table("T", ["d", "e"], ["X", "Y"], summary, {"e": "needs download: `make data`"}, ["footer line"], stamp="abc")
    md = t.to_markdown()
    assert "| d | **0.812 ± 0.050** | 0.700 ± 0.010 (2 failed) |" in md
    assert "| e | needs download: `make data` | needs download: `make data` |" in md
    assert "- footer line" in md
    paths = t.write(tmp_path / "t")
    csv = pd.read_csv(paths[1])
    assert csv.loc[0, "best"] == "X" and "generated_by" not in csv.columns  # volatile: in the sidecar
    assert "\\textbf{0.812 $\\pm$ 0.050}" in paths[2].read_text()


def test_cell_counts_keeps_skipped_apart_from_failed():
    import pandas as pd
    from randml_core.report.tables import cell_counts
    frame = pd.DataFrame({"status": ["ok", "ok", "skipped", "failed", "skipped"]})
    assert cell_counts(frame, 5) == "Failed cells: 1; skipped by rule: 2; cells stored 5 of 5 planned."
    assert cell_counts(frame.iloc[:2], 5).endswith("cells stored 2 of 5 planned (INCOMPLETE).")
    assert cell_counts(pd.DataFrame(), 3).startswith("Failed cells: 0; skipped by rule: 0;")


def test_grid_edge_flags_name_settings_on_an_edge_of_a_numeric_axis():
    import pandas as pd
    from randml_core.config import Variant
    from randml_core.report.tables import grid_edge_flags
    v = Variant("M", "svm", {}, {"C": [0.1, 1.0, 10.0], "gamma": [0.5, 1.0], "kind": ["a", "b", "c"]})
    summary = pd.DataFrame({"dataset": ["d1", "d2", "d3"], "model": ["M", "M", "M"],
                            "params_json": ['{"C": 10.0, "gamma": 0.5, "kind": "a"}', '{"C": 1.0, "gamma": 1.0}', None]})
    # C=10 is the top of its 3-value axis; gamma has 2 values (every choice is an edge: not flagged); strings ignored
    assert grid_edge_flags(summary, [v]) == ["d1 / M: C=10 (grid 0.1..10)"]


def test_grid_edge_counts_count_the_splits_whose_pick_is_on_an_edge():
    import pandas as pd
    from randml_core.config import Variant
    from randml_core.report.tables import grid_edge_counts
    v = Variant("M", "svm", {}, {"depth": [8, 2, 4], "lr": [0.1, 0.3]})
    picks = pd.DataFrame({"dataset": ["d1"] * 4 + ["d2"] * 2, "model": ["M"] * 6, "params_json": [
        '{"depth": 2, "lr": 0.3}', '{"depth": 2, "lr": 0.1}', '{"depth": 8, "lr": 0.3}', '{"depth": 4, "lr": 0.3}',
        '{"depth": 4, "lr": 0.1}', '{"depth": 4, "lr": 0.3}']})
    # d1: depth at 2 on two splits and at 8 on one of four (grid sorted); d2 always inside; lr has 2 values: not flagged
    assert grid_edge_counts(picks, [v]) == ["d1 / M: depth at a grid edge (2 on 2, 8 on 1 of 4 splits; grid 2, 4, 8)"]
    assert len(grid_edge_counts(picks, [v], min_values=2)) == 3  # lr too, on d1 and d2 (both its values are edges)


def test_complete_models_are_those_scored_on_every_dataset():
    from randml_core.report.comparison import selected
    from randml_core.report.generic import complete_models
    rows = []
    for d in ("d1", "d2", "d3"):
        for m in ("M1", "M2", "M3"):
            skip = m == "M3" and d != "d1"  # a binary-only model on two multiclass sets
            for f in range(3):
                rows.append(dict(dataset=d, model=m, params_json="{}", repeat=0, fold=f, inner_fold=-1,
                                 gmean=np.nan if skip else 0.5 + 0.1 * f, converged=True,
                                 status="skipped" if skip else "ok"))
    f = pd.DataFrame(rows)
    pick = selected(f, "gmean", "best_mean")
    assert complete_models(pick, ["M1", "M2", "M3"]) == ["M1", "M2"]
    assert complete_models(pick, ["M1", "M2"]) == []          # nothing dropped
    assert complete_models(pick, ["M1", "M3"]) == []          # 1 complete model
    assert complete_models(pick[pick.model != "M3"], ["M1", "M2", "M3"]) == []


def test_features_line_follows_the_configured_preprocessing():
    """Report footers keep their own words for the defaults (min-max, rows as published) and state any other
    configured preprocessing instead of claiming min-max."""
    from randml_core.preprocess import DUPLICATES, PREPROCESSINGS
    from randml_core.report.tables import features_line
    usual = "Features min-max scaled."
    assert features_line({}, usual) == usual
    assert features_line({"preprocessing": "minmax", "duplicates": "keep"}, usual) == usual
    assert features_line({"preprocessing": "standard"}, usual) == f"Features: {PREPROCESSINGS['standard']}."
    assert features_line({"preprocessing": "none"}, usual) == "Features: none (features as loaded)."
    dropped = features_line({"duplicates": "drop"}, usual)
    assert dropped.startswith(f"Features: {PREPROCESSINGS['minmax']}") and DUPLICATES["drop"] in dropped


def test_features_line_default_other_than_minmax():
    """A report whose experiment standardises (MeMd Table II) keeps its words for standardisation and states
    min-max when the config asks for it."""
    from randml_core.report.tables import features_line
    usual = "Features standardised on the training fold."
    assert features_line({"preprocessing": "standard"}, usual, default="standard") == usual
    assert features_line({}, usual, default="standard") == "Features: minmax[0,1] fitted on the training part."


def test_comparison_of_two_models_says_once_why_there_is_no_cd_diagram(tmp_path):
    from randml_core.report.comparison import comparison_section
    pick = pd.DataFrame({"dataset": ["a", "a", "b", "b", "c", "c"], "model": ["X", "Y"] * 3,
                         "mean": [0.9, 0.8, 0.7, 0.75, 0.6, 0.5], "params_json": ["{}"] * 6})
    text, paths = comparison_section(pd.DataFrame(), "gmean", tmp_path / "cd", "t", pick=pick)
    assert paths == [] and "\nNo CD diagram: the Friedman test and the Nemenyi critical difference need >= 3 " \
                             "models, got 2" in text
    assert text.count("no CD diagram") + text.count("No CD diagram") == 1
    assert "(the papers' rule)" in text


def test_a_committed_report_from_a_store_without_its_cells_refuses_and_keeps_the_snapshot(compose, tmp_path):
    """`make report` before `make table4`, or a wrong store_dir / $RANDML_STORE, turned the committed tables into
    'not run' cells (and exited 0). Now: a StoreError and the files untouched; the same report into the scratch
    folder is allowed, and so is a plan whose every set needs a download (no cells to look for)."""
    from randml_core.report import build_report, scratch_dir
    from randml_core.store import StoreError
    spec = compose("experiment=tiny")  # heart 9 + wine 9 settings (2 skipped by rule) a fold, 3 folds: 54 cells
    snapshot = tmp_path / "res" / "tables" / "tiny.md"
    snapshot.parent.mkdir(parents=True)
    snapshot.write_text("committed numbers\n")
    with pytest.raises(StoreError, match=r"has none of the 54 cells of 'tiny'.*left as they are.*randml run "
                                         r"experiment=tiny"):
        build_report(spec, str(tmp_path / "empty"), str(tmp_path / "res"), committed=True)
    assert snapshot.read_text() == "committed numbers\n" and len(list(snapshot.parent.iterdir())) == 1
    paths = build_report(spec, str(tmp_path / "empty"), str(tmp_path / "res"), committed=False)
    assert paths and all(scratch_dir(tmp_path / "res", "tiny") in p.parents for p in paths)
    offline = compose("experiment=tiny", "experiment.datasets=[arrhythmia]")  # online only, not cached in tests
    assert build_report(offline, str(tmp_path / "empty"), str(tmp_path / "res2"), committed=True)


def test_a_committed_report_from_a_partial_store_goes_to_scratch_and_keeps_the_snapshot(compose, tmp_path, capsys):
    """`make table4 PROFILE=quick && make report` rewrote the committed tables from 4,320 of 94,230 cells with a
    believable number in every cell. A snapshot is written only from a complete set: the partial report goes to the
    scratch folder with one line naming N of M cells, and the committed files keep their bytes."""
    from randml_core.report import build_report, scratch_dir
    from randml_core.runner import run
    run(compose("experiment=tiny", "dataset=heart"), str(tmp_path / "store"), n_jobs=1, progress=False)
    snapshot = tmp_path / "res" / "tables" / "tiny.md"
    snapshot.parent.mkdir(parents=True)
    snapshot.write_bytes(b"committed numbers\n")
    capsys.readouterr()
    paths = build_report(compose("experiment=tiny"), str(tmp_path / "store"), str(tmp_path / "res"), committed=True)
    err = capsys.readouterr().err
    assert "randml report: tiny: 27 of 54 cells stored: the artefacts go to the scratch folder" in err
    assert snapshot.read_bytes() == b"committed numbers\n"
    assert paths and all(scratch_dir(tmp_path / "res", "tiny") in p.parents for p in paths)
    run(compose("experiment=tiny"), str(tmp_path / "store"), n_jobs=1, progress=False)  # complete: the snapshot
    paths = build_report(compose("experiment=tiny"), str(tmp_path / "store"), str(tmp_path / "res"), committed=True)
    assert snapshot.read_bytes() != b"committed numbers\n" and snapshot in paths
