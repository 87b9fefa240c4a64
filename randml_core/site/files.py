"""Atomic file writes for the site: :func:`randml_core.artefacts.atomic_write` (a temp file in the
file's directory, fsync, os.replace; the umask's permissions).

A reader (a browser, a test, another build) sees the old file or the new one, never a part.
"""
from __future__ import annotations

import io
import os
from pathlib import Path

from ..artefacts import atomic_write


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    return atomic_write(path, data)


def write_text(path: str | os.PathLike, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))


def quantized_png(png: bytes) -> bytes:
    """The PNG with 256 colours (a third of the bytes for pages of text and plots, same look)."""
    from PIL import Image
    img = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()
