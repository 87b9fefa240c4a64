"""`randml model list` on EEM's own model config (moved from tests/test_cli_help.py, which checks the engine's)."""
from tests.test_cli_help import model_list_rows


def test_model_list_names_eem_binary_only_with_its_three_variants(monkeypatch, capsys):
    rows, _ = model_list_rows(monkeypatch, capsys)
    assert rows["eem"][1:] == ["eem", "binary", "3", "5"]  # binary only: EEM-sig/nsig/rbf, n_hidden x 5
