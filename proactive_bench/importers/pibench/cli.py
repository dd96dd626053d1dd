"""``pbench import pibench PATH [--out DIR]``."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from proactive_bench.dataset import DatasetError, Problem, load_dataset
from proactive_bench.importers.pibench.convert import convert_pibench
from proactive_bench.importers.pibench.reader import read_pibench
from proactive_bench.importers.pibench.report import ImportReport, PersonaCounts
from proactive_bench.importers.pibench.writer import (
    OutputError,
    prepare_out,
    write_dataset,
)
from proactive_bench.terminal import TableConsole
from proactive_bench.validation import validate_dataset

import_app = typer.Typer(
    help="The π-Bench importer, mounted as `pbench import pibench` through IMPORTERS.", no_args_is_help=True, add_completion=False
)
err_console = Console(stderr=True, soft_wrap=True)
out_console = TableConsole()


@import_app.command("pibench")
def pibench(
    path: Annotated[Path, typer.Argument(help="A π-Bench checkout, or its data/ folder.")],
    out: Annotated[Path, typer.Option(help="Dataset root to write (new, empty, or an earlier import).")] = Path("pibench-data"),
    as_json: Annotated[bool, typer.Option("--json", help="Print the counts per persona as JSON instead of a table.")] = False,
) -> None:
    """Convert π-Bench personas and tasks into a dataset root for --data; report what could not be converted."""
    if not path.is_dir():
        err_console.print(f"[bold red]error:[/] {path} is not a folder", highlight=False)
        raise typer.Exit(2)
    report = ImportReport(path)
    source = read_pibench(path, report)
    if not source.personas:
        err_console.print(f"[bold red]error:[/] no π-Bench personas under {source.data_dir}", highlight=False)
        raise typer.Exit(2)
    try:
        prepare_out(out)
    except OutputError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    write_dataset(convert_pibench(source, report), out)
    report.validation = validate_output(out)
    report_path = report.write(out)
    for problem in report.problems:
        err_console.print(f"[yellow]not converted[/] {problem}", highlight=False)
    for persona, flag, tasks in report.gaps:
        err_console.print(f"[magenta]flagged[/] {persona}: {flag} ({len(tasks)} task(s): {', '.join(tasks)})", highlight=False)
    if as_json:
        typer.echo(json.dumps([asdict(row) for row in report.counts], indent=2))
    else:
        out_console.print(counts_table(report.counts))
    errors = [p for p in report.validation if p.level == "error"]
    if errors:
        for problem in errors:
            err_console.print(f"[red]{problem}[/]", highlight=False)
        err_console.print(
            f"[bold red]error:[/] wrote {out}, but `pbench validate` rejects it ({len(errors)} error(s), listed above and in {report_path})",
            highlight=False,
        )
        raise typer.Exit(1)
    warnings = len(report.validation) - len(errors)
    err_console.print(
        f"wrote {out} ({len(report.counts)} persona(s)); validate: ok, {warnings} warning(s); "
        f"{len(report.problems)} item(s) not converted as in π-Bench, "
        f"{len({(p, t) for p, _, tasks in report.gaps for t in tasks})} session(s) flagged for what it cannot reproduce; see {report_path}. "
        f"Run it with: pbench episode --data {out} --persona NAME --protocol pibench --user-model MODEL --judge-model MODEL",
        highlight=False,
    )


def validate_output(out: Path) -> list[Problem]:
    """What ``pbench validate --data OUT`` reports (a load failure as its problems)."""
    try:
        return validate_dataset(load_dataset(out))
    except DatasetError as exc:
        return list(exc.problems)


def counts_table(counts: list[PersonaCounts]) -> Table:
    table = Table(title="π-Bench import")
    table.add_column("")
    for row in counts:
        table.add_column(row.persona, justify="right", no_wrap=True)
    table.add_column("total", justify="right", no_wrap=True)
    for name, header in PersonaCounts.COLUMNS.items():
        values = [getattr(row, name) for row in counts]
        table.add_row(header, *map(str, values), str(sum(values)))
    return table
