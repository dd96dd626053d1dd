"""``pbench runs`` and ``pbench sweeps``: the runs and sweeps of a results database, newest first, filtered."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.table import Table

from proactive_bench.cli.common import (
    DEFAULT_DB,
    DbOpt,
    err_console,
    fail,
    open_reads,
    out_console,
)
from proactive_bench.cli.option_groups import with_option_groups
from proactive_bench.data_model import RunStatus, SweepStatus
from proactive_bench.logs import configure_logging_on_import
from proactive_bench.reporting import list_filter, run_rows, runs_table, sweep_rows, sweeps_table
from proactive_bench.store import ListFilter, ReadQueries


@dataclass(frozen=True)
class Listing:
    """The options ``runs`` and ``sweeps`` share: the filters, the database and ``--json``."""

    persona: Annotated[str | None, typer.Option(help="Only those of this persona.")] = None
    model: Annotated[str | None, typer.Option(help="Only those whose model contains this text, e.g. gpt-4o or scripted:.")] = None
    status: Annotated[
        str | None, typer.Option(help="Only those with this status, e.g. finished (an unknown word lists the known ones).")
    ] = None
    since: Annotated[
        str | None,
        typer.Option(help="Only those started since a date or time (2026-11-24, 2026-11-24T09:30) or within a duration (30m, 2h, 3d, 1w)."),
    ] = None
    limit: Annotated[int, typer.Option(min=1, help="At most this many, newest first.")] = 20
    db: DbOpt = DEFAULT_DB
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list instead of a table.")] = False

    def open(self, statuses: type[StrEnum]) -> tuple[ReadQueries, ListFilter]:
        """The results database and the filter, or a one-line error for a status or time it cannot read."""
        configure_logging_on_import()  # nothing logs on the reader's path: structlog stays unloaded
        try:
            wanted = list_filter(self.persona, self.model, self.status, self.since, self.limit, statuses)
        except ValueError as exc:
            raise fail(f"--{exc}") from None
        return open_reads(self.db), wanted

    def show(self, store: ReadQueries, rows: Sequence[Any], table: Callable[[Any], Table], what: str) -> None:
        """Rows as a JSON list or a table; no rows is a line on stderr saying so (and whether filters left them out)."""
        if self.as_json:
            typer.echo(json.dumps([row.as_dict() for row in rows], indent=2))
        elif rows:
            out_console.print(table(rows))
        else:
            filtered = any(f is not None for f in (self.persona, self.model, self.status, self.since))
            err_console.print(f"no {what} in {store.name}" + (" match the filters" if filtered else ""), highlight=False)


@with_option_groups
def runs(*, listing: Listing) -> None:
    """List runs, newest first: id, start, persona, model, user, ablation, status, sessions done, Proc, Comp, cost."""
    store, wanted = listing.open(RunStatus)
    listing.show(store, run_rows(store, store.find_runs(wanted)), runs_table, "runs")


@with_option_groups
def sweeps(*, listing: Listing) -> None:
    """List sweeps, newest first: id, start, personas, models, user, status, runs, sessions done, Proc, Comp, cost."""
    store, wanted = listing.open(SweepStatus)
    listing.show(store, sweep_rows(store, store.find_sweeps(wanted)), sweeps_table, "sweeps")
