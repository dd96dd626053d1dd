"""Proc / Comp by task category (the paper's table 8) as the report lays it out.

The figures are :attr:`~proactive_bench.reporting.summary.Summary.categories` (tasks
averaged as ``docs/metrics.md`` says), the same numbers as
``pbench results --by category``; this module only arranges them in a grid
and names the categories.
"""

from __future__ import annotations

from dataclasses import dataclass

from proactive_bench.dataset import CATEGORY_NAMES
from proactive_bench.reporting.summary import Summary


@dataclass(frozen=True)
class CategoryCell:
    proc: float | None
    comp: float | None
    tasks: int
    failures: dict[str, int]


@dataclass(frozen=True)
class CategoryTable:
    columns: list[str]
    rows: list[tuple[str, list[CategoryCell | None]]]


def category_name(code: str) -> str:
    """A category's name with its code (``docs/taxonomy.md``); an unknown code as it is."""
    name = CATEGORY_NAMES.get(code)
    return f"{name} ({code})" if name else code


def column_label(model: str, ablation: str) -> str:
    return model if ablation == "none" else f"{model} ({ablation})"


def category_table(summary: Summary) -> CategoryTable:
    cells = {
        (r["category"], column_label(r["model"], r["ablation"])): CategoryCell(r["proc"], r["comp"], r["tasks"], r["failures"])
        for r in summary.categories
    }
    columns = sorted({column for _, column in cells})
    categories = sorted({category for category, _ in cells})
    return CategoryTable(columns, [(category, [cells.get((category, column)) for column in columns]) for category in categories])
