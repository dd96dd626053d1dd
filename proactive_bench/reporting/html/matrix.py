"""The report index's session × model matrix: one row per persona and session, one column per model and ablation.

A cell holds that session's run in each run of the column (several with
``--runs N``), each linking to its trajectory on the run's page. The filter
box reads the ``persona``/``model``/``category``/``status`` values listed here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from proactive_bench.reporting.html.trajectory import SessionView

Column = tuple[str, str]
"""(model, ablation)."""


@dataclass(frozen=True)
class MatrixRow:
    persona: str
    session_id: str
    title: str
    category: str
    cells: list[list[SessionView]]
    """Per column, the session's runs in run order (empty: no run of the column has it)."""


@dataclass(frozen=True)
class SessionMatrix:
    columns: list[Column]
    rows: list[MatrixRow]

    def choices(self) -> dict[str, list[str]]:
        """The values each filter offers, in order: personas, models, category codes, session statuses."""
        views = [v for row in self.rows for cell in row.cells for v in cell]
        return {
            "persona": _unique(row.persona for row in self.rows),
            "model": _unique(model for model, _ in self.columns),
            "category": sorted({row.category for row in self.rows}),
            "status": sorted({v.session_run.status for v in views}),
        }


def session_matrix(views: list[SessionView]) -> SessionMatrix:
    """Rows by persona (in run order) and session position; columns by model, the unablated run first."""
    columns = sorted({(v.run.model, v.ablation) for v in views}, key=lambda c: (c[0], c[1] != "none", c[1]))
    position: dict[tuple[str, str], int] = {}
    first: dict[tuple[str, str], SessionView] = {}
    cells: dict[tuple[str, str, Column], list[SessionView]] = {}
    personas = _unique(v.run.persona for v in views)
    for v in views:
        key = (v.run.persona, v.session_id)
        position[key] = min(position.get(key, v.session_run.position), v.session_run.position)
        first.setdefault(key, v)
        cells.setdefault((*key, (v.run.model, v.ablation)), []).append(v)
    order = sorted(position, key=lambda k: (personas.index(k[0]), position[k], k[1]))
    rows = [
        MatrixRow(
            persona, sid, first[(persona, sid)].title, first[(persona, sid)].category, [cells.get((persona, sid, c), []) for c in columns]
        )
        for persona, sid in order
    ]
    return SessionMatrix(columns, rows)


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))
