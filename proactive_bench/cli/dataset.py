"""``pbench schema`` and ``tools``: the dataset format, the tools a dataset may offer."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from proactive_bench.cli.common import DataOpt, out_console
from proactive_bench.cli.episodes import load_or_exit
from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.env import REGISTRY, resolve_tool_names
from proactive_bench.suites import SUITES, Suite


def schema() -> None:
    """Print the JSON Schema of the dataset format (persona, episode, session; odyssey task; every suite's files)."""
    formats = {where: model for _name, suite in _all_suites() for where, model in suite.formats.items()}
    combined: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "pbench dataset",
        "description": "; ".join(f"{where}: {model.__name__}" for where, model in formats.items()) + ".",
        "$defs": {},
    }
    for model in formats.values():
        model_schema = model.model_json_schema(ref_template="#/$defs/{model}")
        combined["$defs"].update(model_schema.pop("$defs", {}))
        combined["$defs"][model.__name__] = model_schema
    typer.echo(json.dumps(combined, indent=2))


def _all_suites() -> list[tuple[str, Suite]]:
    return [(name, SUITES.get(name)) for name in SUITES.names()]


def tools(
    persona: Annotated[str | None, typer.Option(help="Only the tools this persona's sessions offer.")] = None,
    data: DataOpt = DEFAULT_DATA_ROOT,
    as_json: Annotated[bool, typer.Option("--json", help="Print name, group, description and argument schema as JSON.")] = False,
) -> None:
    """List registered tools with their argument schemas."""
    specs = resolve_tool_names([])  # loads every built-in tool and app
    if persona is None:
        specs = sorted(REGISTRY.values(), key=lambda s: (s.group, s.name))
    else:
        loaded = load_or_exit(data, persona)
        offered: dict[str, Any] = {}
        for session in loaded.sessions:
            offered.update((spec.name, spec) for spec in resolve_tool_names(session.tools))
        specs = sorted(offered.values(), key=lambda s: (s.group, s.name))
    if as_json:
        rows = [{"name": s.name, "group": s.group, "description": s.description, "args": s.json_schema()} for s in specs]
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title=f"{len(specs)} tools" + (f" offered to {persona}" if persona else ""))
    table.add_column("tool", no_wrap=True)  # names are what people copy: never cut
    table.add_column("group", no_wrap=True)
    table.add_column("arguments", overflow="fold")
    table.add_column("description")
    for spec in specs:
        props = spec.json_schema().get("properties", {})
        required = set(spec.json_schema().get("required", []))
        args = ", ".join(f"{k}{'' if k in required else '?'}: {v.get('type', 'any')}" for k, v in props.items())
        table.add_row(spec.name, spec.group, args, spec.description.splitlines()[0])
    out_console.print(table)
