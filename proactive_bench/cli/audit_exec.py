"""``pbench audit``'s work: the judgments exported, verdicts stored, another model's audit run, disagreement shown.

``audit.py`` holds the commands' options, all ``--help`` needs; this module (the review code, the results store, the
model clients) loads when one of them runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from proactive_bench.campaign import run_fast
from proactive_bench.cli.common import err_console, fail, open_store, out_console, runs_of
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


def export_audit(ident: str, out: Path, sample: int | None, seed: int, db: str) -> None:
    """``pbench audit export``: the runs' rubric grades and intent statuses to a CSV for auditors."""
    store = open_store(db)
    rows = audit_rows(store, runs_of(store, ident, db), sample, seed)
    try:
        write_audit_file(rows, out)
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror}") from None
    err_console.print(f"{len(rows)} judgment(s) to audit: {out}", highlight=False)


def import_audit(path: Path, source: str, db: str) -> None:
    """``pbench audit import``: a filled audit CSV's verdicts stored, all or none."""
    store = open_store(db)
    try:
        count = import_audit_file(store, path, source)
    except AuditFileError as exc:
        raise fail(str(exc)) from None
    err_console.print(f"{count} verdict(s) stored from {source}", highlight=False)


def audit_by_model(ident: str, model: str, base_url: str | None, db: str) -> None:
    """``pbench audit model``: another model judges the rubric items and intent statuses again."""
    configure_logging()
    store = open_store(db)
    try:
        count = run_fast(model_audit(store, runs_of(store, ident, db), model, base_url))
    except (ModelSpecError, ResumeError) as exc:
        raise fail(str(exc)) from None
    err_console.print(f"{count} verdict(s) stored from model:{model}", highlight=False)


def show_audit(ident: str, db: str, as_json: bool) -> None:
    """``pbench audit show``: the disagreement rates, as a table or JSON."""
    store = open_store(db)
    rows = disagreement(store, runs_of(store, ident, db))
    if as_json:
        typer.echo(json.dumps([row.as_dict() for row in rows], indent=2))
        return
    out_console.print(audit_table(rows) if rows else "no audits recorded for these runs")
