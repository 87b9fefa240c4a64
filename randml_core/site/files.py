"""Atomic file writes for the site: each file goes to a temp file in its directory, then os.replace.

A reader (a browser, a test, another build) sees the old file or the new one, never a part. This is
a small local helper; a project-wide atomic writer would replace it.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_text(path: str | os.PathLike, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))
