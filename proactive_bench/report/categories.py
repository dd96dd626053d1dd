"""Proc / Comp by task category (the paper's table 8), from the sessions of a report.

One column per model (and ablation, when it is not ``none``); Proc pools the
intents of every finished, non-errored session of that category, Comp is
the mean of those sessions' Comp.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from proactive_bench.checkpoints import FINAL_STATUSES
from proactive_bench.metrics import IntentCounts, mean_or_none
from proactive_bench.report.trajectory import SessionView


@dataclass(frozen=True)
class CategoryCell:
    proc: float | None
    comp: float | None
    sessions: int


@dataclass(frozen=True)
class CategoryTable:
    columns: list[str]
    rows: list[tuple[str, list[CategoryCell | None]]]


def column_label(view: SessionView) -> str:
    return view.run.model if view.ablation == "none" else f"{view.run.model} ({view.ablation})"


def category_table(views: list[SessionView]) -> CategoryTable:
    cells: dict[tuple[str, str], list[SessionView]] = defaultdict(list)
    for view in views:
        if view.session_run.status in FINAL_STATUSES and view.session_run.status != "error":
            cells[(view.category, column_label(view))].append(view)
    columns = sorted({column for _, column in cells})
    categories = sorted({category for category, _ in cells})
    rows = [(category, [_cell(cells.get((category, column), [])) for column in columns]) for category in categories]
    return CategoryTable(columns, rows)


def _cell(members: list[SessionView]) -> CategoryCell | None:
    if not members:
        return None
    counts = sum((m.result.counts for m in members), IntentCounts())
    return CategoryCell(counts.proc, mean_or_none([m.result.comp for m in members]), len(members))
