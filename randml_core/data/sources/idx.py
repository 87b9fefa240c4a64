"""LeCun's IDX files (e.g. Debian's ``dataset-fashion-mnist`` package): the reader and an optional
offline source. The defaults are Fashion-MNIST's Debian layout; data the machine may or may not have,
so the source is ``system`` data (hidden when ``RANDML_SYSTEM_DATA=0``)."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np

from ..checks import DataValidationError
from .base import LoadResult, Source, SourceUnavailableError, system_data_enabled

FASHION_DEBIAN_DIR = "/usr/share/datasets/fashion-mnist"
FASHION_FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                 "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")

# IDX element types (LeCun's format): code -> big-endian numpy dtype
_IDX_DTYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path) -> np.ndarray:
    """Parse an IDX file (gzip-compressed if the name ends in ``.gz``) into an array.

    Layout: two zero bytes, one type byte (0x08 = unsigned byte, ...), one byte ``ndim``, then
    ``ndim`` big-endian uint32 dimensions, then the data in row-major order. Raises
    :class:`DataValidationError` for a bad magic number or a size that does not match the header.
    """
    path = Path(path)
    raw = gzip.open(path, "rb").read() if path.name.endswith(".gz") else path.read_bytes()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise DataValidationError(f"'{path}' is not an IDX file (magic bytes {raw[:4]!r})")
    ndim = raw[3]
    head = 4 + 4 * ndim
    dims = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    dtype = np.dtype(_IDX_DTYPES[raw[2]])
    n = int(np.prod(dims)) if dims else 1
    if len(raw) != head + n * dtype.itemsize:
        raise DataValidationError(f"'{path}': header says {dims} x {dtype.itemsize} bytes, file holds "
                                  f"{len(raw) - head} data bytes (truncated or corrupt)")
    return np.frombuffer(raw, dtype=dtype, count=n, offset=head).reshape(dims).astype(dtype.newbyteorder("="))


def read_idx_pair(images, labels) -> tuple[np.ndarray, np.ndarray]:
    """Images (n, 28, 28) and labels (n,) of one IDX pair -> ``X`` (n, 784) float64, ``y`` int64."""
    img, lab = read_idx(images), read_idx(labels)
    if img.ndim < 2 or lab.ndim != 1 or img.shape[0] != lab.shape[0]:
        raise DataValidationError(f"IDX pair '{images}' {img.shape} / '{labels}' {lab.shape} do not match")
    return img.reshape(img.shape[0], -1).astype(np.float64), lab.astype(np.int64)


class IDXSource(Source):
    """Train + test IDX gz files in one directory (Debian ``dataset-fashion-mnist``): rows are the
    training images then the test images. ``directory=None`` = ``$RANDML_FASHION_MNIST_DIR`` or
    ``/usr/share/datasets/fashion-mnist`` (resolved at call time). Optional: never required."""

    kind = "offline-debian"
    system = True

    def __init__(self, directory=None, files=FASHION_FILES, package: str = "dataset-fashion-mnist",
                 install_hint: str = ""):
        self.directory = directory
        self.files = tuple(files)
        self.package = package
        #: how the benchmark that declares this source installs the package (e.g. its make target), for the
        #: message of a missing copy; empty: only the apt-get command
        self.install_hint = install_hint

    def path(self) -> Path:
        d = self.directory or os.environ.get("RANDML_FASHION_MNIST_DIR") or FASHION_DEBIAN_DIR
        return Path(d)

    def describe(self) -> str:
        return f"Debian `{self.package}` IDX files in {self.path()} (offline, optional)"

    def summary(self) -> str:
        return f"Debian `{self.package}` IDX files (offline, optional)"

    def available(self) -> bool:
        default = self.directory is None and not os.environ.get("RANDML_FASHION_MNIST_DIR")
        if default and not system_data_enabled():  # the machine's Debian copy is hidden (RANDML_SYSTEM_DATA=0)
            return False
        return all((self.path() / f).is_file() for f in self.files)

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        if not self.available():
            hint = f" ({self.install_hint})" if self.install_hint else ""
            raise SourceUnavailableError(
                f"dataset {name!r}: the IDX files {', '.join(self.files)} are not in {self.path()}; fix: "
                f"`apt-get install {self.package}`{hint} or use the OpenML copy (make data)")
        d = self.path()
        Xtr, ytr = read_idx_pair(d / self.files[0], d / self.files[1])
        Xte, yte = read_idx_pair(d / self.files[2], d / self.files[3])
        return LoadResult(np.vstack([Xtr, Xte]), np.concatenate([ytr, yte]), self.kind, self.describe(),
                          notes=f"IDX: {Xtr.shape[0]} training then {Xte.shape[0]} test images")
