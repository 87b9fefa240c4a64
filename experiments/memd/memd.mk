# MeMd paper (issue 6): Table II (gene expression), Table III (20 Newsgroups), claims report, benchmark.
# SRBCT (Khan) ships in the ISLP wheel (installed --no-deps: ISLP depends on torch).
DATA_PKGS += ISLP==0.6.0

.PHONY: memd memd-table2 memd-table3 bench-memd

# Table II: memd_table2 (10-fold CV) plus lung in memd_table2_lung (6-fold: a 6-sample class);
# offline only srbct and the generated gene-like stand-ins run (about 6 min with JOBS=1).
memd-table2: $(STAMP)
	$(RANDML) run experiment=memd_table2_lung $(RUN_OPTS) $(UNAVAILABLE_OK)
	$(call experiment,memd_table2)

# Table III: 2-fold CV; offline only the generated text-like stand-ins run (under a minute).
memd-table3: $(STAMP)
	$(call experiment,memd_table3)

memd: memd-table2 memd-table3
	$(PY) -m randml_papers.memd.summary

bench-memd: $(STAMP)
	$(PY) scripts/bench_memd.py $(ARGS)
