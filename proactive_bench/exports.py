"""A package's public names, each imported from the module that defines it when first used.

A subpackage's ``__init__`` that imported every module eagerly made any use of
one name pay for all of them (``pbench runs`` reading a status enum loaded the
agents, the model clients and the simulated apps). Instead the ``__init__``
declares where each public name lives and hands attribute lookups to an
:class:`Exports` (PEP 562)::

    _EXPORTS = Exports(__name__, {"sweep": ("SweepConfig", "run_sweep")}, renamed={"Outcome2": "rounds:Outcome"})
    __all__ = ["Outcome2", "SweepConfig", "run_sweep"]

    def __getattr__(name: str) -> Any:
        return _EXPORTS.load(name)

``from package import name`` then imports only ``package.<module>``. A public
name may not be the name of one of the package's modules (importing that module
would set the package attribute to the module); tests/test_architecture.py
checks it, and that every declared name exists.

This module imports nothing from pbench: any layer may use it.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Mapping
from typing import Any


class Exports:
    """Where each public name of ``package`` is defined: ``{module: (name, ...)}`` and ``renamed={name: "module:attr"}``.

    Modules are relative to the package (``"apps.base"``).
    """

    def __init__(self, package: str, modules: Mapping[str, tuple[str, ...]], renamed: Mapping[str, str] | None = None) -> None:
        self.package = package
        self.where = {name: (module, name) for module, names in modules.items() for name in names}
        for name, target in (renamed or {}).items():
            module, _, attribute = target.partition(":")
            self.where[name] = (module, attribute)

    def names(self) -> list[str]:
        return sorted(self.where)

    def load(self, name: str) -> Any:
        """The public ``name``, its module imported now (once: the value is then a plain attribute of the package)."""
        if name not in self.where:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        module, attribute = self.where[name]
        value = getattr(importlib.import_module(f"{self.package}.{module}"), attribute)
        setattr(sys.modules[self.package], name, value)
        return value


def moved_names(old: str, new: Mapping[str, str]) -> Any:
    """A module ``__getattr__`` (PEP 562) for names that moved out of module ``old``: each resolves from the module
    ``new`` names for it, with a DeprecationWarning naming that module (the old path goes in pbench 0.3)."""

    def __getattr__(name: str) -> Any:
        if name not in new:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(f"{old}.{name} moved: import it from {new[name]} (the old path goes in pbench 0.3)", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(new[name]), name)

    return __getattr__
