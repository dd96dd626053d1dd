"""``pbench results``, ``rescore``, ``report`` and ``export``: what stored runs scored, graded again, written as HTML or as records for other tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

import proactive_bench.episode as episode
import proactive_bench.review as review
from proactive_bench.campaign import run_fast
from proactive_bench.cli.common import (
    DEFAULT_DB,
    DbOpt,
    IdArg,
    MaybeIdArg,
    err_console,
    fail,
    open_reads,
    open_store,
    out_console,
    resolve_id,
    runs_of,
)
from proactive_bench.cli.episodes import open_run
from proactive_bench.episode import run_spec
from proactive_bench.llm import ModelSpecError
from proactive_bench.logs import configure_logging, configure_logging_on_import
from proactive_bench.reporting import (
    Agreement,
    BurdenRow,
    Summary,
    agreement_tables,
    audit_table,
    burden_rows,
    burden_table,
    category_table,
    compare_runs,
    comparison_dict,
    comparison_tables,
    results_table,
    run_agreement,
    summarize,
    summary_csv,
    summary_tables,
)
from proactive_bench.review import (
    TABLE_FORMATS,
    Disagreement,
    TableFormatError,
    disagreement,
    intent_rows,
    session_records,
    table_lines,
    write_jsonl,
    write_parquet,
)
from proactive_bench.scoring import PROTOCOLS


def print_summary(
    summary: Summary,
    fmt: str,
    by: str | None = None,
    burden: list[BurdenRow] | None = None,
    audits: list[Disagreement] | None = None,
) -> None:
    """Print a summary as tables (or per category), JSON or CSV; ``burden`` adds the user-burden figures, ``audits`` the
    judge disagreement of ``pbench audit`` (table 6, when any audit was imported)."""
    if by == "category":
        if fmt == "json":
            typer.echo(json.dumps(summary.categories, indent=2))
        else:
            out_console.print(category_table(summary))
    elif fmt == "json":
        extra = ({"burden": [r.as_dict() for r in burden]} if burden else {}) | (
            {"audits": [a.as_dict() for a in audits]} if audits else {}
        )
        typer.echo(json.dumps(summary.as_dict() | extra, indent=2))
    elif fmt == "csv":
        typer.echo(summary_csv(summary), nl=False)
    else:
        for table in summary_tables(summary):
            out_console.print(table)
        if burden:
            out_console.print(burden_table(burden))
        if audits:
            out_console.print(audit_table(audits))


def print_agreement(result: Agreement, fmt: str, ident: str) -> None:
    """The simulator-versus-person agreement as JSON or tables; a run without person labels says so (exit 1)."""
    if result.items == 0:
        raise fail(f"{ident} has no person labels: only runs of pbench play --as user have them")
    if fmt == "json":
        typer.echo(json.dumps(result.as_dict(), indent=2))
    else:
        for table in agreement_tables(result):
            out_console.print(table)


def results(
    ident: MaybeIdArg = None,
    compare: Annotated[
        str | None,
        typer.Option(
            "--compare",
            metavar="BASELINE",
            help="A run or sweep to compare ID with, paired by task: ID − BASELINE with a 95 % paired bootstrap interval, a permutation p-value, the tasks only one side has and the noise floor of repeats.",
        ),
    ] = None,
    db: DbOpt = DEFAULT_DB,
    fmt: Annotated[str, typer.Option("--format", help="table, json or csv.")] = "table",
    by: Annotated[str | None, typer.Option("--by", help="'category': only the task-averaged Proc / Comp per task category.")] = None,
    include_partial: Annotated[
        bool, typer.Option("--include-partial", help="Count runs stopped early (budget, Ctrl-C) in the figures.")
    ] = False,
    protocol: Annotated[str | None, typer.Option(help="Score every run by this protocol's rules (default: each run's own).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    agreement: Annotated[
        bool,
        typer.Option(
            "--agreement",
            help="Runs played with pbench play --as user: the person's intent labels against the simulator's (counts, confusion table, Cohen's κ).",
        ),
    ] = False,
) -> None:
    """Summaries of a sweep or a run (docs/metrics.md): Proc/Comp mean ± std and bootstrap interval, failures, pass^k, table 1, flip rates, ablation, statuses (table 7), turns (figure 4), categories (table 8), judge disagreement (table 6, once audited), cost; or two compared (ID --compare BASELINE)."""
    configure_logging_on_import()  # nothing logs on the reader's path: structlog stays unloaded
    fmt = "json" if as_json else fmt
    if fmt not in ("table", "json", "csv"):
        raise fail(f"--format must be table, json or csv, not {fmt!r}")
    if by not in (None, "category"):
        raise fail(f"--by must be 'category', not {by!r}")
    if protocol is not None and protocol not in PROTOCOLS:
        raise fail(f"--protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
    if ident is None:
        raise fail("give a sweep or run ID (with --compare BASELINE to compare two)")
    store = open_reads(db)
    scoring = PROTOCOLS[protocol].scoring if protocol else None
    if compare is not None:
        if fmt == "csv" or by is not None or agreement:
            raise fail("--compare prints a table or JSON (--format table|json), without --by or --agreement")
        a, b = (resolve_id(store, side).id for side in (compare, ident))  # the ids in full, for the labels
        comparison = compare_runs(store, runs_of(store, a, db), runs_of(store, b, db), scoring, labels=(a, b))
        if fmt == "json":
            typer.echo(json.dumps(comparison_dict(comparison), indent=2))
        else:
            for table in comparison_tables(comparison):
                out_console.print(table)
        return
    runs = runs_of(store, ident, db)
    if agreement:
        if fmt == "csv" or by is not None:
            raise fail("--agreement prints a table or JSON (--format table|json), without --by")
        print_agreement(run_agreement(store, runs), fmt, ident)
        return
    print_summary(summarize(store, runs, scoring, include_partial), fmt, by, burden_rows(store, runs), disagreement(store, runs))


def rescore(
    run_id: Annotated[str, typer.Argument(help="A finished run (an id, a unique prefix of one, or latest).")],
    judge_model: Annotated[str | None, typer.Option(help="Chat model for rubric items (default: the run's).")] = None,
    base_url: Annotated[str | None, typer.Option(help="Endpoint for the judge (default: the run's).")] = None,
    db: DbOpt = DEFAULT_DB,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Grade a finished run's sessions again from their saved final state, without re-running the agent."""
    configure_logging()
    store, run, loaded = open_run(db, run_id)
    spec = run_spec(run)
    try:
        result = run_fast(review.rescore_run(store, run, loaded, judge_model or spec.judge_model, base_url or spec.base_url))
    except (ModelSpecError, episode.ResumeError) as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
    else:
        out_console.print(results_table(result, len(loaded.sessions)))


def report(
    ident: MaybeIdArg = None,
    compare: Annotated[
        tuple[str, str] | None, typer.Option("--compare", metavar="RUN_A RUN_B", help="Two runs side by side instead.")
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", help="A folder (gets index.html and runs/), or NAME.html: the index, with runs/ beside it.")
    ] = Path("report"),
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Write a self-contained HTML report that works offline: an index (tables, figures, runs, a session × model matrix) and one page per run with every session's trajectory."""
    from proactive_bench.reporting.html import (  # matplotlib loads only here
        Report,
        ReportError,
        render_comparison,
        render_report,
        write_report,
    )

    configure_logging()
    if (ident is None) == (compare is None):
        raise fail("give a sweep or run ID, or --compare RUN_A RUN_B")
    store = open_store(db)
    try:
        html: Report | str
        if compare:
            html = render_comparison(store, *(resolve_id(store, run, sweeps=False).id for run in compare))
        else:
            html = render_report(store, resolve_id(store, ident or "").id)
    except ReportError as exc:
        raise fail(str(exc)) from None
    try:
        index = write_report(html, out)
    except OSError as exc:
        raise fail(f"cannot write {exc.filename or out}: {exc.strerror}") from None
    err_console.print(f"report: {index}", highlight=False)


def export(
    ident: IdArg,
    table: Annotated[
        str | None,
        typer.Option(
            "--table",
            help="sessions: one chat-format record per session (jsonl only); intents: one flat row per (run, session, intent) for notebooks (default with csv or parquet).",
        ),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="jsonl, csv or parquet (the intents table; parquet needs pyarrow: the tables extra).")
    ] = "jsonl",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="The file to write (default: standard output; parquet needs one).")
    ] = None,
    db: DbOpt = DEFAULT_DB,
) -> None:
    """Stored sessions for other tools: chat-format JSON records (loads with `datasets`), or a flat intents table as CSV or Parquet (loads with pandas)."""
    configure_logging()
    if fmt not in TABLE_FORMATS:
        raise fail(f"--format must be {', '.join(TABLE_FORMATS)}, not {fmt!r}")
    table = table or ("sessions" if fmt == "jsonl" else "intents")
    if table not in ("sessions", "intents"):
        raise fail(f"--table must be sessions or intents, not {table!r}")
    if table == "sessions" and fmt != "jsonl":
        raise fail(f"--table sessions holds nested messages: --format jsonl, or --table intents for {fmt}")
    if fmt == "parquet" and out is None:
        raise fail("--format parquet writes a file: give --out")
    store = open_store(db)
    runs = runs_of(store, ident, db)
    lines = write_jsonl(session_records(store, runs)) if table == "sessions" else table_lines(intent_rows(store, runs), fmt)
    if out is None:
        for line in lines:
            typer.echo(line, nl=False)
        return
    try:
        if fmt == "parquet":
            write_parquet(intent_rows(store, runs), out)
        else:
            with out.open("w", encoding="utf-8", newline="") as handle:
                handle.writelines(lines)
    except TableFormatError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"--out {out}: {exc.strerror or exc}") from None
    err_console.print(f"wrote {out}", highlight=False)
