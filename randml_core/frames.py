"""Committed result frames: one compact parquet file per store, ``results/frames/<store>.parquet``.

A frame is a read-only layer under the working store (``results/store/<store>/``): every read of the store
(:class:`randml_core.store.Store`) sees the frame's rows too, and a row of the store wins over the frame's row
of the same key. A run never writes a frame; ``randml export experiment=NAME`` writes one from a complete
store (:func:`export`), and ``randml verify`` recomputes a sample of its cells (:mod:`randml_core.verify`).

Format (written by hand: no library folds constant columns into parquet metadata and checks a rows checksum):
the rows of every key the exported experiments plan, with each column whose value is the same in every row
(the code version, the package versions, the experiment, ...) stored once in the file's metadata
(``randml.frame.constants``, with the full Arrow schema so the column comes back with its type), the rows
checksum of the whole frame as read (:func:`randml_core.store.rows_checksum`), and the provenance of the
export (the configs, code version, data hashes) in ``randml.frame.provenance``. zstd-compressed with page
checksums. A frame whose rows do not match its checksum is an error naming the file, never read as valid.
"""
from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .store import (_FRAME_CHECKSUM, _FRAME_CONSTANTS, _FRAME_FORMAT, _FRAME_PROVENANCE, _FRAME_SCHEMA,  # noqa: F401
                    _VERIFIED, FRAME_FORMAT, FRAMES_ENV, FrameError, StoreError, _parse, _read_bytes, _restore,
                    frame_path, frames_dir, read_table, rows_checksum, uniform_params)

#: columns never folded (the store's required ones: a part reader checks them)
_KEEP = ("key", "status", "model", "family", "params_json", "dataset")


def _constant(values: pa.ChunkedArray):
    """(True, value) if every row holds one JSON-exact value, else (False, None)."""
    if len(values) == 0:
        return False, None
    first = values[0].as_py()
    if isinstance(first, float) and first != first:
        return False, None
    try:
        text = json.dumps(first)
    except (TypeError, ValueError):
        return False, None
    back = json.loads(text)
    if back != first or type(back) is not type(first):
        return False, None
    if first is None:
        return values.null_count == len(values), None
    return not values.null_count and len(pc.unique(values)) == 1, first


def to_table(frame) -> pa.Table:
    """The Arrow table a frame's rows are stored as (the store's rule for mixed-kind ``p_*`` columns)."""
    return pa.Table.from_pandas(uniform_params(frame.reset_index(drop=True)), preserve_index=False)


def write_frame(path: Path, frame, provenance: dict) -> dict:
    """Write ``frame`` (rows of a store) to ``path`` atomically; returns ``{rows, columns, folded, bytes}``.
    Read back and compared before it replaces anything: a frame that would not read as these rows is refused."""
    table = to_table(frame)
    constants = {}
    for name in table.column_names:
        if name in _KEEP:
            continue
        ok, value = _constant(table.column(name))
        if ok:
            constants[name] = value
    slim = table.drop_columns(list(constants))
    restored = _restore(slim, table.schema, constants)
    as_read = restored.to_pandas()
    meta = {_FRAME_FORMAT: FRAME_FORMAT.encode(),
            _FRAME_SCHEMA: base64.b64encode(table.schema.remove_metadata().serialize().to_pybytes()),
            _FRAME_CONSTANTS: json.dumps(constants, sort_keys=True).encode(),
            _FRAME_CHECKSUM: rows_checksum(as_read).encode(),
            _FRAME_PROVENANCE: json.dumps(provenance, sort_keys=True, default=str).encode()}
    slim = slim.replace_schema_metadata(meta)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        # no statistics, fixed row groups: the same rows give the same bytes (a frame is committed)
        pq.write_table(slim, tmp, compression="zstd", compression_level=9, write_page_checksum=True,
                       write_statistics=False, row_group_size=1 << 20)
        back = read_frame(tmp, verify=True)
        if rows_checksum(back) != rows_checksum(as_read):  # pragma: no cover - read_frame checked it
            raise FrameError(f"{tmp}: the frame does not read back as its rows")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return {"rows": len(as_read), "columns": table.num_columns, "folded": len(constants),
            "bytes": path.stat().st_size}


def read_frame(path: Path, columns: list[str] | None = None, verify: bool = False):
    """The frame at ``path`` as pandas (verified; ``verify=True`` checks the rows checksum again)."""
    return read_table(path, columns, reverify=verify)[0].to_pandas()


def provenance(path: Path) -> dict:
    """The provenance recorded in a frame's metadata (configs, code version, data hashes, counts)."""
    _, _, _, meta = _parse(_read_bytes(Path(path)), str(path))
    return json.loads(meta.get(_FRAME_PROVENANCE, b"{}"))


def export(spec, store_dir, out_dir=None) -> tuple[Path, dict]:
    """Write ``spec``'s rows from its complete store (parts and any earlier frame) into the frame of its store
    (``<out_dir or frames dir>/<store>.parquet``), keeping the earlier frame's rows of other experiments that
    share the store. Refused (StoreError naming the counts and the fix) when a planned cell is missing or failed;
    datasets that are not available here (they need a download) are recorded in the provenance, not required.
    The columns ``experiment.frame_omit`` names are null in the experiment's rows (recorded as ``omitted``; the
    experiments of one frame must agree, since a cell two of them plan is one row)."""
    import pandas as pd

    from .provenance import code_version, package_versions
    from .rows import planned_keys
    from .store import ROW_ORDER, key_mask, store_of
    plan, keys = planned_keys(spec, store_dir)
    if not keys:
        raise StoreError(f"{spec.name}: its plan has no cell here (every dataset needs a download?); nothing to export")
    store = store_of(spec, store_dir)
    rows = store.read()
    rows = rows[key_mask(rows["key"], keys)] if len(rows) else rows
    missing = len(keys) - (rows["key"].nunique() if len(rows) else 0)
    failed = int((rows["status"] == "failed").sum()) if len(rows) else 0
    if missing or failed:
        raise StoreError(
            f"{spec.name}: {len(keys) - missing} of {len(keys)} planned cells are stored ({missing} missing, {failed} "
            f"failed) in {store.dir}; a frame is exported only from a complete store. Fix: `randml run "
            f"experiment={spec.name}` (retry_failed=true for failed cells), then export again")
    out = Path(out_dir) if out_dir is not None else frames_dir(store_dir)
    if out is None:
        raise StoreError(f"no frames folder for the store root {store_dir}: pass out_dir (the CLI: frames_dir=DIR) or "
                         f"set ${FRAMES_ENV}")
    target = out / f"{spec.store}.parquet"
    omit = sorted(spec.engine.frame_omit)
    earlier, info = None, {}
    if target.exists():
        info = provenance(target).get("experiments", {})
        other = {n: i.get("omitted", []) for n, i in info.items() if n != spec.name and i.get("omitted", []) != omit}
        if other:
            name, cols = next(iter(other.items()))
            raise StoreError(
                f"{spec.name}: experiment.frame_omit={omit} but {name}, whose rows the frame {target} holds, left out "
                f"{cols}; the experiments of one store leave out the same columns (a cell they share is one row). "
                f"Fix: set experiment.frame_omit alike in both configs, and export {name} again")
        earlier = read_frame(target)
        earlier = earlier[~key_mask(earlier["key"], keys)]
    if omit:  # detail none of the experiment's reports reads: null in the frame (a column null everywhere folds)
        rows = rows.assign(**{c: None for c in omit if c in rows.columns})
    frame = pd.concat([rows, earlier], ignore_index=True) if earlier is not None and len(earlier) else rows
    frame = frame.sort_values([c for c in ROW_ORDER if c in frame.columns], kind="stable").reset_index(drop=True)
    sha, dirty = code_version()
    from .planned import planned_cells
    per_dataset = planned_cells(plan).drop_duplicates("key").groupby("dataset").size()
    info[spec.name] = {"config_hash": spec.config_hash(), "profile": spec.profile, "cells": len(keys),
                       "cells_by_dataset": {str(d): int(n) for d, n in sorted(per_dataset.items())},
                       "unavailable": sorted(plan.unavailable),
                       "data": {n: d.data_hash for n, d in sorted(plan.datasets.items())},
                       "exported_by": sha + ("+dirty" if dirty else ""), "omitted": omit,
                       "row_code_versions": sorted(map(str, rows["code_version"].dropna().unique()))
                       if "code_version" in rows else []}
    stats = write_frame(target, frame, {"store": spec.store, "experiments": info, "packages": package_versions()})
    return target, stats
