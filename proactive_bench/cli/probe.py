"""``pbench probe``: what a model server can do, one short call per capability."""

from __future__ import annotations

from typing import Annotated

import typer

from proactive_bench.campaign import run_fast
from proactive_bench.cli.common import fail, out_console
from proactive_bench.llm import ModelSpecError, probe_model, probe_table
from proactive_bench.logs import configure_logging


def probe(
    model: Annotated[str, typer.Option(help="The model to probe: openai:NAME (or openai/NAME).")],
    base_url: Annotated[str | None, typer.Option(help="Its OpenAI-compatible endpoint (default: OpenAI's).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """One short call per capability (plain chat, json_schema, function calling, JSON mode, tool use) and a table of what works."""
    configure_logging(False)
    try:
        report = run_fast(probe_model(model, base_url))
    except ModelSpecError as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(report.to_json())
    else:
        out_console.print(probe_table(report))
    if not report.reachable:
        raise fail(f"no answer from {report.base_url}: {report.capabilities[0].detail}")
