"""The results site: static HTML pages over ``results/`` (``make site``, checked by ``make site-check``).

``build_site()`` writes ``results/site/index.html``, one page per paper and ``datasets.html``;
``check.check_static()`` resolves every link and image; ``check.check_browser()`` loads every page
in headless Chromium, fails on console errors and writes a screenshot per page.
"""
from .build import build_site

__all__ = ["build_site"]
