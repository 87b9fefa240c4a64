"""imbalanced-learn's benchmark (Ding 2011) from its zenodo archive, cached as checksummed ``.npz`` files."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import zlib
from pathlib import Path

import numpy as np

from ..checks import hash_arrays
from .base import (FIX_CACHE, CorruptCacheError, LoadResult, Source, SourceUnavailableError, _atomic_file,
                   check_network, download_failed, imbalanced_cache_dir, offline_mode)


#: The archive imbalanced-learn's ``fetch_datasets`` downloads (Ding's benchmark, zenodo record 61452).
ZENODO_URL = "https://zenodo.org/record/61452/files/benchmark-imbalanced-learn.tar.gz"
ZENODO_ARCHIVE = "benchmark-imbalanced-learn.tar.gz"
ZENODO_CACHE_FORMAT = "randml-zenodo-imbalanced-npz/1"
#: Keys of the benchmark in the order of imbalanced-learn's ID column (Ding 2011): archive member
#: ``x<i>data.npz`` holds key number ``i`` (1-based), with arrays ``data`` and ``label`` (-1/+1).
ZENODO_KEYS = (
    "ecoli", "optical_digits", "satimage", "pen_digits", "abalone", "sick_euthyroid", "spectrometer",
    "car_eval_34", "isolet", "us_crime", "yeast_ml8", "scene", "libras_move", "thyroid_sick",
    "coil_2000", "arrhythmia", "solar_flare_m0", "oil", "car_eval_4", "wine_quality", "letter_img",
    "yeast_me2", "webpage", "ozone_level", "mammography", "protein_homo", "abalone_19",
)
_ZENODO_MEMBERS = {f"x{i + 1}data.npz": key for i, key in enumerate(ZENODO_KEYS)}
_DOWNLOAD_TIMEOUT = 60  # seconds without data before urlopen gives up


def _check_benchmark_arrays(data, label, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Structure of one benchmark set: 2-D numeric ``data``, 1-D ``label`` in {-1, +1}, +1 the minority."""
    data = np.asarray(data)
    label = np.asarray(label)
    problems = []
    if data.ndim != 2 or data.dtype.kind not in "biuf":
        problems.append(f"`data` is {data.ndim}-D of dtype {data.dtype}, expected 2-D numeric")
    if label.ndim != 1 or label.dtype.kind not in "biuf":
        problems.append(f"`label` is {label.ndim}-D of dtype {label.dtype}, expected 1-D numeric")
    elif data.ndim == 2 and label.shape[0] != data.shape[0]:
        problems.append(f"`data` has {data.shape[0]} rows but `label` has {label.shape[0]}")
    else:
        values, counts = np.unique(label, return_counts=True)
        if values.tolist() != [-1, 1]:
            problems.append(f"labels are {values.tolist()[:10]}, expected exactly -1 and +1")
        elif counts[1] >= counts[0]:
            problems.append(f"+1 ({counts[1]} rows) is not the minority class (-1: {counts[0]} rows)")
    if problems:
        raise CorruptCacheError(f"{where}: " + "; ".join(problems))
    return data, label.astype(np.int64)


class ZenodoImbalancedSource(Source):
    """One set of imbalanced-learn's benchmark (Ding 2011), from the zenodo archive, cached locally.

    The faithful copy of what ``imblearn.datasets.fetch_datasets()[key]`` returns, without
    imbalanced-learn: ``key`` is one of :data:`ZENODO_KEYS`. Labels are -1/+1 with +1 the
    minority class, so the registry maps +1 -> 1.

    Cache (``cache_dir`` defaults to :func:`imbalanced_cache_dir`, i.e. ``<cache root>/imbalanced``,
    honouring ``RANDML_DATA_CACHE``): ``<key>.npz`` with arrays ``data``, ``label`` (as in the
    archive) and ``meta``, a 0-d unicode JSON string (format ``ZENODO_CACHE_FORMAT``, key, archive
    member, url, archive sha256, extraction time (UTC), n, d, ``sha256`` = :func:`hash_arrays` of
    data and label). It is read with ``allow_pickle=False`` and the checksum is verified on every load.

    ``load()``: cache file present -> read and verify, never touching the network. Absent -> the
    archive ``<cache_dir>/benchmark-imbalanced-learn.tar.gz`` is used if present (a copy put there
    by hand works too); else, unless ``RANDML_OFFLINE=1`` (then :class:`SourceUnavailableError`
    naming ``make data``), it is downloaded with ``urllib.request.urlopen`` into a temp file and
    renamed into place. Every ``x<i>data.npz`` member is then checked (2-D numeric data, labels
    exactly {-1, +1}, +1 the minority) and written atomically as ``<key>.npz``. The archive is
    kept, so a deleted or corrupt ``.npz`` is rebuilt without a download. Members are read with
    ``tarfile.extractfile`` (nothing is extracted to a path named by the archive).
    """

    kind = "zenodo"
    online = True

    def __init__(self, key: str, cache_dir=None, url: str = ZENODO_URL):
        if key not in ZENODO_KEYS:
            raise ValueError(f"unknown imbalanced-learn benchmark key {key!r}; known: {', '.join(ZENODO_KEYS)}")
        self.key = key
        self.cache_dir = cache_dir
        self.url = url

    # -- locations
    def cache_root(self) -> Path:
        return Path(self.cache_dir) if self.cache_dir is not None else imbalanced_cache_dir()

    def cache_path(self) -> Path:
        return self.cache_root() / f"{self.key}.npz"

    def archive_path(self) -> Path:
        return self.cache_root() / ZENODO_ARCHIVE

    @property
    def member(self) -> str:
        return f"x{ZENODO_KEYS.index(self.key) + 1}data.npz"

    def describe(self) -> str:
        return (f"imbalanced-learn benchmark `{self.key}` (Ding 2011; zenodo record 61452 archive member "
                f"{self.member}) (online; cache {self.cache_path()})")

    def summary(self) -> str:
        return f"imbalanced-learn benchmark `{self.key}` (zenodo record 61452, member {self.member}) (online, cached)"

    def available(self) -> bool:
        return self.cache_path().is_file() or self.archive_path().is_file() or not offline_mode()

    # -- cache
    def _fix(self, path: Path) -> str:
        return f"fix: delete it (rm '{path}') and re-create it with {FIX_CACHE}"

    def read_cache(self, path: Path | None = None) -> tuple[np.ndarray, np.ndarray, dict]:
        path = Path(path) if path is not None else self.cache_path()
        fix = self._fix(path)
        try:
            with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
                data = np.ascontiguousarray(z["data"])
                label = np.ascontiguousarray(z["label"])
                meta = json.loads(str(z["meta"][()]))
        except FileNotFoundError:
            raise
        except Exception as exc:  # truncated zip, missing member, pickled arrays, bad JSON, ...
            raise CorruptCacheError(
                f"benchmark cache file '{path}' is corrupt or truncated ({type(exc).__name__}: {exc}); {fix}"
            ) from exc
        if not isinstance(meta, dict) or meta.get("format") != ZENODO_CACHE_FORMAT:
            raise CorruptCacheError(f"benchmark cache file '{path}' has no valid {ZENODO_CACHE_FORMAT} metadata; {fix}")
        if meta.get("key") != self.key:
            raise CorruptCacheError(f"benchmark cache file '{path}' holds key {meta.get('key')!r}, expected {self.key!r}; {fix}")
        digest = hash_arrays(data, label)
        if digest != meta.get("sha256"):
            raise CorruptCacheError(
                f"benchmark cache file '{path}' fails its checksum (stored {str(meta.get('sha256'))[:16]}..., "
                f"computed {digest[:16]}...); {fix}"
            )
        data, label = _check_benchmark_arrays(data, label, f"benchmark cache file '{path}' ({fix})")
        return data, label, meta

    def download(self, name: str = "<dataset>") -> Path:
        """Download the archive to ``archive_path()`` (atomically); returns the path."""
        path = self.archive_path()
        if offline_mode():
            raise SourceUnavailableError(
                f"dataset {name!r} needs imbalanced-learn's benchmark archive ({self.url}) but RANDML_OFFLINE=1 "
                f"and there is no cache file '{self.cache_path()}' nor archive '{path}'; fix: run {FIX_CACHE} "
                "on a machine with network access, or use an offline source"
            )
        import shutil
        import urllib.parse
        import urllib.request

        what, host = f"downloading {self.url}", urllib.parse.urlsplit(self.url).netloc
        check_network(name, what, host)
        try:
            with _atomic_file(path) as out, urllib.request.urlopen(self.url, timeout=_DOWNLOAD_TIMEOUT) as resp:
                shutil.copyfileobj(resp, out, length=1 << 20)
        except Exception as exc:
            raise download_failed(name, what, exc, host) from exc
        return path

    def _archive_members(self, fix: str):
        """Yield ``(key, member name, bytes)`` for each benchmark member of the archive."""
        import gzip
        import tarfile

        archive = self.archive_path()
        try:
            with tarfile.open(archive, mode="r:*") as tar:
                for info in tar:
                    key = _ZENODO_MEMBERS.get(Path(info.name).name)
                    if key is not None and info.isfile():
                        yield key, info.name, tar.extractfile(info).read()
        except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise CorruptCacheError(
                f"archive '{archive}' is corrupt or truncated ({type(exc).__name__}: {exc}); {fix}"
            ) from exc

    def extract(self, name: str = "<dataset>") -> dict[str, Path]:
        """Check every benchmark member of the archive and write it as ``<key>.npz``; returns key -> path."""
        import io

        archive = self.archive_path()
        fix = f"fix: delete the archive (rm '{archive}') and download it again with {FIX_CACHE}"
        h = hashlib.sha256()
        with open(archive, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        archive_sha = h.hexdigest()
        written: dict[str, Path] = {}
        for key, member, raw in self._archive_members(fix):
            where = f"dataset {name!r}: archive '{archive}' member {member} ({key}; {fix})"
            try:
                with np.load(io.BytesIO(raw), allow_pickle=False) as z:
                    data, label = z["data"], z["label"]
            except Exception as exc:
                raise CorruptCacheError(f"{where}: unreadable ({type(exc).__name__}: {exc})") from exc
            data, label = _check_benchmark_arrays(data, label, where)
            meta = {
                "format": ZENODO_CACHE_FORMAT, "key": key, "member": Path(member).name,
                "url": self.url, "archive_sha256": archive_sha,
                "extracted_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "n": int(data.shape[0]), "d": int(data.shape[1]), "sha256": hash_arrays(data, label),
            }
            target = self.cache_root() / f"{key}.npz"
            with _atomic_file(target) as out:
                np.savez_compressed(out, data=data, label=label, meta=np.array(json.dumps(meta, sort_keys=True)))
            written[key] = target
        if self.key not in written:
            raise CorruptCacheError(
                f"dataset {name!r}: archive '{archive}' has no member {self.member} (key {self.key!r}); {fix}"
            )
        return written

    def ensure_cached(self, name: str = "<dataset>", force: bool = False) -> Path:
        """Make sure a verified ``<key>.npz`` exists (extract, downloading if needed); return its path."""
        path = self.cache_path()
        if force:
            self.download(name)
            self.extract(name)
        elif path.is_file():
            self.read_cache(path)
            return path
        else:
            if not self.archive_path().is_file():
                self.download(name)
            self.extract(name)
        self.read_cache(path)
        return path

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        path = self.cache_path()
        if path.is_file():
            kind, how = "zenodo-cache", f"cache {path}"
        else:
            downloaded = not self.archive_path().is_file()
            self.ensure_cached(name)
            kind = "zenodo-download" if downloaded else "zenodo-cache"
            how = f"{'downloaded and ' if downloaded else ''}extracted to {path}"
        data, label, meta = self.read_cache(path)
        desc = f"imbalanced-learn benchmark `{self.key}` ({meta.get('member')}, zenodo record 61452; {how})"
        notes = (f"imbalanced-learn benchmark `{self.key}` = archive member {meta.get('member')} (sha256 of the "
                 f"archive {str(meta.get('archive_sha256'))[:16]}...), extracted {meta.get('extracted_at')}; "
                 "labels -1/+1 with +1 the minority.")
        return LoadResult(data, label, kind, desc, notes=notes)

