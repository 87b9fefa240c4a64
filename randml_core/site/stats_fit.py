"""Statistics over datasets as the site shows them: only what the number of datasets lets a test say.

The statistics files (``<table>_stats.md``, written by :mod:`randml_core.report.table_stats` and the generic
report) hold one ``## `` section per comparison: an intro, the critical-difference diagram, then
``### Comparison of K models on N datasets`` with the average ranks, Friedman / Iman-Davenport, the Nemenyi CD
and the pairwise table. The files stay as written; the site's rendering of them fits the number of datasets,
by the statistics module's own minimum counts (:mod:`randml_core.stats.refusal`):

* a comparison whose N is below what its tests need (3 or more models: the Friedman test reaching p < alpha
  and the largest rank difference reaching the Nemenyi CD; 2 models: the Wilcoxon signed-rank test) shows its
  heading and one line saying why, without the diagram, ranks or pairwise table; its diagram is not embedded
  in the Figures section either (a line links it) and gets no heatmap;
* a comparison with fewer datasets than the Wilcoxon signed-rank test needs keeps its ranks and diagram, but
  the pairwise table loses its Wilcoxon / Holm columns (all "n/a") and the per-pair refusals, which repeat one
  sentence per pair, become one line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: "### Comparison of 6 models on 2 datasets (gmean, higher is better; alpha = 0.05)"
COMPARISON = re.compile(r"^#{3,6} Comparison of (\d+) models on (\d+) datasets\b.*?(?:alpha = ([0-9.]+))?\)?\s*$")
IMAGE = re.compile(r"^!\[[^\]]*\]\(([^)\s]+\.png)\)\s*$")
NO_CD = re.compile(r"^no CD diagram:", re.I)
SECTION = re.compile(r"^## ")
WILCOXON_COLUMNS = ("Wilcoxon p", "Holm p", "significant")
#: "- LogReg vs kNN: Wilcoxon not applicable: the Wilcoxon signed-rank test needs >= 6 ...; <other notes>"
WILCOXON_REFUSAL = re.compile(r"^(- .+? vs .+?: )Wilcoxon not applicable: [^;]*(?:; (.*))?$")


@dataclass(frozen=True)
class Fit:
    """What a comparison of ``k`` models on ``n`` datasets can show (``alpha``: the level of its tests)."""
    k: int
    n: int
    alpha: float = 0.05

    @property
    def wilcoxon_need(self) -> int:
        from ..stats.refusal import min_wilcoxon_pairs
        return min_wilcoxon_pairs(self.alpha)

    @property
    def rank_need(self) -> int:
        """Datasets the rank tests need: the Friedman p below alpha and a rank difference reaching the Nemenyi CD
        (3 or more models); the Wilcoxon signed-rank test's count for 2 models."""
        if self.k < 3:
            return self.wilcoxon_need
        from ..stats.ranks import nemenyi_q
        from ..stats.refusal import min_friedman_datasets, min_nemenyi_datasets
        return max(min_friedman_datasets(self.k, self.alpha), min_nemenyi_datasets(self.k, nemenyi_q(self.k, self.alpha)))

    @property
    def shown(self) -> bool:
        return self.n >= self.rank_need

    @property
    def reason(self) -> str:
        """on N datasets no difference between K models can be significant (the test that needs more)"""
        datasets = f"{self.n} dataset{'' if self.n == 1 else 's'}"
        if self.k < 3:
            test = (f"the Wilcoxon signed-rank test, the one test for 2 models, needs at least {self.rank_need} "
                    f"to reach p < {self.alpha:g}")
        else:
            test = (f"the Friedman test and the Nemenyi critical difference need at least {self.rank_need} at "
                    f"alpha = {self.alpha:g}")
        return f"on {datasets} no difference between {self.k} models can be significant ({test})"

    @property
    def why(self) -> str:
        """One line in the statistics: why the ranks, diagram and pairwise table are not shown."""
        return f"Not shown: {self.reason}; the ranks and pairwise numbers are in the file."

    @property
    def figure_why(self) -> str:
        """One line in the figures: why a diagram is linked, not embedded."""
        return f"not shown: {self.reason}."

    @property
    def wilcoxon_line(self) -> str:
        return (f"Wilcoxon and Holm columns left out: the Wilcoxon signed-rank test needs at least "
                f"{self.wilcoxon_need} datasets for a two-sided p < {self.alpha:g}, here {self.n}.")


def _sections(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) line ranges of the part before the first ``## `` heading and of each ``## `` section."""
    starts = [0, *[i for i, line in enumerate(lines) if SECTION.match(line) and i > 0]]
    return list(zip(starts, [*starts[1:], len(lines)]))


def _comparison(lines: list[str], start: int, end: int) -> tuple[int, Fit] | None:
    for i in range(start, end):
        m = COMPARISON.match(lines[i])
        if m:
            return i, Fit(int(m.group(1)), int(m.group(2)), float(m.group(3) or 0.05))
    return None


def unfit_figures(text: str, source_dir: Path) -> dict[Path, str]:
    """The figures (resolved paths) that ``text``'s comparisons show but whose N is too small, with the line
    that says why."""
    lines = text.splitlines()
    out: dict[Path, str] = {}
    for start, end in _sections(lines):
        found = _comparison(lines, start, end)
        if found is None or found[1].shown:
            continue
        for line in lines[start:found[0]]:
            m = IMAGE.match(line)
            if m:
                out[(source_dir / m.group(1)).resolve()] = found[1].figure_why
    return out


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _without_wilcoxon(lines: list[str], fit: Fit) -> list[str]:
    """The section's lines with the all-"n/a" Wilcoxon / Holm columns out of the pairwise table and the per-pair
    Wilcoxon refusals collapsed into one line (after the "Pairwise:" line)."""
    out: list[str] = []
    drop: list[int] = []
    in_table = False
    for k, line in enumerate(lines):
        if line.startswith("| model a | model b |"):
            header = _cells(line)
            body = []
            for later in lines[k + 2:]:
                if not later.startswith("|"):
                    break
                body.append(_cells(later))
            drop = [j for j, h in enumerate(header) if h in WILCOXON_COLUMNS
                    and all(len(r) == len(header) and r[j] == "n/a" for r in body)]
            in_table = True
        elif in_table and not line.startswith("|"):
            in_table, drop = False, []
        if in_table and drop:
            cells = _cells(line)
            line = "| " + " | ".join(c for j, c in enumerate(cells) if j not in drop) + " |"
            if set(line.replace("|", "").split()) <= {"---"}:  # the separator row
                line = "|" + "---|" * (len(cells) - len(drop))
        m = WILCOXON_REFUSAL.match(line)
        if m:
            if m.group(2):
                out.append(m.group(1) + m.group(2))
            continue
        out.append(line)
        if line.startswith("Pairwise: Wilcoxon signed-rank"):
            out += ["", fit.wilcoxon_line]
    # a "Not applicable / remarks:" line whose list is now empty goes too
    return [line for k, line in enumerate(out)
            if not (line.startswith("Not applicable / remarks:")
                    and not any(x.startswith("- ") for x in out[k + 1:k + 2]))]


def fit_stats(text: str) -> str:
    """``text`` (a statistics file's markdown) with each comparison fitted to its number of datasets."""
    lines = text.splitlines()
    out: list[str] = []
    for start, end in _sections(lines):
        found = _comparison(lines, start, end)
        part = lines[start:end]
        if found is not None:
            at, fit = found
            if not fit.shown:
                head = at - start
                cut = next((j for j, line in enumerate(part[:head]) if IMAGE.match(line) or NO_CD.match(line)), head)
                part = [*part[:cut], part[head], "", fit.why, ""]
            elif fit.n < fit.wilcoxon_need:
                part = _without_wilcoxon(part, fit)
        out += part
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")
