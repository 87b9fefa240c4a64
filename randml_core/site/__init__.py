"""The results site: static HTML pages over ``results/`` (``make site``, checked by ``make site-check``).

``build_site()`` writes ``results/site/index.html``, one page per paper and ``datasets.html``;
``check.check_static()`` resolves every link and image; ``check.check_browser()`` loads every page
in headless Chromium, fails on console errors and writes a screenshot per page.

The site renders markdown with markdown-it-py, an optional dependency (the ``site`` extra:
``pip install 'randml[site]'``); ``build_site`` is imported on first use, so ``python -m randml_core.site``
without it ends with that install command instead of a traceback.
"""
from __future__ import annotations

__all__ = ["build_site"]


def __getattr__(name: str):
    if name == "build_site":
        from .build import build_site
        return build_site
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
