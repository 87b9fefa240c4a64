"""Statistics for comparing models across datasets and within one dataset.

Across datasets (a score matrix: index = dataset, columns = model): average ranks, Friedman and
Iman-Davenport tests and the Nemenyi critical difference (Demsar 2006, JMLR 7), pairwise Wilcoxon
signed-rank tests with Holm's correction (scipy), and the Bayesian signed-rank test with a ROPE
(Benavoli et al. 2017, JMLR 18) -- all collected by :func:`compare`; :func:`cd_diagram`
draws the CD diagram. Within one dataset (fold rows): :func:`corrected_ttest`, the corrected resampled
t-test (Nadeau & Bengio 2003; Bouckaert & Frank 2004).

Libraries: scipy.stats (p-values, studentized range for q_alpha, Wilcoxon), pandas (ranks), matplotlib
(the diagram); no new dependency. Looked at and not used: scikit-posthocs and autorank (they bring
statsmodels, formulaic, patsy, seaborn / jinja2 for nothing needed here) and baycomp 1.0.3 (it works with
numpy 2.4 / scipy 1.17, but its wheel installs a top-level ``tests`` package into site-packages that
shadows this repository's tests; see pairwise.py). Written by hand, each a few lines that no kept library
has in this form: Friedman chi2_F / Iman-Davenport F_F from average ranks (scipy adds a tie correction and
has no F_F), the Nemenyi CD formula, Holm's step-down adjustment, the exact signed-rank p-value with ties,
the Bayesian signed-rank Monte Carlo (gave baycomp's probabilities exactly, same seed, in a one-off check), the
corrected resampled t-test, and the CD diagram. :mod:`.power`: the sign test, the signed-rank direction and
each test's minimal detectable effect (noncentral t from scipy; closed forms for TOST and the sign test).
"""
from .cd_diagram import cd_diagram, nemenyi_groups
from .compare import Comparison, CriticalDifference, compare
from .direction import HIGHER_IS_BETTER, higher_is_better
from .pairwise import (bayes_signed_rank, bayes_signed_rank_posterior, holm, signed_rank_exact_p,
                       wilcoxon_signed_rank)
from .power import mde_sign, mde_t, mde_wilcoxon, sign_test, signed_rank, tost_min_margin
from .ranks import TestResult, friedman, nemenyi_cd, nemenyi_q, rank_matrix
from .refusal import StatsRefusal, min_friedman_datasets, min_nemenyi_datasets, min_wilcoxon_pairs
from .ttest import corrected_resampled_t, corrected_ttest

__all__ = ["HIGHER_IS_BETTER", "Comparison", "CriticalDifference", "StatsRefusal", "TestResult",
           "bayes_signed_rank", "bayes_signed_rank_posterior", "cd_diagram", "compare", "corrected_resampled_t",
           "corrected_ttest", "friedman",
           "higher_is_better", "holm", "mde_sign", "mde_t", "mde_wilcoxon", "min_friedman_datasets",
           "min_nemenyi_datasets", "min_wilcoxon_pairs", "nemenyi_cd", "nemenyi_groups", "nemenyi_q", "rank_matrix",
           "sign_test", "signed_rank", "signed_rank_exact_p", "tost_min_margin", "wilcoxon_signed_rank"]
