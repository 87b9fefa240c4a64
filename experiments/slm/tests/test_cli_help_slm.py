"""`randml model list` on SLM's regression model configs (moved from tests/test_cli_help.py, which checks the
engine's)."""
import warnings

from randml_core import cli


def _model_list(monkeypatch, capsys):
    """``randml model list`` in this process (as tests/test_cli_help.py runs it): its rows by name, its output."""
    def no_hydra(*a, **k):
        raise AssertionError("a Hydra app was started")
    monkeypatch.setattr(cli, "_hydra", no_hydra)
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # main() installs its own
    try:
        cli.main(["model", "list"])
        code = 0
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr().out
    assert code == 0
    return {line.split()[0]: line.split() for line in out.splitlines()[1:] if line and not line[0].isdigit()}, out


def test_model_list_names_slm_regressors(monkeypatch, capsys):
    rows, out = _model_list(monkeypatch, capsys)
    assert rows["slm_dt_reg"][1:] == ["slr_dt", "regression", "1", "1"]
    regression = out.split("regression: ", 1)[1].split(" (", 1)[0].split(", ")
    assert "slm_dt_reg" in regression and "slm_xgb_reg" in regression and "logreg" not in regression
