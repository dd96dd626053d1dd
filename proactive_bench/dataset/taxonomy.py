"""The task categories a session's ``category`` names: codes and short names (described in docs/taxonomy.md)."""

from __future__ import annotations

CATEGORY_NAMES: dict[str, str] = {
    "A": "AI research frontier tracking",
    "B": "Scholarly experiment and rebuttal artifacts",
    "C": "Researcher life and career planning",
    "D": "Financial model validation and governance",
    "E": "Quantitative data engineering and curve analytics",
    "F": "Legal pleading and contract drafting",
    "G": "Legal compliance and evidence strategy",
    "H": "Legal matter operations and handoffs",
    "I": "Biomedical literature and clinical evidence",
    "J": "Experimental assay and lab result reasoning",
    "K": "Drug design, formulation and dosing products",
    "L": "Laboratory and pharmacy procurement logistics",
    "M": "Market intelligence and brand research",
    "N": "Marketing content systems and conversion copy",
    "O": "Co-branding strategy and creative governance",
    "P": "Crisis, recovery and reputation communications",
    "Q": "Consumer selection, commerce and media actions",
    "R": "Tool-mediated administrative workflows",
    "S": "Clinical communication and practice rollout",
}
"""Code -> short name. A-R: the π-Bench task categories; S on: pbench's additions. docs/taxonomy.md has one table row per code."""

CATEGORY_CODES: tuple[str, ...] = tuple(CATEGORY_NAMES)
PIBENCH_CATEGORY_CODES: tuple[str, ...] = CATEGORY_CODES[: CATEGORY_CODES.index("R") + 1]
"""A-R: the π-Bench paper's 18 task categories (appendix A.3, table 5), the rows of its table 8."""

NO_CATEGORY = "unavailable"
"""The category of a task whose source gives none (a π-Bench release's tasks carry a task type, not a category): table 8
counts such tasks under this name and never guesses one (docs/metrics.md)."""
