"""The ``pbench`` command line: the typer app, its commands in the order ``pbench --help`` lists them.

| module | commands |
|---|---|
| `run.py` | `episode`, `resume`, `replay` |
| `sweep.py` | `sweep` |
| `probe.py` | `probe` |
| `results.py` | `results`, `rescore`, `report`, `export` |
| `runs.py` | `runs`, `sweeps` |
| `dataset.py` | `validate`, `schema`, `tools` |
| `audit.py` | `audit export/import/model/show` |
| `imports.py` | `import <suite>`: every importer in `importers.IMPORTERS` |
| `generate.py` | `generate odyssey`: a task's dialogue history; `generate agentif`: a new task from a seed's workflow and a local corpus; both from a generator and a verifier model |
| `cleanup.py` | `gc` |
| `db.py` | `db serve/stop/info/upgrade`: a local PostgreSQL server to try, a results database's revision and counts |

`common.py` holds what every command uses (consoles, one-line failures,
opening the results database and the dataset, ids resolved from a prefix or ``latest``), `guards.py` the checks before
and around a run, `options.py` the options ``episode`` and ``sweep`` share.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from typing import Annotated

import typer
from dotenv import load_dotenv

from proactive_bench.cli import cleanup, dataset, probe, results, run, runs, sweep
from proactive_bench.cli.audit import audit_app
from proactive_bench.cli.db import db_app
from proactive_bench.cli.generate import generate_app
from proactive_bench.cli.imports import import_app

__all__ = ["app"]

app = typer.Typer(help="pbench: measure whether AI assistants are proactive.", no_args_is_help=True, add_completion=False)


def _print_version(wanted: bool) -> None:
    if wanted:
        typer.echo(f"pbench {version('pbench')}")
        raise typer.Exit()


@app.callback()
def _settings_from_dotenv(
    _version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """pbench: measure whether AI assistants are proactive."""
    load_dotenv(Path.cwd() / ".env", override=False)  # keys and URLs kept beside the project; the environment wins


for command in (
    run.episode, run.resume, probe.probe, run.replay, sweep.sweep, runs.runs, runs.sweeps, results.results, results.rescore,
    dataset.validate, dataset.schema, dataset.tools, results.report, results.export, cleanup.gc,
):
    app.command()(command)
app.add_typer(import_app, name="import")
app.add_typer(audit_app, name="audit")
app.add_typer(generate_app, name="generate")
app.add_typer(db_app, name="db")
