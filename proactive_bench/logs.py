"""structlog set-up: key-value logs on stderr, quiet unless asked.

A command that logs nothing on its usual path (``pbench runs``, ``sweeps``, ``results``) calls
:func:`configure_logging_on_import`: structlog (about 40 ms of imports) then loads only if some module it reaches
imports it, and is set up as :func:`configure_logging` sets it the moment it does.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import logging
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any


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
    if "structlog" in sys.modules:
        configure_logging(verbose)
        return
    sys.meta_path.insert(0, _AfterImport("structlog", lambda: configure_logging(verbose)))


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``then`` right after the module ``name`` is first imported (found by the finders after this one, as usual)."""

    def __init__(self, name: str, then: Callable[[], None]) -> None:
        self.name = name
        self.then = then

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # once: from here on the module's own finder answers
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _LoadThen(spec.loader, self.then)
        return spec


class _LoadThen(importlib.abc.Loader):
    """A module's own loader, then ``then``; the module is left naming its own loader."""

    def __init__(self, loader: Any, then: Callable[[], None]) -> None:
        self.loader = loader
        self.then = then

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        self.then()
