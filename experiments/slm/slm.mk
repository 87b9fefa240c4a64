# SLM paper (Fu, Yang, Mishra, Kuo, arXiv 2205.05296): Tables I-III, Figure 5, claims report, benchmark.
# Offline Boston housing ships in the mlxtend wheel (installed without its dependencies).
DATA_PKGS += mlxtend==0.25.0

.PHONY: slm slm-table1 slm-table2 slm-table3 slm-fig5 bench-slm

# Table I (accuracy, 10 splits x nested 2-fold CV): about 15-20 min with JOBS=1.
slm-table1: $(STAMP)
	$(call experiment,slm_table1)

# Table II and Figure 5 reuse Table I's cells (same store): seconds after slm-table1.
slm-table2: $(STAMP)
	$(call experiment,slm_table2)

slm-fig5: $(STAMP)
	$(call experiment,slm_fig5)

# Table III (RMSE, 10 splits): about 20 min with JOBS=1 offline (the real California set needs `make data` and hours).
slm-table3: $(STAMP)
	$(call experiment,slm_table3)

slm: slm-table1 slm-table2 slm-fig5 slm-table3
	$(PY) -m randml_papers.slm.summary

# Fit time of SLM tree / Forest / Boost against DecisionTree / RandomForest / XGBoost (ratios);
# n = 1000, 10000 and 100000 (about 15 min); e.g. `make bench-slm ARGS="--sizes 1000 10000"` for a quick one.
bench-slm: $(STAMP)
	$(PY) scripts/bench_slm.py $(ARGS)
