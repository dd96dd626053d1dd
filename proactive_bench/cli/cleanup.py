"""``pbench gc``: delete runs, and remove what no run refers to from the results database."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from proactive_bench.cli.common import DEFAULT_DB, DbOpt, fail, open_store, runs_of
from proactive_bench.logs import configure_logging
from proactive_bench.review import collect_garbage, delete_runs
from proactive_bench.store import LeaseHeld


def gc(
    runs: Annotated[str | None, typer.Option("--runs", help="Delete these runs first: comma-separated run or sweep ids.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only say what would be deleted and removed.")] = False,
    db: DbOpt = DEFAULT_DB,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Remove workspace archives and sweeps no run refers to (after deleting --runs with their rows and recorded answers); a run being written is never touched."""
    configure_logging()
    store = open_store(db)
    idents = [ident.strip() for ident in (runs or "").split(",") if ident.strip()]
    if runs is not None and not idents:
        raise fail("--runs: give run or sweep ids, comma-separated")
    doomed = {run.id: run for ident in idents for run in runs_of(store, ident, db)}
    if not dry_run:
        try:
            delete_runs(store, list(doomed.values()))
        except LeaseHeld as exc:
            raise fail(f"not deleted: {exc}", 3) from None
    garbage = collect_garbage(store, dry_run=dry_run, gone=list(doomed) if dry_run else ())
    if as_json:
        typer.echo(json.dumps({"dry_run": dry_run, "runs": sorted(doomed), **garbage.as_dict()}))
        return
    verb = "would remove" if dry_run else "removed"
    if doomed:
        typer.echo(f"{'would delete' if dry_run else 'deleted'} {len(doomed)} run(s): {', '.join(sorted(doomed))}")
    typer.echo(
        f"{verb} {garbage.archives} workspace archive(s) ({garbage.archive_bytes:,} bytes stored) and {garbage.sweeps} empty sweep(s)"
    )
