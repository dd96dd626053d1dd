"""``pbench audit``: checklist grades and intent statuses exported for auditors, their verdicts stored, disagreement shown.

This module holds the commands' options, all ``--help`` needs; their work (``audit_exec.py``: the review code, the
results store, the model clients) loads when one runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from proactive_bench.cli.common import DEFAULT_DB, DbOpt, IdArg

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
    from proactive_bench.cli.audit_exec import export_audit  # the review code and the store load when it runs

    export_audit(ident, out, sample, seed, db)


@audit_app.command("import")
def audit_import(
    path: Annotated[Path, typer.Argument(help="A filled audit CSV.")],
    source: Annotated[str, typer.Option(help="Who audited, e.g. human:ana or model:gpt-4o.")],
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Store the verdicts of a filled audit CSV (blank rows are skipped; nothing is stored if a row is bad)."""
    from proactive_bench.cli.audit_exec import import_audit  # the review code and the store load when it runs

    import_audit(path, source, db)


@audit_app.command("model")
def audit_model(
    ident: IdArg,
    model: Annotated[str, typer.Option("--model", help="The auditing chat model, e.g. openai:gpt-4o.")],
    base_url: Annotated[str | None, typer.Option(help="Its OpenAI-compatible endpoint.")] = None,
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Have another model judge the rubric items and intent statuses again (source model:NAME)."""
    from proactive_bench.cli.audit_exec import audit_by_model  # the review code, the store and the model clients load when it runs

    audit_by_model(ident, model, base_url, db)


@audit_app.command("show")
def audit_show(
    ident: IdArg,
    db: DbOpt = DEFAULT_DB,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rates as JSON: one object per audit source.")] = False,
) -> None:
    """Disagreement rates (table 6): human sources by majority vote per judgment (ties counted), each model source apart."""
    from proactive_bench.cli.audit_exec import show_audit  # the review code and the store load when it runs

    show_audit(ident, db, as_json)
