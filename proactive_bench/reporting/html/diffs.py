"""What a session changed: workspace files as unified diffs, app tables as rows added, changed or removed."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

MAX_DIFF_LINES = 400
"""Lines shown per file; the rest is counted, not shown (keeps big reports fast)."""

Change = Literal["added", "removed", "modified"]


@dataclass(frozen=True)
class DiffLine:
    kind: Literal["add", "del", "hunk", "same"]
    text: str


@dataclass(frozen=True)
class FileDiff:
    path: str
    change: Change
    lines: list[DiffLine] = field(default_factory=list)
    hidden: int = 0
    note: str = ""
    """Why there is no text diff (binary or large file)."""


def workspace_diff(before: dict[str, Any], after: dict[str, Any]) -> list[FileDiff]:
    """Files added, removed or changed from ``before`` to ``after``, by path."""
    diffs = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old is not None and new is not None and old.get("sha256") == new.get("sha256"):
            continue
        change: Change = "added" if old is None else "removed" if new is None else "modified"
        diffs.append(_file_diff(path, change, old or {}, new or {}))
    return diffs


def _file_diff(path: str, change: Change, old: dict[str, Any], new: dict[str, Any]) -> FileDiff:
    if (old and "text" not in old) or (new and "text" not in new):
        return FileDiff(path, change, note=f"binary or large file ({old.get('size', 0)} → {new.get('size', 0)} bytes)")
    raw = difflib.unified_diff(
        str(old.get("text", "")).splitlines(), str(new.get("text", "")).splitlines(), "before", "after", lineterm="", n=3
    )
    lines = [_line(text) for text in list(raw)[2:]]  # drop the ---/+++ header
    return FileDiff(path, change, lines[:MAX_DIFF_LINES], max(0, len(lines) - MAX_DIFF_LINES))


def _line(text: str) -> DiffLine:
    kinds: dict[str, Literal["add", "del", "hunk"]] = {"+": "add", "-": "del", "@": "hunk"}
    return DiffLine(kinds.get(text[:1], "same"), text)


IGNORED_APP_TABLES = frozenset({"app_clock", "app_login"})
"""Bookkeeping that changes in every session (the simulated time, login tokens)."""
MAX_APP_ROWS = 20
"""Rows shown per table and kind of change."""


@dataclass(frozen=True)
class RowChange:
    key: str
    fields: dict[str, Any]
    """Added or removed: the whole row; changed: field -> [old, new]."""


@dataclass(frozen=True)
class TableDiff:
    table: str
    added: list[RowChange] = field(default_factory=list)
    changed: list[RowChange] = field(default_factory=list)
    removed: list[RowChange] = field(default_factory=list)
    hidden: int = 0


def app_diff(before: dict[str, list[dict[str, Any]]], after: dict[str, list[dict[str, Any]]]) -> list[TableDiff]:
    """Rows added, changed or removed per app table (``AppStore.snapshot`` form); rows match by ``id``."""
    diffs = []
    for table in sorted((set(before) | set(after)) - IGNORED_APP_TABLES):
        old, new = _keyed(before.get(table, [])), _keyed(after.get(table, []))
        added = [RowChange(k, new[k]) for k in new if k not in old]
        removed = [RowChange(k, old[k]) for k in old if k not in new]
        changed = [
            RowChange(k, {f: [old[k].get(f), new[k].get(f)] for f in sorted(set(old[k]) | set(new[k])) if old[k].get(f) != new[k].get(f)})
            for k in new
            if k in old and old[k] != new[k]
        ]
        if added or changed or removed:
            hidden = sum(max(0, len(rows) - MAX_APP_ROWS) for rows in (added, changed, removed))
            diffs.append(TableDiff(table, added[:MAX_APP_ROWS], changed[:MAX_APP_ROWS], removed[:MAX_APP_ROWS], hidden))
    return diffs


def _keyed(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Rows by id; rows without one (link tables) by their whole content."""
    return {f"id {row['id']}" if "id" in row else json.dumps(row, sort_keys=True): row for row in rows}
