"""scripts/time_profile.py: per-model / per-dataset compute shares on a hand-worked frame."""

import numpy as np
import pandas as pd


def test_shares_and_task_seconds_are_hand_worked(script):
    mod = script("time_profile")
    # two tasks on "a" (outer fold 0, inner fold 0 of it) and one on "b"; task seconds repeat on every row
    f = pd.DataFrame({
        "dataset": ["a", "a", "a", "a", "b", "b"],
        "model": ["M", "N", "M", "N", "M", "N"],
        "repeat": [0] * 6, "fold": [0, 0, 0, 0, 0, 0], "inner_fold": [-1, -1, 0, 0, -1, -1],
        "fit_seconds": [1.0, 3.0, 0.5, 1.5, 2.0, np.nan],  # a failed fit stores no time: counts as 0
        "predict_seconds": [0.0, 1.0, 0.0, 0.0, 1.0, 0.0],
        "task_seconds": [5.0, 5.0, 2.5, 2.5, 4.0, 4.0],
    })
    by_model, by_dataset = mod.profile_tables(f)
    # compute: M = 1 + 0.5 + 3 = 4.5, N = 4 + 1.5 + 0 = 5.5, total 10
    assert by_model.index.tolist() == ["N", "M"]
    np.testing.assert_allclose(by_model.loc[["M", "N"], "seconds"], [4.5, 5.5])
    np.testing.assert_allclose(by_model.loc[["M", "N"], "share"], [0.45, 0.55])
    assert by_model.loc["M", "cells"] == 3
    # datasets: a = 1 + 4 + 0.5 + 1.5 = 7 s of cells in 5 + 2.5 s of tasks; b = 3 s in 4 s
    np.testing.assert_allclose(by_dataset.loc[["a", "b"], "seconds"], [7.0, 3.0])
    np.testing.assert_allclose(by_dataset.loc[["a", "b"], "task_seconds"], [7.5, 4.0])
    text = mod.markdown("x", by_model, by_dataset, top=1)
    assert "| N | 3 | 5.5 s | 55.0% |" in text
    assert "| 1 other datasets | 2 | 3.0 s | 30.0% | 4.0 s |" in text
    assert "Total: 6 cells, 10.0 s of compute, 11.5 s of task time." in text
