"""The ``pbench`` command line: the typer app, its commands in the order ``pbench --help`` lists them.

| module | commands |
|---|---|
| `run.py` | `episode`, `resume`, `replay` (their options; `run_exec.py` their work) |
| `sweep.py` | `sweep` (its options; `sweep_exec.py` its work) |
| `probe.py` | `probe` |
| `results.py` | `results`, `rescore`, `report`, `export` |
| `runs.py` | `runs`, `sweeps` |
| `view.py` | `view`: a local web app over a results database (read-only) |
| `validate.py` | `validate` (a report of unchanged files and pbench comes from the user's cache) |
| `dataset.py` | `schema`, `tools` |
| `audit.py` | `audit export/import/model/show` (their options; `audit_exec.py` their work) |
| `imports.py` | `import <suite>`: every importer in `importers.IMPORTERS` |
| `generate.py` | `generate odyssey`: a task's dialogue history; `generate odyssey-neo`: a new task and its history from an environment; `generate agentif`: a new task from a seed's workflow and a local corpus; both from a generator and a verifier model (their options; `generate_exec.py` their work) |
| `cleanup.py` | `gc` |
| `db.py` | `db serve/stop/info/upgrade`: a local PostgreSQL server to try, a results database's revision and counts |
| `play.py` | `play`: a person at the terminal in the agent's seat or the user's (`--as user`: their labels stored beside the simulator's; its options, `play_exec.py` its work) |
| `mcp_serve.py` | `mcp`: one session's world over MCP on its own (http on 127.0.0.1 with a token, or stdio) |

`lazy.py` holds the group that imports a command's module only when that
command runs (``pbench --help`` reads the help from the sources), so a command
pays only for its own imports. `common.py` holds what every command uses
(consoles, one-line failures, opening the results database, ids resolved from
a prefix or ``latest``; no dataset, agent or model code), `episodes.py` loading
an episode from a dataset or a stored run, `guards.py` the checks before and
around a run, `stopping.py` a clean stop on Ctrl-C or SIGTERM, `option_groups.py` options taken as one dataclass parameter,
`options.py` the groups ``episode`` and ``sweep`` share.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Annotated, Any

import typer
from dotenv import load_dotenv
from typer._click.exceptions import ClickException, NoArgsIsHelpError  # typer 0.2x vendors click; neither is re-exported

from proactive_bench.cli.lazy import CommandSource, LazyGroup
from proactive_bench.garbage_collection import collect_young_less_often

__all__ = ["app"]

collect_young_less_often()  # before a command's imports, most of a short command's CPU (garbage_collection.py)


class PbenchCommands(LazyGroup):
    """pbench's commands, each imported only when it runs (``pbench runs`` loads no agent, model client or simulated app)."""

    SOURCES = tuple(
        CommandSource(name, f"proactive_bench.cli.{module}", attribute)
        for name, module, attribute in (
            ("episode", "run", "episode"),
            ("resume", "run", "resume"),
            ("probe", "probe", "probe"),
            ("replay", "run", "replay"),
            ("sweep", "sweep", "sweep"),
            ("runs", "runs", "runs"),
            ("sweeps", "runs", "sweeps"),
            ("results", "results", "results"),
            ("view", "view", "view"),
            ("rescore", "results", "rescore"),
            ("validate", "validate", "validate"),
            ("schema", "dataset", "schema"),
            ("tools", "dataset", "tools"),
            ("report", "results", "report"),
            ("export", "results", "export"),
            ("gc", "cleanup", "gc"),
            ("import", "imports", "import_app"),
            ("audit", "audit", "audit_app"),
            ("generate", "generate", "generate_app"),
            ("db", "db", "db_app"),
            ("mcp", "mcp_serve", "mcp"),
            ("play", "play", "play"),
        )
    )

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command; typer's own usage errors (an unknown option, a bad value) print one ``error:`` line, as pbench's do."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            code = super().main(
                args, prog_name, complete_var, False, windows_expand_args, **extra
            )  # an Exit's code, or the command's return value
        except NoArgsIsHelpError as exc:  # typer has printed the help already
            sys.exit(exc.exit_code)
        except ClickException as exc:
            command = getattr(getattr(exc, "ctx", None), "command_path", "pbench")
            typer.echo(f"error: {' '.join(exc.format_message().split())} (see: {command} --help)", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("Aborted.", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    cls=PbenchCommands,
    help="pbench: measure whether AI assistants are proactive.",
    no_args_is_help=True,
    add_completion=False,
)


def _print_version(wanted: bool) -> None:
    if wanted:
        typer.echo(f"pbench {version('pbench')}")
        raise typer.Exit()


@app.callback()
def _settings_from_dotenv(
    _version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """pbench: measure whether AI assistants are proactive."""
    load_dotenv(Path.cwd() / ".env", override=False)  # keys and URLs kept beside the project; the environment wins
