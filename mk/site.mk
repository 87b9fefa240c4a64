# The results site (issue: one place to look): static pages over results/tables and results/figures.
.PHONY: site site-check

# results/site/index.html, one page per paper, datasets.html (seconds; open index.html from disk).
site: $(STAMP)
	$(PY) -m randml_core.site build

# Build the site, resolve every link and image, load every page in headless Chromium (Debian's
# `chromium`, installed by CI's own step `.ci/run setup` if missing: needs root or sudo), fail on console
# errors or anything wider than the window, check that tables sort, write results/site/screenshots/<page>.png
# (about 30 s).
site-check: $(STAMP)
	.ci/run setup
	$(PY) -m randml_core.site check
