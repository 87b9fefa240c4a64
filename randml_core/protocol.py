"""Evaluation protocols: which train/test splits a dataset gets.

Fold assignment depends only on (dataset name, repeat, seed): every model sees the same folds,
so results are paired. Seeds are derived with numpy's SeedSequence from the root seed and a
stable hash of the names, never shared between streams.

Duplicated rows (``experiment.duplicates``, passed to :meth:`Protocol.splits` with the features):

* ``keep`` (default): the rows as published; copies may land in the training and the test part.
* ``drop``: the splits are made on the de-duplicated data: the first row of each identical
  (features, label) pair is kept (``checks.duplicate_rows``); the folds index the loaded arrays
  but never contain a dropped row, so ``n_train`` / ``n_test`` show the drop. Copies of a feature
  row with *different* labels are all kept (one per label): there is no right label to choose,
  and dropping the whole group would change the class balance; the load warning counts them.
* ``group``: rows with identical features (whatever their labels) form a group that stays in one
  fold: scikit-learn's ``StratifiedGroupKFold`` (classification), ``GroupKFold`` (regression) and
  ``GroupShuffleSplit`` (holdout: the test fraction is then a fraction of the groups, not
  stratified); inner folds are grouped the same way. A dataset's fixed split cannot be regrouped.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import numpy as np

#: repeated_stratified_kfold / holdout stratify by class (plain folds / shuffles for regression);
#: "fixed" uses the dataset's own train/test split (``Dataset.test_index``), repeats vary the model
#: seed only; "full" trains on everything (analysis probes).
KINDS = ("repeated_stratified_kfold", "holdout", "fixed", "full")


def stable_int(*parts) -> int:
    """A platform-independent 32-bit integer from strings/ints (Python's hash() is salted)."""
    h = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(h[:4], "little")


def derive_seed(root: int, *parts) -> int:
    """Child seed of ``root`` for the named stream (dataset, repeat, fold, ...)."""
    ss = np.random.SeedSequence(entropy=int(root), spawn_key=tuple(stable_int(p) for p in parts))
    return int(ss.generate_state(1, dtype=np.uint32)[0] & 0x7FFFFFFF)


@dataclass(frozen=True)
class SplitSpec:
    repeat: int
    fold: int          # outer fold
    inner: int         # -1 for the outer split; >= 0 for an inner fold of nested CV
    split_seed: int
    model_seed: int
    train: np.ndarray  # None in a plan made with splits=False until drawn (plan.Plan.draw_splits)
    test: np.ndarray


@dataclass(frozen=True)
class Protocol:
    kind: str = "repeated_stratified_kfold"
    n_splits: int = 10
    repeats: int = 1
    seed: int = 0
    inner_splits: int = 0  # nested CV: inner stratified folds of each outer training part (0 = off)
    test_size: float = 0.4  # holdout only

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"protocol.kind={self.kind!r} is unknown; choose one of {KINDS}")
        if self.kind == "repeated_stratified_kfold" and self.n_splits < 2:
            raise ValueError(f"protocol.n_splits must be >= 2, got {self.n_splits}")
        if self.repeats < 1:
            raise ValueError(f"protocol.repeats must be >= 1, got {self.repeats}")

    def describe(self) -> str:
        if self.kind == "fixed":
            return (f"the dataset's fixed train/test split x {self.repeats} model seed(s)"
                    + (f", nested {self.inner_splits}-fold inner CV" if self.inner_splits else "")
                    + f", seed {self.seed}")
        if self.kind == "full":
            return f"whole dataset, no test split (analysis) x {self.repeats}, seed {self.seed}"
        if self.kind == "holdout":
            text = f"random {1 - self.test_size:.0%}/{self.test_size:.0%} train/test split (stratified by class for classification) x {self.repeats}"
        else:
            text = f"{self.n_splits}-fold CV (stratified by class for classification) x {self.repeats} repeat(s)"
        if self.inner_splits:
            text += f", nested {self.inner_splits}-fold inner CV for selection"
        return text + f", seed {self.seed}"

    def _n_outer(self, y, dataset: str, regression: bool, test_index) -> int:
        """The number of outer splits of an ungrouped protocol, after its own checks (no scikit-learn)."""
        if self.kind == "full":
            return 1
        if self.kind == "fixed":
            if test_index is None:
                raise ValueError(f"dataset {dataset!r} has no fixed train/test split (protocol.kind=fixed "
                                 "needs a dataset registered with test_last); use protocol=holdout60 or cv10")
            return 1
        if self.kind == "holdout":
            return 1
        if not regression:
            min_count = np.unique(y, return_counts=True)[1].min()
            if min_count < self.n_splits:
                raise ValueError(
                    f"dataset {dataset!r}: the smallest class has {min_count} samples, fewer than "
                    f"protocol.n_splits={self.n_splits}; some test folds would miss that class. "
                    f"Use protocol.n_splits<={min_count}.")
        return self.n_splits

    def _outer(self, y, dataset: str, repeat: int, regression: bool = False, test_index=None, groups=None):
        from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold, StratifiedShuffleSplit
        seed = derive_seed(self.seed, "split", dataset, repeat)
        if self.kind == "full":
            return seed, [(np.arange(len(y)), np.arange(0))]
        if groups is not None and self.kind != "fixed":
            return seed, self._grouped_outer(y, dataset, seed, regression, groups)
        self._n_outer(y, dataset, regression, test_index)
        if self.kind == "fixed":
            test = np.asarray(test_index)
            return seed, [(np.setdiff1d(np.arange(len(y)), test), test)]
        if self.kind == "holdout":
            cls = ShuffleSplit if regression else StratifiedShuffleSplit
            sss = cls(n_splits=1, test_size=self.test_size, random_state=seed)
            return seed, list(sss.split(np.zeros(len(y)), y))
        if regression:
            kf = KFold(n_splits=self.n_splits, shuffle=True, random_state=seed)
            return seed, list(kf.split(np.zeros(len(y))))
        skf = StratifiedKFold(n_splits=self.n_splits, shuffle=True, random_state=seed)
        return seed, list(skf.split(np.zeros(len(y)), y))

    def _grouped_outer(self, y, dataset: str, seed: int, regression: bool, groups):
        """Outer folds that keep each group of identical feature rows in one part."""
        from sklearn.model_selection import GroupKFold, GroupShuffleSplit, StratifiedGroupKFold
        if self.kind == "holdout":
            gss = GroupShuffleSplit(n_splits=1, test_size=self.test_size, random_state=seed)
            return list(gss.split(np.zeros(len(y)), y, groups))
        if regression:
            gkf = GroupKFold(n_splits=self.n_splits, shuffle=True, random_state=seed)
            return list(gkf.split(np.zeros(len(y)), y, groups))
        labels, code = np.unique(y, return_inverse=True)
        per_class = np.bincount(np.unique(np.stack([code.ravel(), groups], 1), axis=0)[:, 0], minlength=labels.size)
        k = int(per_class.min())
        if k < self.n_splits:
            fix = f"protocol.n_splits<={k} or " if k >= 2 else ""
            raise ValueError(
                f"dataset {dataset!r}: with experiment.duplicates=group the class {labels[per_class.argmin()].tolist()!r} "
                f"has {k} distinct feature rows, fewer than protocol.n_splits={self.n_splits}; some test folds would "
                f"miss that class. Use {fix}experiment.duplicates=drop or keep")
        sgkf = StratifiedGroupKFold(n_splits=self.n_splits, shuffle=True, random_state=seed)
        return list(sgkf.split(np.zeros(len(y)), y, groups))

    def layout(self, y, dataset: str, with_inner: bool = True, regression: bool = False, test_index=None,
               duplicates: str = "keep") -> list[SplitSpec] | None:
        """The SplitSpecs :meth:`splits` yields, with ``train`` and ``test`` left None: the same
        checks of this module and the same seeds, but no fold is drawn (scikit-learn is not
        imported). None when the layout depends on the drawn folds (``duplicates`` drop or group)."""
        if duplicates != "keep":
            return None
        y = np.asarray(y)
        n_outer = self._n_outer(y, dataset, regression, test_index)
        out = []
        for r in range(self.repeats):
            seed = derive_seed(self.seed, "split", dataset, r)
            for f in range(n_outer):
                out.append(SplitSpec(r, f, -1, seed, derive_seed(self.seed, "model", dataset, r, f, -1), None, None))
                if with_inner and self.inner_splits:
                    iseed = derive_seed(self.seed, "inner", dataset, r, f)
                    out += [SplitSpec(r, f, i, iseed, derive_seed(self.seed, "model", dataset, r, f, i), None, None)
                            for i in range(self.inner_splits)]
        return out

    def splits(self, y, dataset: str, with_inner: bool = True, regression: bool = False, test_index=None,
               X=None, duplicates: str = "keep"):
        """Yield every SplitSpec (outer folds, then their inner folds when nested). Regression
        targets get plain (unstratified) folds; ``test_index`` is the dataset's fixed test set.

        ``duplicates`` (``keep``, ``drop``, ``group``; see the module docstring) needs the features
        ``X`` unless it is ``keep``, which gives exactly the folds of earlier versions."""
        y = np.asarray(y)
        if duplicates == "keep":
            yield from self._splits(y, dataset, with_inner, regression, test_index)
            return
        if duplicates not in ("drop", "group"):
            raise ValueError(f"experiment.duplicates={duplicates!r} is unknown; choose one of keep, drop, group")
        if X is None:
            raise ValueError(f"dataset {dataset!r}: experiment.duplicates={duplicates} needs the features "
                             "(Protocol.splits(..., X=X))")
        from .data.checks import duplicate_rows

        dup = duplicate_rows(X, y)
        if duplicates == "group":
            if self.kind == "fixed":
                raise ValueError(f"dataset {dataset!r}: experiment.duplicates=group cannot regroup the dataset's "
                                 "fixed train/test split (protocol.kind=fixed); use experiment.duplicates=drop "
                                 "or keep, or protocol=cv10 / holdout60")
            yield from self._splits(y, dataset, with_inner, regression, test_index, dup.groups)
            return
        rows = dup.keep  # drop: split the de-duplicated rows, then index the loaded arrays
        local_test = None if test_index is None else np.flatnonzero(np.isin(rows, test_index))
        for s in self._splits(y[rows], dataset, with_inner, regression, local_test):
            yield replace(s, train=rows[s.train], test=rows[s.test])

    def _splits(self, y, dataset: str, with_inner: bool, regression: bool, test_index, groups=None):
        from sklearn.model_selection import GroupKFold, KFold, StratifiedGroupKFold, StratifiedKFold
        for r in range(self.repeats):
            seed, folds = self._outer(y, dataset, r, regression, test_index, groups)
            for f, (tr, te) in enumerate(folds):
                yield SplitSpec(r, f, -1, seed, derive_seed(self.seed, "model", dataset, r, f, -1), tr, te)
                if with_inner and self.inner_splits:
                    iseed = derive_seed(self.seed, "inner", dataset, r, f)
                    if groups is None:
                        cls = KFold if regression else StratifiedKFold
                        skf = cls(n_splits=self.inner_splits, shuffle=True, random_state=iseed)
                        inner = skf.split(np.zeros(len(tr)), y[tr])
                    else:
                        cls = GroupKFold if regression else StratifiedGroupKFold
                        skf = cls(n_splits=self.inner_splits, shuffle=True, random_state=iseed)
                        inner = skf.split(np.zeros(len(tr)), y[tr], groups[tr])
                    for i, (itr, ite) in enumerate(inner):
                        yield SplitSpec(r, f, i, iseed, derive_seed(self.seed, "model", dataset, r, f, i),
                                        tr[itr], tr[ite])
