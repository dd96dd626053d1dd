"""``pbench db``: a throwaway local PostgreSQL server to try the store on (``serve``, ``stop``), and a results database's ``info`` and ``upgrade``."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from proactive_bench.cli.common import DEFAULT_DB, DbOpt, err_console, fail, out_console
from proactive_bench.logs import configure_logging
from proactive_bench.postgres_server import LocalPostgres, PostgresServerError
from proactive_bench.store import Location, StoreOpenError, StoreSchemaError, locate, overview, upgrade_schema

db_app = typer.Typer(
    help="Results databases: a local PostgreSQL server to try (serve, stop), and a database's info and upgrade.", no_args_is_help=True
)

DirOpt = Annotated[Path, typer.Option("--dir", help="The server's folder: its cluster is created there on first use and kept.")]
WATCH_S = 1.0
"""How often the foreground ``serve`` checks that its server still runs."""


@db_app.command()
def serve(
    folder: DirOpt,
    port: Annotated[
        int | None, typer.Option(min=1, max=65535, help="Port on 127.0.0.1 (default: the last one used in --dir, else a free one).")
    ] = None,
    detach: Annotated[
        bool, typer.Option("--detach", help="Leave the server running and return (stop it with pbench db stop --dir DIR).")
    ] = False,
) -> None:
    """Start a local PostgreSQL server (trust authentication, 127.0.0.1 only) and print its URL for --db; Ctrl-C stops it."""
    configure_logging()
    server = LocalPostgres(folder.resolve())
    try:
        url = server.start(port)
    except PostgresServerError as exc:
        raise fail(str(exc)) from None
    if detach:
        typer.echo(url)  # the one line on stdout: usable as --db or PBENCH_DB
        err_console.print(f"running (pid {server.pid()}); stop it with: pbench db stop --dir {folder}", highlight=False)
        return

    def stop_request(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop_request)
    try:
        typer.echo(url)
        err_console.print("serving; Ctrl-C stops it", highlight=False)
        while server.pid() is not None:
            time.sleep(WATCH_S)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the clean stop short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            server.stop()
        except PostgresServerError as exc:
            raise fail(str(exc), 1) from None
        err_console.print("stopped", highlight=False)
        return
    raise fail(f"the server stopped by itself; see {server.log_file}", 1)


@db_app.command()
def stop(folder: DirOpt) -> None:
    """Stop the server that pbench db serve --detach left running from --dir."""
    configure_logging()
    try:
        stopped = LocalPostgres(folder.resolve()).stop()
    except PostgresServerError as exc:
        raise fail(str(exc), 1) from None
    if not stopped:
        raise fail(f"{folder}: no server is running from it")
    err_console.print("stopped", highlight=False)


@db_app.command()
def info(db: DbOpt = DEFAULT_DB, as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """A results database's dialect, schema revision and how many runs, sweeps and sessions it holds (read only)."""
    configure_logging()
    file = _checked(db).file
    if file is not None and not file.is_file():
        raise fail(f"no results database at {db}")
    try:
        seen = overview(db)
    except StoreOpenError as exc:
        raise fail(f"--db {locate(db).name}: cannot open it as a results database: {exc}") from None
    state = (
        "current"
        if seen.revision == seen.head
        else ("not migrated yet" if seen.revision is None else f"pbench writes {seen.head}; pbench db upgrade brings it there")
    )
    fields = {"database": seen.name, "dialect": seen.dialect, "revision": seen.revision, "head": seen.head, **seen.counts}
    if as_json:
        typer.echo(json.dumps(fields))
        return
    for key, value in fields.items():
        if key != "head":
            out_console.print(
                f"{key:9} {value if value is not None else '-'}" + (f" ({state})" if key == "revision" else ""), highlight=False
            )


@db_app.command()
def upgrade(db: DbOpt = DEFAULT_DB) -> None:
    """Bring a results database to this pbench's schema now (opening it for writing would do the same)."""
    configure_logging()
    file = _checked(db).file
    if file is not None and not file.is_file():
        raise fail(f"no results database at {db}")
    try:
        before, after = upgrade_schema(db)
    except StoreSchemaError as exc:
        raise fail(str(exc)) from None
    except StoreOpenError as exc:
        raise fail(f"--db {locate(db).name}: cannot open it as a results database: {exc}") from None
    err_console.print(
        f"{locate(db).name}: at {after}" if before == after else f"{locate(db).name}: upgraded from {before or 'no revision'} to {after}",
        highlight=False,
    )


def _checked(db: str) -> Location:
    try:
        return locate(db)
    except StoreOpenError as exc:
        raise fail(f"--db: {exc}") from None
