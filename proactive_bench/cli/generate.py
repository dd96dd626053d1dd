"""``pbench generate odyssey``: a dialogue history for an atomic task, written by one model and judged by another."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from proactive_bench.campaign import run_fast
from proactive_bench.cli.common import fail, out_console
from proactive_bench.cli.guards import check_endpoints
from proactive_bench.llm import ChatSettings, ChatTransport, LLMCallRecord, ModelSpecError, StructuredCaller, make_chat_model
from proactive_bench.logs import configure_logging
from proactive_bench.suites.odyssey import (
    CRITERIA,
    MAX_ROUNDS,
    GenerationInputError,
    Outcome,
    SeedTask,
    generate_history,
    load_seed_task,
    report_path,
    write_outcome,
)

generate_app = typer.Typer(help="Generate task content with models, for review.", no_args_is_help=True)


@generate_app.command("odyssey")
def odyssey(
    source: Annotated[Path, typer.Option("--from", help="The atomic task: an odyssey task.yaml without its history.")],
    model: Annotated[str, typer.Option(help="The generator model: openai:NAME (or openai/NAME).")],
    base_url: Annotated[Optional[str], typer.Option(help="The models' OpenAI-compatible endpoint (default: OpenAI's).")] = None,
    verifier_model: Annotated[Optional[str], typer.Option(help="The verifier model (default: the generator model).")] = None,
    out: Annotated[Optional[Path], typer.Option(help="The task file to write (default: generated/<task id>/task.yaml).")] = None,
    max_rounds: Annotated[int, typer.Option(min=1, max=MAX_ROUNDS, help="Rounds of writing and judging at most.")] = MAX_ROUNDS,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing task file and report.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the rounds as JSON.")] = False,
) -> None:
    """Write a >= 5-day dialogue history carrying every detail of an atomic task (generator-verifier loop, HomerAgents-style)."""
    configure_logging(False)
    try:
        task = load_seed_task(source)
    except GenerationInputError as exc:
        raise fail(str(exc)) from None
    out = out or Path("generated") / task.id / "task.yaml"
    existing = [p for p in (out, report_path(out)) if p.exists()]
    if existing and not force:
        raise fail(f"--out: {existing[0]} exists; --force replaces it")
    verifier = verifier_model or model
    if base_url:
        check_endpoints({base_url: ["generator", "verifier"]})
    calls: list[LLMCallRecord] = []
    try:
        outcome = run_fast(_generate(task, model, verifier, base_url, max_rounds, calls))
    except ModelSpecError as exc:
        raise fail(str(exc)) from None
    written = write_outcome(out, task, outcome, model, verifier, calls)
    if as_json:
        typer.echo(json.dumps({"status": outcome.status, "written": [str(p) for p in written], "error": outcome.error,
                               "rounds": [{"round": r.number, "passed": r.passed, "problems": r.problems, "verdict": r.verdict.model_dump()}
                                          for r in outcome.rounds]}, indent=2))
    else:
        out_console.print(_rounds_table(outcome))
        out_console.print(f"wrote {', '.join(str(p) for p in written)}", highlight=False)
    if outcome.status == "failed":
        raise fail(outcome.error or "generation failed", 1)
    if outcome.status == "rejected":
        raise fail(f"task {task.id}: not approved after {len(outcome.rounds)} round(s); no task file written (see {written[0]})", 1)


async def _generate(task: SeedTask, model: str, verifier: str, base_url: str | None, max_rounds: int, calls: list[LLMCallRecord]) -> Outcome:
    async with ChatTransport() as transport:
        settings = ChatSettings(base_url=base_url, transport=transport)
        writer = StructuredCaller(make_chat_model(model, settings), model, "agent", calls.append)
        judge = StructuredCaller(make_chat_model(verifier, settings), verifier, "judge", calls.append)
        return await generate_history(task, writer, judge, max_rounds)


def _rounds_table(outcome: Outcome) -> Table:
    table = Table("round", *CRITERIA, "checks", "passed", title=f"generation: {outcome.status}")
    for r in outcome.rounds:
        marks = ["yes" if getattr(r.verdict, name) else "no" for name in CRITERIA]
        table.add_row(str(r.number), *marks, "; ".join(r.problems) or "ok", "yes" if r.passed else "no")
    return table
