# PRI-SMO (Sanchez Giraldo): the sweep of Figures 1-2 and its kernel-width sensitivity (issue 17 item 3).
# bench-pri stays in the Makefile with the other benchmarks.

.PHONY: pri pri-quick pri-sensitivity pri-claims

# PRI-SMO Figures 1-2 and report (hours: N up to 50 000 x 15 settings x 5 repeats); pri-quick: < 1 min.
pri: $(STAMP)
	$(call experiment,pri_sweep)

# The claims (pri_claims.md/.json) from the committed pri_summary.csv and pri_sensitivity.csv: seconds, no store.
pri-claims: $(STAMP)
	$(PY) -m randml_papers.pri.claims

pri-quick: $(STAMP)
	$(call experiment,pri_quick)

# Both readings of the kernel width (V of width sqrt(2) sigma, the headline, vs sigma) on the pri_sweep grid at
# N <= 10 000 (2 repeats, 1 at N = 10 000; the sweep's seeds), one BLAS thread: 270 fits, ~5-6 min under nice.
# Writes results/tables/pri_sensitivity.{md,csv,json}; the section in pri_report.md appears at the next `make pri`.
pri-sensitivity: $(STAMP)
	nice -n 10 $(PY) -m randml_papers.pri.sensitivity $(ARGS)
