"""structlog set-up: key-value logs on stderr, quiet unless asked; pbench's loggers.

pbench's modules log through :func:`get_logger`, which imports structlog (about 40 ms of imports) when a logger is
first used: a run that logs nothing (a scripted episode, ``pbench runs``) loads no structlog. Commands call
:func:`configure_logging_on_import`: structlog is set up as :func:`configure_logging` sets it the moment it loads.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from typing import Any

from proactive_bench.after_import import after_import


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at the time (test runners swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(verbose: bool = False) -> None:
    import structlog  # here, not at the top: configure_logging_on_import leaves it unloaded until something uses it

    _ON_IMPORT.level = None
    level = _level(verbose)
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
    """:func:`configure_logging` now if structlog is loaded, else once something imports it (a pbench logger's first
    message at or above the level, see :class:`_LazyLogger`). Called again before then, the latest call's level applies
    (one import hook waits, not one per call)."""
    if "structlog" in sys.modules:
        configure_logging(verbose)
        return
    waiting = _ON_IMPORT.level is not None
    _ON_IMPORT.level = _level(verbose)
    if not waiting:
        after_import("structlog", _configure_as_waiting)


def _configure_as_waiting() -> None:
    """:func:`configure_logging` at the level the latest :func:`configure_logging_on_import` asked for, if one still waits."""
    if _ON_IMPORT.level is not None:
        configure_logging(verbose=_ON_IMPORT.level <= logging.INFO)


def _level(verbose: bool) -> int:
    return logging.INFO if verbose else logging.WARNING


@dataclass
class _SetUpOnImport:
    level: int | None = None
    """The level :func:`configure_logging_on_import` sets up once structlog loads; None: no set-up is waiting."""


_ON_IMPORT = _SetUpOnImport()


def get_logger(name: str) -> Any:
    """``structlog.get_logger(name)``, made (and structlog imported) at the logger's first use."""
    return _LazyLogger(name)


FILTERED = {"debug": logging.DEBUG, "info": logging.INFO}
"""A logger's methods that may log below the level set up on import, by level."""


class _LazyLogger:
    """structlog's logger of a name, made when one of its methods is first looked up.

    While structlog is unloaded and :func:`configure_logging_on_import` will set it up at a level above a method's
    (``info`` when not verbose), that method drops the message without loading structlog, as structlog's filtering
    logger would (a new results database's ``results_database_migrated``, every scripted run's)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: Any = None

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):  # not a logger's method (copy, pickle): nothing to load structlog for
            raise AttributeError(attribute)
        if self._logger is None:
            waiting = _ON_IMPORT.level
            if waiting is not None and FILTERED.get(attribute, waiting) < waiting and "structlog" not in sys.modules:
                return _dropped
            import structlog

            self._logger = structlog.get_logger(self._name)
        return getattr(self._logger, attribute)


def _dropped(*_args: Any, **_kwargs: Any) -> None:
    """A message below the level logs are set up at: nothing is written."""
