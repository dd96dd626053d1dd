"""``pbench runs`` and ``pbench sweeps``: the runs and sweeps of a results database, newest first, filtered."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Optional

import typer
from rich.table import Table

from proactive_bench.cli.common import (
    DEFAULT_RESULTS,
    DbOpt,
    err_console,
    fail,
    open_store,
    out_console,
)
from proactive_bench.data_model import RunStatus, SweepStatus
from proactive_bench.logs import configure_logging
from proactive_bench.reporting import run_rows, runs_table, sweep_rows, sweeps_table

DURATION = re.compile(r"(\d+)\s*([mhdw])")
UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}

PersonaOpt = Annotated[Optional[str], typer.Option(help="Only this persona's.")]
ModelOpt = Annotated[Optional[str], typer.Option(help="Only those whose model contains this text, e.g. gpt-4o or scripted:.")]
SinceOpt = Annotated[Optional[str], typer.Option(help="Only those started since a date or time (2026-11-24, 2026-11-24T09:30) or within a duration (30m, 2h, 3d, 1w).")]
LimitOpt = Annotated[int, typer.Option(min=1, help="At most this many, newest first.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print a JSON list instead of a table.")]


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """A moment from a duration back from now (``2h``, ``3d``) or an ISO date or time (local time unless it says otherwise)."""
    if match := DURATION.fullmatch(text.strip()):
        return (now or datetime.now(UTC)) - timedelta(**{UNITS[match[2]]: int(match[1])})
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"--since: {text!r} is neither a duration (30m, 2h, 3d, 1w) nor a date or time (2026-11-24, 2026-11-24T09:30)") from None
    return moment if moment.tzinfo else moment.astimezone()


def _print_rows(rows: Sequence[Any], table: Callable[[Any], Table], as_json: bool, none: str, filtered: tuple[str | None, ...]) -> None:
    """Rows as a JSON list or a table; no rows is a line on stderr saying so (and whether filters left them out)."""
    if as_json:
        typer.echo(json.dumps([row.as_dict() for row in rows], indent=2))
    elif rows:
        out_console.print(table(rows))
    else:
        err_console.print(none + (" match the filters" if any(f is not None for f in filtered) else ""), highlight=False)


def _checked(status: str | None, words: type[RunStatus] | type[SweepStatus]) -> str | None:
    if status is not None and status not in {word.value for word in words}:
        raise fail(f"--status must be one of {', '.join(word.value for word in words)}, not {status!r}")
    return status


def _since(text: str | None) -> datetime | None:
    try:
        return parse_since(text) if text is not None else None
    except ValueError as exc:
        raise fail(str(exc)) from None


def runs(
    persona: PersonaOpt = None,
    model: ModelOpt = None,
    status: Annotated[Optional[str], typer.Option(help=f"Only runs with this status ({', '.join(RunStatus)}).")] = None,
    since: SinceOpt = None,
    limit: LimitOpt = 20,
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
    as_json: JsonOpt = False,
) -> None:
    """List runs, newest first: id, start, persona, model, user, ablation, status, sessions done, Proc, Comp, cost."""
    configure_logging()
    checked, moment = _checked(status, RunStatus), _since(since)
    store = open_store(db)
    rows = run_rows(store, store.find_runs(persona, model, checked, moment, limit))
    _print_rows(rows, runs_table, as_json, f"no runs in {db}", filtered=(persona, model, status, since))


def sweeps(
    persona: PersonaOpt = None,
    model: ModelOpt = None,
    status: Annotated[Optional[str], typer.Option(help=f"Only sweeps with this status ({', '.join(SweepStatus)}).")] = None,
    since: SinceOpt = None,
    limit: LimitOpt = 20,
    db: DbOpt = DEFAULT_RESULTS / "pbench.db",
    as_json: JsonOpt = False,
) -> None:
    """List sweeps, newest first: id, start, personas, models, user, status, runs, sessions done, Proc, Comp, cost."""
    configure_logging()
    checked, moment = _checked(status, SweepStatus), _since(since)
    store = open_store(db)
    rows = sweep_rows(store, store.find_sweeps(persona, model, checked, moment, limit))
    _print_rows(rows, sweeps_table, as_json, f"no sweeps in {db}", filtered=(persona, model, status, since))
