"""Where ELM boosting's datasets live (moved from tests/test_data_layout.py and tests/test_cards.py, which check
the engine's data layer on any benchmark): its table in its own folder, with its generated cards, and its IDX
reader the engine's."""
from pathlib import Path

import randml_papers.elmboost as elmboost
from randml_core.data.sources import idx
from randml_papers.elmboost import datasets as elmboost_datasets
from tests.test_data_layout import benchmark_tables


def test_elmboost_tables_live_in_its_folder_with_their_cards():
    assert benchmark_tables("randml_papers.elmboost") == (
        {"randml_papers.elmboost.datasets"}, Path(elmboost.__file__).parent / "conf" / "dataset")


def test_elmboost_reads_idx_with_the_engines_source():
    assert elmboost_datasets.IDXSource is idx.IDXSource and elmboost_datasets.read_idx is idx.read_idx
