"""A command stopped by Ctrl-C or SIGTERM: one line and exit 128 + the signal, never a traceback.

Kept apart from ``guards.py`` (the checks of a run, which import the dataset,
store and model-server code) so that a command's module can wrap itself without
loading those for ``--help``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import typer

import proactive_bench.campaign as campaign  # its signal handling (asyncio) loads when the command runs, not for --help
from proactive_bench.cli.common import err_console

Command = TypeVar("Command", bound=Callable[..., Any])


def stops_cleanly(command: Command) -> Command:
    """A command that Ctrl-C or SIGTERM stops with one line and exit 128 + the signal, never a traceback.

    Inside :func:`~proactive_bench.cli.guards.owning` the runs are marked interrupted and the line says how to resume them.
    """

    @functools.wraps(command)
    def stoppable(*args: Any, **kwargs: Any) -> Any:
        with campaign.stop_on_signals():
            try:
                return command(*args, **kwargs)
            except campaign.Interrupted as stop:
                err_console.print("interrupted; nothing was run", highlight=False)
                raise typer.Exit(stop.exit_code) from None

    return stoppable  # type: ignore[return-value]  # functools.wraps keeps the wrapped command's signature, which mypy cannot follow
