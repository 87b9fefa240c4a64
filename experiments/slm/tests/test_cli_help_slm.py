"""`randml model list` on SLM's regression model configs (moved from tests/test_cli_help.py, which checks the
engine's)."""
from tests.test_cli_help import model_list_rows


def test_model_list_names_slm_regressors(monkeypatch, capsys):
    rows, out = model_list_rows(monkeypatch, capsys)
    assert rows["slm_dt_reg"][1:] == ["slr_dt", "regression", "1", "1"]
    regression = out.split("regression: ", 1)[1].split(" (", 1)[0].split(", ")
    assert "slm_dt_reg" in regression and "slm_xgb_reg" in regression and "logreg" not in regression
