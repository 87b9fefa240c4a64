"""Moved to :mod:`randml_core.direction` (a run's search needs it without importing the statistics, about 1.3 s of
scipy.stats and matplotlib); this path keeps working."""
from ..direction import HIGHER_IS_BETTER, higher_is_better

__all__ = ["HIGHER_IS_BETTER", "higher_is_better"]
