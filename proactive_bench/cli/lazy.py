"""The ``pbench`` command group that imports a command's module only when that command runs.

Most of pbench's start-up is importing: the agents, model clients and
simulated apps a run needs cost seconds that ``pbench runs`` or ``pbench
--help`` have no use for. Here each command is named by where it lives
(:class:`CommandSource`); ``pbench --help`` lists them with the first
paragraph of their help, read from the module's source without importing it
(the command function's docstring, or the ``help=`` of a ``typer.Typer``
group); running a command, or asking for its own ``--help``, imports its module
and builds it exactly as typer would from ``app.command()`` or ``app.add_typer``.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import typer
from typer.core import TyperCommand, TyperGroup
from typer.main import get_command_from_info, get_group_from_info
from typer.models import CommandInfo, TyperInfo

if TYPE_CHECKING:  # typer's vendored click: the types TyperGroup's methods take (typer exports neither)
    from typer._click import Command, Context
TYPER_SHORT_EXCEPTIONS = True
"""typer's default for ``pretty_exceptions_short``, which pbench's app keeps."""


@dataclass(frozen=True)
class CommandSource:
    """One ``pbench`` command: its name, the module that defines it, and the function or ``typer.Typer`` there."""

    name: str
    module: str
    attribute: str

    def help(self) -> str:
        """The command's help as typer would show it, read from the module's source (no import)."""
        for node in _module_source(self.module).body:
            if isinstance(node, ast.FunctionDef) and node.name == self.attribute:
                return ast.get_docstring(node) or ""
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == self.attribute for t in node.targets):
                return _typer_help(node.value)
        raise LookupError(f"pbench command {self.name}: {self.module} defines no {self.attribute}")

    def load(self, markup_mode: Any) -> Command:
        """The command built from its module, which is imported now."""
        found = getattr(importlib.import_module(self.module), self.attribute)
        if isinstance(found, typer.Typer):
            return get_group_from_info(
                TyperInfo(found, name=self.name),
                pretty_exceptions_short=found.pretty_exceptions_short,
                rich_markup_mode=found.rich_markup_mode,
                suggest_commands=found.suggest_commands,
            )
        return get_command_from_info(
            CommandInfo(name=self.name, callback=found),
            pretty_exceptions_short=TYPER_SHORT_EXCEPTIONS,
            rich_markup_mode=markup_mode,
        )


@functools.cache
def _module_source(module: str) -> ast.Module:
    """A module's syntax tree, parsed once (``episode``, ``resume`` and ``replay`` share one)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise LookupError(f"no module {module}")
    with open(spec.origin, encoding="utf-8") as source:
        return ast.parse(source.read(), spec.origin)


def _typer_help(value: ast.expr) -> str:
    """The literal ``help=`` of a ``typer.Typer(...)`` call ("" for anything else)."""
    if isinstance(value, ast.Call):
        for keyword in value.keywords:
            if keyword.arg == "help" and isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str):
                return keyword.value.value
    return ""


class LazyCommands(MutableMapping[str, "Command"]):
    """A group's commands by name, in help order: those named by a :class:`CommandSource` are built on first lookup."""

    def __init__(self, sources: tuple[CommandSource, ...], built: dict[str, Command], markup_mode: Any) -> None:
        self.sources = {source.name: source for source in sources}
        self.built = built
        self.markup_mode = markup_mode

    def __getitem__(self, name: str) -> Command:
        if name not in self.built and name in self.sources:
            self.built[name] = self.sources[name].load(self.markup_mode)
        return self.built[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self.built[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self.built.pop(name, None)
        self.sources.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        yield from self.sources
        yield from (name for name in self.built if name not in self.sources)

    def __len__(self) -> int:
        return len(self.sources.keys() | self.built.keys())

    def stand_in(self, name: str) -> Command | None:
        """A command not built yet as a help listing needs it: its name and help only (None once built, or unknown)."""
        if name in self.built or name not in self.sources:
            return None
        return TyperCommand(name=name, help=self.sources[name].help())


class LazyGroup(TyperGroup):
    """A typer group whose commands (``SOURCES``, in help order) are imported when looked up, not when listed.

    Subclass it with ``SOURCES`` set and pass the subclass as ``typer.Typer(cls=...)``.
    """

    SOURCES: ClassVar[tuple[CommandSource, ...]] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = self.lazy = LazyCommands(self.SOURCES, dict(self.commands), self.rich_markup_mode)
        self.listing = False

    def list_commands(self, ctx: Context) -> list[str]:
        return list(self.commands)  # the names only: TyperGroup's own reads every command

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        """The command, imported on first lookup; while the group's help is written, a stand-in holding only its help."""
        stand_in = self.lazy.stand_in(cmd_name) if self.listing else None
        return stand_in or super().get_command(ctx, cmd_name)

    def format_help(self, ctx: Context, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False
