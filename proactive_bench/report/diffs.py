"""Workspace changes between two snapshots (``Workspace.snapshot`` form), as unified diffs."""

from __future__ import annotations

import difflib
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
    kind = {"+": "add", "-": "del", "@": "hunk"}.get(text[:1], "same")
    return DiffLine(kind, text)  # type: ignore[arg-type]
