"""Where EEM's datasets live (moved from tests/test_data_layout.py and tests/test_cards.py, which check the engine's
data layer on any benchmark): its Python specs are registered by three modules of its own folder, listed first and
in their tables' order, with their generated cards in its conf/dataset."""
from pathlib import Path

import randml_papers.eem as eem
from randml_core import data
from randml_core.data import registry
from randml_core.data.registry import python_specs
from tests.test_data_layout import benchmark_tables


def test_eem_tables_live_in_its_folder_with_their_cards():
    assert benchmark_tables("randml_papers.eem") == (
        {"randml_papers.eem.datasets", "randml_papers.eem.shared_sets", "randml_papers.eem.unbalanced"},
        Path(eem.__file__).parent / "conf" / "dataset")
    uci = [s.name for s in python_specs() if registry.origin_of(s.name) == "randml_papers.eem.datasets"]
    assert uci[:9] == data.list_datasets("eem", group="uci")  # EEM's Table 3 UCI part, table order
    names = data.list_datasets()
    assert names.index("australian") == 0 and names.index("iris") < names.index("abalone7")
