"""One small mechanism for every extension point: a named :class:`Registry` of plugins.

A registry maps names to entries (a scaffold factory, a predicate kind, ...).
Built-ins register with the :meth:`Registry.register` decorator when the
module that defines them is imported: each registry's owner imports a catalog
module that imports them, so built-ins never depend on installed-package
metadata. Third-party plugins are found through the entry point group
``pbench.<kind>`` (``[project.entry-points."pbench.scaffolds"]`` in their
``pyproject.toml``); each entry point is loaded when its name is first asked
for and registered under that name. A built-in contributed by a higher layer
than the registry's owner (the π-Bench importer's grader scripts, for the
dataset's predicate checks) is declared as ``name -> "module:attr"`` when the
registry is made, or later with :meth:`Registry.declare`: loaded like an entry
point, without package metadata, and without the owner importing the layer
above it (or paying for the module's own imports until the name is used).

This module imports nothing from pbench: any layer may own a registry.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from functools import cached_property, lru_cache
from importlib.metadata import EntryPoint, EntryPoints, entry_points
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:  # Python 3.11's entry_points() without a group (3.12 gives EntryPoints); both select by group
    from importlib.metadata import SelectableGroups

T = TypeVar("T")
E = TypeVar("E")

ENTRY_POINT_PREFIX = "pbench."


def installed_entry_points() -> EntryPoints | SelectableGroups:
    """Every installed entry point, of every group: one scan shared by all registries (a scan reads every installed
    distribution's metadata, a few milliseconds each time), read again when a folder of ``sys.path`` changed (a
    distribution added or removed, as ``importlib.metadata`` itself tells) or after a :meth:`Registry.rescan`."""
    return _scan(tuple((folder, _modified(folder)) for folder in sys.path))


@lru_cache(maxsize=1)
def _scan(_path: tuple[tuple[str, float], ...]) -> EntryPoints | SelectableGroups:
    return entry_points()


def _modified(folder: str) -> float:
    try:
        return os.stat(folder or ".").st_mtime
    except OSError:
        return -1.0


class PluginError(LookupError):
    """An unknown name, a name registered twice, or a plugin that cannot be loaded; the message says which."""


class Registry(Generic[T]):
    """Entries of one kind by name: built-ins registered by decorator, plugins from entry points.

    ``kind`` names the registry in messages and, with the ``pbench.`` prefix,
    its entry point group (``Registry("scaffolds")`` reads ``pbench.scaffolds``).
    """

    def __init__(self, kind: str, builtins: Mapping[str, str] | None = None) -> None:
        self.kind = kind
        self.group = ENTRY_POINT_PREFIX + kind
        self._entries: dict[str, T] = {}
        self._builtins = {name: EntryPoint(name, target, self.group) for name, target in (builtins or {}).items()}
        self._loaded: set[str] = set()
        self._aliases: dict[str, str] = {}

    def alias(self, old: str, name: str) -> None:
        """Let ``old`` (a renamed entry's former name) find the entry ``name``; :meth:`names` lists only ``name``."""
        self._aliases[old] = name

    def canonical(self, name: str) -> str:
        """``name``, or the name it is an alias of."""
        return self._aliases.get(name, name)

    def declare(self, name: str, target: str) -> None:
        """Declare a built-in as ``name -> "module:attr"``: listed at once, its module imported when ``name`` is first asked for."""
        if name in self._entries or name in self._builtins:
            raise PluginError(f"{self.kind}: {name!r} registered twice")
        self._builtins[name] = EntryPoint(name, target, self.group)
        self.__dict__.pop("plugins", None)  # read again with the new built-in

    def register(self, name: str) -> Callable[[E], E]:
        """Decorator: register the decorated object under ``name`` (twice is an error)."""

        def decorate(entry: E) -> E:
            self.add(name, entry)  # type: ignore[arg-type]  # the decorated entry is a T (a class or factory of it); E keeps its own type for the caller
            return entry

        return decorate

    def add(self, name: str, entry: T) -> T:
        """Register ``entry`` under ``name`` (twice is an error)."""
        if name in self._entries:
            raise PluginError(f"{self.kind}: {name!r} registered twice")
        self._entries[name] = entry
        return entry

    def get(self, name: str) -> T:
        """The entry named ``name`` (or an alias of it): a built-in, else an installed plugin (loaded now); PluginError if neither."""
        name = self.canonical(name)
        if name in self._entries:
            return self._entries[name]
        plugin = self.plugins.get(name)
        if plugin is None:
            raise PluginError(f"unknown {self.kind} {name!r}; known: {', '.join(self.names()) or 'none'}")
        try:
            loaded = plugin.load()
        except Exception as exc:  # a third-party module: missing, a syntax error, a bug at import
            raise PluginError(f"{self.kind} {name!r} (entry point {plugin.value}) cannot be loaded: {exc}") from exc
        self._loaded.add(name)
        return self._entries.setdefault(name, loaded)

    def find(self, name: str) -> T | None:
        """The entry named ``name``, or None when there is none (a plugin that fails to load still raises)."""
        return self.get(name) if name in self else None

    def from_plugin(self, name: str) -> bool:
        """Whether the entry named ``name`` was loaded from an entry point (not registered by code in this process)."""
        return name in self._loaded

    def __contains__(self, name: object) -> bool:
        name = self._aliases.get(name, name) if isinstance(name, str) else name
        return name in self._entries or name in self.plugins

    def names(self) -> list[str]:
        """Every name: the declared built-ins in their order (loaded or not), those registered by code in registration
        order, then installed plugins not loaded yet."""
        return list(dict.fromkeys([*self._builtins, *self._entries, *self.plugins]))

    def items(self) -> Iterator[tuple[str, T]]:
        """The registered entries (plugins only once loaded)."""
        return iter(list(self._entries.items()))

    @cached_property
    def plugins(self) -> dict[str, EntryPoint]:
        """The declared built-ins, then the installed entry points of this registry's group, read once (scanning is slow)."""
        installed = installed_entry_points().select(group=self.group)
        return {**self._builtins, **{ep.name: ep for ep in installed if ep.name not in self._builtins}}

    def rescan(self) -> None:
        """Forget the entry points read so far and the plugins loaded from them (after installing or removing a plugin in a running process; tests)."""
        _scan.cache_clear()
        self.__dict__.pop("plugins", None)
        for name in self._loaded:
            self._entries.pop(name, None)
        self._loaded.clear()
