"""``pbench import``: every importer registered in :data:`~proactive_bench.importers.IMPORTERS`, mounted by suite name."""

from __future__ import annotations

import copy

import typer

from proactive_bench.cli.common import fail
from proactive_bench.importers import IMPORTERS
from proactive_bench.registry import PluginError

import_app = typer.Typer(help="Import another benchmark's data as a pbench dataset.", no_args_is_help=True, add_completion=False)


def mount_importer(group: typer.Typer, name: str) -> None:
    """``pbench import NAME``: the importer's one command, or its commands under NAME; one line if it cannot load."""
    try:
        importer = IMPORTERS.get(name)
    except PluginError as exc:
        problem = str(exc)

        @group.command(
            name, help=f"(cannot be loaded: {problem})", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
        )
        def unavailable() -> None:
            raise fail(problem)

        return
    if len(importer.registered_commands) == 1 and not importer.registered_groups:
        command = copy.copy(importer.registered_commands[0])
        command.name = name
        group.registered_commands.append(command)
    else:
        group.add_typer(importer, name=name)


for _name in IMPORTERS.names():
    mount_importer(import_app, _name)
