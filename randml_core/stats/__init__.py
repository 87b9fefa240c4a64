"""Statistics for comparing models across datasets and within one dataset.

Across datasets (a score matrix: index = dataset, columns = model): average ranks, Friedman and
Iman-Davenport tests and the Nemenyi critical difference (Demsar 2006, JMLR 7), pairwise Wilcoxon
signed-rank tests with Holm's correction (scipy), and the Bayesian signed-rank test with a ROPE
(Benavoli et al. 2017, JMLR 18) from baycomp -- all collected by :func:`compare`; :func:`cd_diagram`
draws the CD diagram. Within one dataset (fold rows): :func:`corrected_ttest`, the corrected resampled
t-test (Nadeau & Bengio 2003; Bouckaert & Frank 2004).

Libraries: scipy.stats (ranks' p-values, studentized range, Wilcoxon, t and F), baycomp 1.0.3 (the
Bayesian signed-rank test; it installs alone and runs on numpy 2 / scipy 1.17). Not used:
scikit-posthocs and autorank, which bring statsmodels, seaborn / jinja2 for nothing we need. Written
by hand, each a few lines that no kept library has in this form: the Friedman chi2_F / Iman-Davenport F_F
from average ranks (scipy adds a tie correction and has no F_F), the Nemenyi CD formula, Holm's step-down
adjustment, the corrected resampled t-test, and the CD diagram.
"""
from .cd_diagram import cd_diagram, nemenyi_groups
from .compare import Comparison, CriticalDifference, compare
from .direction import HIGHER_IS_BETTER, higher_is_better
from .pairwise import bayes_signed_rank, holm, wilcoxon_signed_rank
from .ranks import TestResult, friedman, nemenyi_cd, nemenyi_q, rank_matrix
from .refusal import StatsRefusal, min_friedman_datasets, min_nemenyi_datasets, min_wilcoxon_pairs
from .ttest import corrected_resampled_t, corrected_ttest

__all__ = ["HIGHER_IS_BETTER", "Comparison", "CriticalDifference", "StatsRefusal", "TestResult",
           "bayes_signed_rank", "cd_diagram", "compare", "corrected_resampled_t", "corrected_ttest", "friedman",
           "higher_is_better", "holm", "min_friedman_datasets", "min_nemenyi_datasets", "min_wilcoxon_pairs",
           "nemenyi_cd", "nemenyi_groups", "nemenyi_q", "rank_matrix", "wilcoxon_signed_rank"]
