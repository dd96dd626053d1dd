"""The runs and sweeps of a results database as lists: what ``pbench runs`` and ``pbench sweeps`` show.

Proc and Comp are those of :func:`~proactive_bench.reporting.summary.summarize`
(each run's stored result, :func:`~proactive_bench.reporting.summary.run_figures`; a sweep's table-1 Average
per model and ablation), never computed another way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from rich.table import Table

from proactive_bench.episode import run_spec
from proactive_bench.reporting.summary import EpisodeShapes, load_runs, run_figures, summarize
from proactive_bench.reporting.tables import pct
from proactive_bench.store import ListFilter, ReadQueries, RunLike, SweepLike

DURATION = re.compile(r"(\d+)\s*([mhdw])")
UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """A moment from a duration back from now (``2h``, ``3d``) or an ISO date or time (local time unless it says otherwise)."""
    if match := DURATION.fullmatch(text.strip()):
        return (now or datetime.now(UTC)) - timedelta(**{UNITS[match[2]]: int(match[1])})
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"since: {text!r} is neither a duration (30m, 2h, 3d, 1w) nor a date or time (2026-11-24, 2026-11-24T09:30)"
        ) from None
    return moment if moment.tzinfo else moment.astimezone()


def list_filter(
    persona: str | None, model: str | None, status: str | None, since: str | None, limit: int, statuses: type[StrEnum]
) -> ListFilter:
    """The filter of ``pbench runs`` / ``sweeps`` (and the viewer's lists); ValueError, one line starting with the field's name,
    for a status that is none of ``statuses`` or a time :func:`parse_since` cannot read."""
    if status is not None and status not in statuses.__members__.values():
        raise ValueError(f"status must be one of {', '.join(statuses)}, not {status!r}")
    return ListFilter(persona, model, status, parse_since(since) if since is not None else None, limit)


@dataclass
class RunRow:
    """One run as ``pbench runs`` lists it."""

    id: str
    started: datetime
    persona: str
    model: str
    user: str
    ablation: str
    status: str
    sweep_id: str | None
    sessions_done: int
    sessions_planned: int
    proc: float | None
    comp: float | None
    cost_usd: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"started": self.started.isoformat()}


@dataclass
class ArmFigures:
    """A sweep's figures for one model and ablation: table 1's Average over every persona's tasks."""

    model: str
    ablation: str
    proc: float | None
    comp: float | None


@dataclass
class SweepRow:
    """One sweep as ``pbench sweeps`` lists it."""

    id: str
    started: datetime
    personas: list[str]
    user: str
    status: str
    runs: int
    sessions_done: int
    sessions_planned: int
    arms: list[ArmFigures]
    cost_usd: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"started": self.started.isoformat()}


def run_rows(store: ReadQueries, runs: Sequence[RunLike]) -> list[RunRow]:
    """The rows of ``runs``, in their order."""
    figures = {row["run_id"]: row for row in run_figures(load_runs(store, runs), include_partial=True)}
    costs = store.run_costs([run.id for run in runs])
    rows = []
    for run in runs:
        stored = figures[run.id]
        rows.append(
            RunRow(
                run.id,
                run.created,
                run.persona,
                run.model,
                run.user_backend,
                stored["ablation"],
                run.status,
                run.sweep_id,
                stored["sessions_done"],
                stored["sessions_planned"],
                stored["proc"],
                stored["comp"],
                costs.get(run.id),
            )
        )
    return rows


def sweep_rows(store: ReadQueries, sweeps: Sequence[SweepLike]) -> list[SweepRow]:
    """The rows of ``sweeps``, in their order (partial runs left out of the figures, as in ``pbench results``)."""
    rows, shapes = [], EpisodeShapes()
    for sweep in sweeps:
        runs = store.runs(sweep.id)
        summary = summarize(store, runs, shapes=shapes)
        costs = store.run_costs([run.id for run in runs])
        rows.append(
            SweepRow(
                sweep.id,
                sweep.created,
                sorted({run.persona for run in runs}),
                str(sweep.config.get("user") or (run_spec(runs[0]).user if runs else "")),
                sweep.status,
                len(runs),
                sum(row["sessions_done"] for row in summary.runs),
                sum(row["sessions_planned"] for row in summary.runs),
                [
                    ArmFigures(row["model"], row["ablation"], row["average"]["proc"]["mean"], row["average"]["comp"]["mean"])
                    for row in summary.overall
                ],
                sum(costs.values()) if costs else None,
            )
        )
    return rows


def runs_table(rows: list[RunRow]) -> Table:
    """The runs, newest first: ids, models and statuses printed whole."""
    table = Table(
        title=f"{len(rows)} run(s), newest first", caption="Proc, Comp: % over the sessions played; cost: USD of priced model calls."
    )
    for name in ("id", "started (UTC)", "persona", "model", "user", "ablation", "status", "sessions", "Proc", "Comp", "cost"):
        table.add_column(
            name,
            no_wrap=name in ("id", "persona", "model", "status", "sessions", "Proc", "Comp"),
            justify="right" if name in ("sessions", "Proc", "Comp", "cost") else "left",
        )
    for r in rows:
        table.add_row(
            r.id,
            _when(r.started),
            r.persona,
            r.model,
            r.user,
            r.ablation,
            r.status,
            f"{r.sessions_done}/{r.sessions_planned}",
            pct(r.proc),
            pct(r.comp),
            _usd(r.cost_usd),
        )
    return table


def sweeps_table(rows: list[SweepRow]) -> Table:
    """The sweeps, newest first, one line per model and ablation in the model, Proc and Comp cells."""
    table = Table(
        title=f"{len(rows)} sweep(s), newest first",
        caption="Proc, Comp: % per model (and ablation), table 1's Average over the finished runs' tasks; cost: USD of priced model calls.",
    )
    for name in ("id", "started (UTC)", "personas", "model", "user", "status", "runs", "sessions", "Proc", "Comp", "cost"):
        table.add_column(
            name,
            no_wrap=name in ("id", "model", "status", "runs", "sessions", "Proc", "Comp"),
            justify="right" if name in ("runs", "sessions", "Proc", "Comp", "cost") else "left",
        )
    for r in rows:
        arms = r.arms or [ArmFigures("—", "none", None, None)]
        table.add_row(
            r.id,
            _when(r.started),
            ", ".join(r.personas),
            "\n".join(a.model + ("" if a.ablation == "none" else f" ({a.ablation})") for a in arms),
            r.user,
            r.status,
            str(r.runs),
            f"{r.sessions_done}/{r.sessions_planned}",
            "\n".join(pct(a.proc) for a in arms),
            "\n".join(pct(a.comp) for a in arms),
            _usd(r.cost_usd),
        )
    return table


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M")


def _usd(cost: float | None) -> str:
    return "—" if cost is None else f"{cost:.4f}"
