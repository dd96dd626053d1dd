"""Plain-text renderings of a session for model judges: dialogue, tool calls, files, memory.

Everything is clipped so that one long file or tool result cannot crowd the
rest out of a judge's context; clipping is always marked in the text, and
recorded (:func:`collecting_clips`) so that a decision made on clipped evidence
says so (:func:`clipped_note`) and results can count such decisions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from proactive_bench.env.toolbox import ToolRecord
from proactive_bench.env.workspace import PathEscapeError, Workspace
from proactive_bench.evidence import Message

MESSAGE_CHARS = 4_000
TOOL_FIELD_CHARS = 1_500
FILE_CHARS = 12_000
SPEAKERS = {"user": "USER", "event": "EVENT", "agent": "ASSISTANT"}


def one_line(text: str, limit: int) -> str:
    """The text with its whitespace collapsed, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_CLIPS: ContextVar[list[int] | None] = ContextVar("pbench_clips", default=None)
CLIPPED_MARK = "[decided on clipped evidence:"


@contextmanager
def collecting_clips() -> Iterator[list[int]]:
    """Within the block, every clip appends the number of characters it dropped to the yielded list."""
    dropped: list[int] = []
    token = _CLIPS.set(dropped)
    try:
        yield dropped
    finally:
        _CLIPS.reset(token)


def clipped_note(dropped: list[int]) -> str:
    """The note a decision made on clipped evidence carries ("" when nothing was clipped)."""
    return f" {CLIPPED_MARK} {len(dropped)} part(s) cut, {sum(dropped)} characters not shown]" if dropped else ""


def was_clipped(text: str | None) -> bool:
    """Whether a recorded rationale or evidence carries the clipped-evidence note."""
    return bool(text) and CLIPPED_MARK in text  # type: ignore[operator]


def clip(text: str, limit: int) -> str:
    """The text, cut to ``limit`` characters with a marker saying how much was dropped (and recorded)."""
    if len(text) <= limit:
        return text
    collected = _CLIPS.get()
    if collected is not None:
        collected.append(len(text) - limit)
    return f"{text[:limit]}\n[... {len(text) - limit} more characters not shown]"


def render_dialogue(transcript: Iterable[Message]) -> str:
    """``[turn N] SPEAKER: text`` blocks, in order."""
    blocks = [f"[turn {m.turn}] {SPEAKERS.get(m.role, m.role.upper())}: {clip(m.content, MESSAGE_CHARS)}" for m in transcript]
    return "\n\n".join(blocks) or "(no messages)"


def _compact(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return clip(text, TOOL_FIELD_CHARS)


def render_tool_records(records: Iterable[ToolRecord]) -> str:
    """One line per call with its arguments and its response or error."""
    lines = []
    for r in records:
        outcome = f"-> {_compact(r.result.get('response'))}" if r.ok else f"-> ERROR {_compact(r.result.get('error'))}"
        lines.append(f"[turn {r.turn}] {r.tool_name}({_compact(r.call)}) {outcome}")
    return "\n".join(lines) or "(no tool calls)"


def render_files(workspace: Workspace, patterns: Iterable[str]) -> str:
    """The contents of workspace files matching paths or globs; missing ones are said to be missing."""
    blocks = []
    for pattern in patterns:
        try:
            matches = sorted(p for p in workspace.root.glob(pattern) if p.is_file())
        except (ValueError, PathEscapeError) as exc:
            blocks.append(f"--- {pattern}: invalid pattern ({exc})")
            continue
        if not matches:
            blocks.append(f"--- {pattern}: no such file in the workspace")
        for path in matches:
            relative = path.relative_to(workspace.root).as_posix()
            text = path.read_text(encoding="utf-8", errors="replace")
            blocks.append(f"--- file {relative} ---\n{clip(text, FILE_CHARS)}")
    return "\n\n".join(blocks) or "(no files requested)"


def render_changed_files(workspace: Workspace, paths: Iterable[str]) -> str:
    """Files the latest turn created, changed or deleted, with their current text."""
    blocks = []
    for relative in paths:
        try:
            path = workspace.resolve(relative)
        except PathEscapeError:
            continue
        if not path.is_file():
            blocks.append(f"--- {relative}: deleted")
        else:
            blocks.append(f"--- file {relative} ---\n{clip(path.read_text(encoding='utf-8', errors='replace'), FILE_CHARS)}")
    return "\n\n".join(blocks) or "(no files changed)"
