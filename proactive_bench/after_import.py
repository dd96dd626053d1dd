"""Run a function once a module is loaded: now if it is, else right after something first imports it.

What depends on a heavy module that a command may never load (structlog's set-up, ``logs.py``; the call cache
made one of LangChain's caches, ``llm/cache.py``) waits for that module's import instead of causing it.
This module imports nothing from pbench: any layer may use it.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any


def after_import(name: str, then: Callable[[], None]) -> None:
    """``then()`` now if module ``name`` is loaded, else right after its first import (the module found and loaded by its
    own finder and loader, as usual); ``then`` runs once either way."""
    if name in sys.modules:
        then()
        return
    sys.meta_path.insert(0, _AfterImport(name, then))


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
