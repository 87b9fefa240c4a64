"""Where SLM's datasets live (moved from tests/test_data_layout.py and tests/test_cards.py, which check the engine's
data layer on any benchmark): its table in its own folder, with its generated cards; its file-fetch source the
engine's; its registered generator named by a user's card gives its shipped data."""
from pathlib import Path

import randml_papers.slm as slm
from randml_core.data.sources import sklearn_fetch
from randml_papers.slm import datasets as slm_datasets
from tests.test_cards import card_gives_the_data_of
from tests.test_data_layout import benchmark_tables


def test_slm_tables_live_in_its_folder_with_their_cards():
    assert benchmark_tables("randml_papers.slm") == (
        {"randml_papers.slm.datasets"}, Path(slm.__file__).parent / "conf" / "dataset")


def test_slm_fetches_files_with_the_engines_source():
    assert slm_datasets.SklearnFileFetchSource is sklearn_fetch.SklearnFileFetchSource


def test_a_card_naming_slms_moons_generator_gives_the_shipped_2_new_moons(tmp_path):
    card_gives_the_data_of(tmp_path / "conf", "my-moons",
                           "{kind: generated, generator: 'randml_papers.slm.generators:two_new_moons', "
                           "args: {n_per_class: 500, noise: 0.3, seed: 0}}", "2-new-moons")
