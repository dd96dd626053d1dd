"""structlog set-up: key-value logs on stderr, quiet unless asked.

A command that logs nothing on its usual path (``pbench runs``, ``sweeps``, ``results``) calls
:func:`configure_logging_on_import`: structlog (about 40 ms of imports) then loads only if some module it reaches
imports it, and is set up as :func:`configure_logging` sets it the moment it does.
"""

from __future__ import annotations

import logging
import sys

from proactive_bench.after_import import after_import


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at the time (test runners swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(verbose: bool = False) -> None:
    import structlog  # here, not at the top: configure_logging_on_import leaves it unloaded until something uses it

    level = logging.INFO if verbose else logging.WARNING
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=_CurrentStderr()),  # type: ignore[arg-type]  # PrintLoggerFactory only calls write and flush, which _CurrentStderr has
        cache_logger_on_first_use=False,
    )


def configure_logging_on_import(verbose: bool = False) -> None:
    """:func:`configure_logging` now if structlog is loaded, else once something imports it (nothing logs before then)."""
    after_import("structlog", lambda: configure_logging(verbose))
