"""What every ``pbench`` command uses: the consoles, one-line failures, the results database and ids in it.

It imports no dataset, agent or model code (``episodes.py`` loads episodes), so a command reading the database starts fast;
the database code itself loads when a command first opens one (``store_package``, a lazy package), so ``validate`` never does.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

import proactive_bench.store as store_package
from proactive_bench.store import DEFAULT_DB as DEFAULT_DB  # the commands take it from here (an explicit re-export)
from proactive_bench.terminal import TableConsole

if TYPE_CHECKING:
    from proactive_bench.store import Location, ReadQueries, Store, StoredRun, StoredSweep

err_console = Console(stderr=True, soft_wrap=True)
out_console = TableConsole()

DataOpt = Annotated[Path, typer.Option("--data", help="Dataset root holding personas/, episodes/ and graders/.")]
DB_HELP = "Results database: a SQLite file, or a PostgreSQL URL postgresql+psycopg://USER:PASSWORD@HOST:PORT/NAME (also from PBENCH_DB)."
DbOpt = Annotated[str, typer.Option("--db", envvar="PBENCH_DB", help=DB_HELP)]
MaybeDbOpt = Annotated[str | None, typer.Option("--db", envvar="PBENCH_DB", help=DB_HELP)]
NoValidateOpt = Annotated[
    bool, typer.Option("--no-validate", help="Skip the checks of pbench validate before running (they are cached by the data's content).")
]
OtelOpt = Annotated[
    bool,
    typer.Option(
        "--otel",
        help="Export a trace per episode over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318); on too when that is set (docs/traces.md).",
    ),
]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Log progress details to stderr.")]
RunJsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
"""``--json`` of the commands that run an episode (``episode``, ``resume``, ``replay``): the run's results as one object."""
ID_HELP = "A sweep or a run: its id, a unique prefix of one, or latest."
IdArg = Annotated[str, typer.Argument(metavar="ID", help=ID_HELP)]
MaybeIdArg = Annotated[str | None, typer.Argument(metavar="ID", help=ID_HELP)]


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``error: message`` on stderr; the exit to raise (code 2: bad input, 1: a failed check or run, 3: a held lease)."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False)  # a message's [brackets] are its text, not markup
    return typer.Exit(code)


def settings_error(exc: ValidationError) -> str:
    """A settings model's refusal as one line: each field and its reason."""
    return "; ".join(
        f"{'.'.join(map(str, e['loc'])) + ': ' if e['loc'] else ''}{e['msg'].removeprefix('Value error, ')}" for e in exc.errors()
    )


def warn(message: str) -> None:
    """Print ``warning: message`` on stderr (one line; the command goes on)."""
    err_console.print(f"[yellow]warning:[/] {message}", highlight=False, markup=True)


def open_store(db: str, create: bool = False, read_only: bool = False) -> Store:
    """The results database at ``--db`` (a SQLite file, made if ``create``; or a database URL), or a one-line error;
    ``read_only``: opened so that nothing can be written (see :class:`~proactive_bench.store.Store`)."""
    file = store_location(db).file
    if file is not None:
        check_file(db, file, create)
    try:
        return store_package.Store(db, read_only=read_only)
    except store_package.StoreSchemaError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"--db {db}: cannot open it as a results database: {exc.strerror}: {exc.filename}") from None
    except store_package.StoreOpenError as exc:
        raise fail(f"--db {store_package.locate(db).name}: cannot open it as a results database: {exc}") from None


def open_reads(db: str) -> ReadQueries:
    """The results database at ``--db`` for a command that only reads it: a SQLite file at this pbench's schema revision is
    read with the standard library (:func:`~proactive_bench.store.open_reader`: no SQLAlchemy loads); anything else (a
    URL, an older database, which is migrated, or one that cannot be read) opens as :func:`open_store` does."""
    if "://" not in db and "\x00" not in db:  # a path: SQLite (a sqlite:/// URL opens through SQLAlchemy)
        check_file(db, Path(db))
        reader = store_package.open_reader(Path(db))
        if reader is not None:
            return reader
    return open_store(db)


def check_file(db: str, file: Path, create: bool = False) -> None:
    """A one-line error unless ``--db``'s SQLite file is there (or may be made, with ``create``)."""
    if file.is_dir():
        raise fail(f"--db {db}: is a folder, not a results database")
    if not create and not file.is_file():
        raise fail(f"no results database at {db}")


def store_location(db: str) -> Location:
    """Where ``--db`` points (a SQLite file or a database URL), or a one-line error."""
    try:
        return store_package.locate(db)
    except store_package.StoreOpenError as exc:
        raise fail(f"--db: {exc}") from None


def results_dir(db: str) -> Path:
    """Where runs' workspaces and the validation cache go: beside a SQLite file, else ./pbench-runs (the machine's own disk)."""
    return store_location(db).results_dir


def resolve_id(store: ReadQueries, ident: str, runs: bool = True, sweeps: bool = True) -> StoredRun | StoredSweep:
    """The run or sweep an id names (whole, a unique prefix, or ``latest``), or a one-line error listing the candidates."""
    try:
        return store.resolve(ident, runs=runs, sweeps=sweeps)
    except store_package.IdLookupError as exc:
        raise fail(str(exc)) from None


def runs_of(store: ReadQueries, ident: str, db: str) -> list[StoredRun]:
    """The runs of a sweep or the run an id names (whole, a unique prefix, or ``latest``), or a one-line error."""
    found = resolve_id(store, ident)
    runs = store.runs_for(found.id)
    if not runs:
        raise fail(f"{store.name}: sweep {found.id} has no runs")
    return runs
