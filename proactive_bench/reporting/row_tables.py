"""What the suite tables (pass rate, agentif, trainee) are built from: items grouped by a key, and named lists of rows."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

Item = TypeVar("Item")
Key = TypeVar("Key", bound=Hashable)
Rows = list[dict[str, Any]]
"""One table: its rows, each a dict of column to value."""


def group_by(items: Iterable[Item], key: Callable[[Item], Key]) -> dict[Key, list[Item]]:
    """The items under their key, each list in the items' order, the keys in order of first appearance."""
    groups: dict[Key, list[Item]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def no_rows() -> Any:  # a dataclass field
    """A :class:`RowTables` field's default: an empty list of rows."""
    return field(default_factory=list)


@dataclass
class RowTables:
    """Named lists of table rows (a dataclass's fields); the first holds the rows the others are drawn from.

    False when that first list is empty (no run of the suite), and a dict of every list for ``--json``.
    """

    def __bool__(self) -> bool:
        return bool(getattr(self, fields(self)[0].name))

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
