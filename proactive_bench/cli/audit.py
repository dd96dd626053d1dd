"""``pbench audit``: checklist grades and intent statuses exported for auditors, their verdicts stored, disagreement shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from proactive_bench.campaign import run_fast
from proactive_bench.cli.common import (
    DEFAULT_DB,
    DbOpt,
    IdArg,
    err_console,
    fail,
    open_store,
    out_console,
    runs_of,
)
from proactive_bench.episode import ResumeError
from proactive_bench.llm import ModelSpecError
from proactive_bench.logs import configure_logging
from proactive_bench.reporting import audit_table
from proactive_bench.review import (
    AuditFileError,
    audit_rows,
    disagreement,
    import_audit_file,
    model_audit,
    write_audit_file,
)

audit_app = typer.Typer(help="Audits of checklist grades and intent statuses (the disagreement rates of table 6).", no_args_is_help=True)


@audit_app.command("export")
def audit_export(
    ident: IdArg,
    out: Annotated[Path, typer.Option("--out", help="The CSV file to write.")] = Path("audit.csv"),
    sample: Annotated[
        int | None,
        typer.Option(min=1, help="Only this many whole session runs (all their judgments), an equal share per model, drawn at random."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the sample.")] = 0,
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Write rubric grades and intent statuses to a CSV for auditors to fill in (column 'audited')."""
    store = open_store(db)
    rows = audit_rows(store, runs_of(store, ident, db), sample, seed)
    try:
        write_audit_file(rows, out)
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror}") from None
    err_console.print(f"{len(rows)} judgment(s) to audit: {out}", highlight=False)


@audit_app.command("import")
def audit_import(
    path: Annotated[Path, typer.Argument(help="A filled audit CSV.")],
    source: Annotated[str, typer.Option(help="Who audited, e.g. human:ana or model:gpt-4o.")],
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Store the verdicts of a filled audit CSV (blank rows are skipped; nothing is stored if a row is bad)."""
    store = open_store(db)
    try:
        count = import_audit_file(store, path, source)
    except AuditFileError as exc:
        raise fail(str(exc)) from None
    err_console.print(f"{count} verdict(s) stored from {source}", highlight=False)


@audit_app.command("model")
def audit_model(
    ident: IdArg,
    model: Annotated[str, typer.Option("--model", help="The auditing chat model, e.g. openai:gpt-4o.")],
    base_url: Annotated[str | None, typer.Option(help="Its OpenAI-compatible endpoint.")] = None,
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Have another model judge the rubric items and intent statuses again (source model:NAME)."""
    configure_logging()
    store = open_store(db)
    try:
        count = run_fast(model_audit(store, runs_of(store, ident, db), model, base_url))
    except (ModelSpecError, ResumeError) as exc:
        raise fail(str(exc)) from None
    err_console.print(f"{count} verdict(s) stored from model:{model}", highlight=False)


@audit_app.command("show")
def audit_show(
    ident: IdArg,
    db: DbOpt = DEFAULT_DB,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rates as JSON: one object per audit source.")] = False,
) -> None:
    """Disagreement rates (table 6): human sources by majority vote per judgment (ties counted), each model source apart."""
    store = open_store(db)
    rows = disagreement(store, runs_of(store, ident, db))
    if as_json:
        typer.echo(json.dumps([row.as_dict() for row in rows], indent=2))
        return
    out_console.print(audit_table(rows) if rows else "no audits recorded for these runs")
