"""Plain-text renderings of a session for model judges: dialogue, tool calls, files, memory.

Everything is clipped so that one long file or tool result cannot crowd the
rest out of a judge's context (limits that grow with the reader's context window,
:func:`evidence_limits`); clipping is always marked in the text, and
recorded (:func:`collecting_clips`) so that a decision made on clipped evidence
says so (:func:`clipped_note`) and results can count such decisions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple

from proactive_bench.data_model.clipped import CLIPPED_MARK
from proactive_bench.data_model.messages import Message
from proactive_bench.env import ToolRecord, Workspace, file_text, jail
from proactive_bench.llm import CHARS_PER_TOKEN

MESSAGE_CHARS = 4_000
TOOL_FIELD_CHARS = 1_500
FILE_CHARS = 12_000
EVIDENCE_SHARE = 0.5  # of a reader's context window, in characters, that one evidence part may take
SPEAKERS = {"user": "USER", "event": "EVENT", "agent": "ASSISTANT"}


class ClipLimits(NamedTuple):
    """Characters shown of one message, one tool-call field, one file."""

    message: int
    tool_field: int
    file: int


DEFAULT_LIMITS = ClipLimits(MESSAGE_CHARS, TOOL_FIELD_CHARS, FILE_CHARS)


def evidence_limits(context_tokens: int | None) -> ClipLimits:
    """The clip limits for a reader with a ``context_tokens`` window (None: unknown).

    The largest part, a file, may take ``EVIDENCE_SHARE`` of the window in characters
    (at ``CHARS_PER_TOKEN``) and the other limits grow in the same proportion; never below
    the defaults, which stay as they are for an unknown or small (up to 8k-token) window.
    The prompt as a whole is still fitted to the window by the LLM layer (``call_prompt``).
    """
    if not context_tokens:
        return DEFAULT_LIMITS
    scale = max(1.0, context_tokens * CHARS_PER_TOKEN * EVIDENCE_SHARE / FILE_CHARS)
    return ClipLimits(*(int(limit * scale) for limit in DEFAULT_LIMITS))


_CLIPS: ContextVar[list[int] | None] = ContextVar("pbench_clips", default=None)
_LIMITS: ContextVar[ClipLimits] = ContextVar("pbench_clip_limits", default=DEFAULT_LIMITS)


@contextmanager
def collecting_clips(context_tokens: int | None = None) -> Iterator[list[int]]:
    """Within the block, evidence is rendered for a reader with a ``context_tokens`` window
    (:func:`evidence_limits`) and every clip appends the number of characters it dropped to the yielded list."""
    dropped: list[int] = []
    token, limits = _CLIPS.set(dropped), _LIMITS.set(evidence_limits(context_tokens))
    try:
        yield dropped
    finally:
        _CLIPS.reset(token)
        _LIMITS.reset(limits)


def clipped_note(dropped: list[int]) -> str:
    """The note a decision made on clipped evidence carries ("" when nothing was clipped)."""
    return f" {CLIPPED_MARK} {len(dropped)} part(s) cut, {sum(dropped)} characters not shown]" if dropped else ""


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
    limit = _LIMITS.get().message
    blocks = [f"[turn {m.turn}] {SPEAKERS.get(m.role, m.role.upper())}: {clip(m.content, limit)}" for m in transcript]
    return "\n\n".join(blocks) or "(no messages)"


def _compact(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return clip(text, _LIMITS.get().tool_field)


def render_tool_records(records: Iterable[ToolRecord]) -> str:
    """One line per call with its arguments and its response or error."""
    lines = []
    for r in records:
        outcome = f"-> {_compact(r.result.get('response'))}" if r.ok else f"-> ERROR {_compact(r.result.get('error'))}"
        lines.append(f"[turn {r.turn}] {r.tool_name}({_compact(r.call)}) {outcome}")
    return "\n".join(lines) or "(no tool calls)"


def files_matching(workspace: Workspace, patterns: Iterable[str]) -> list[str]:
    """The workspace files (as the jail lists them) that match any of the paths or globs, in pattern order; bad patterns match nothing."""
    candidates = [e.path for e in workspace.scan().entries if e.kind != "dir"]
    found: list[str] = []
    for pattern in patterns:
        try:
            regex = jail.glob_regex(jail.check_pattern(pattern))
        except jail.Refused:
            continue
        found += [path for path in candidates if regex.match(path) and path not in found]
    return found


def render_files(workspace: Workspace, patterns: Iterable[str]) -> str:
    """The contents of workspace files matching paths or globs, read through the jail; missing ones are said to be missing.

    Documents (pdf, docx, xlsx, pptx) appear as their extracted text (``env.file_text``).

    A pattern matches what :func:`jail.walk` lists (regular files, and links
    and special files so that they are reported): a file the jail refuses (a
    link leaving the workspace, a FIFO, a device, a hard link, a loop, a file
    too large) appears as its ``[skipped: ...]`` marker, never its content.
    """
    scan, limit = workspace.scan(), _LIMITS.get().file
    candidates = [e for e in scan.entries if e.kind != "dir"]
    blocks = []
    for pattern in patterns:
        try:
            regex = jail.glob_regex(jail.check_pattern(pattern))
        except jail.Refused as exc:
            blocks.append(f"--- {pattern}: invalid pattern ({exc})")
            continue
        matches = [e.path for e in candidates if regex.match(e.path)]
        if not matches:
            blocks.append(f"--- {pattern}: no such file in the workspace")
        for relative in matches:
            blocks.append(f"--- file {jail.shown(relative)} ---\n{clip(file_text(workspace, relative, limit), limit)}")
    return "\n\n".join(blocks) or "(no files requested)"


def _read_shown(workspace: Workspace, name: str, limit: int) -> str:
    """The text of a file named as :func:`jail.shown` names it (a non-UTF-8 name arrives escaped), else as given."""
    original = jail.unshown(name)
    if original != name:
        try:
            return jail.read_text(workspace.root, original, limit)
        except jail.Missing:
            pass
    return jail.read_text(workspace.root, name, limit)


def render_changed_files(workspace: Workspace, paths: Iterable[str], absent: str = "deleted") -> str:
    """Files the latest turn created, changed or deleted, with their current text (read through the jail); ``absent``: what a
    missing file is called."""
    blocks, limit = [], _LIMITS.get().file
    for relative in paths:
        try:
            text = _read_shown(workspace, relative, limit)
        except jail.Missing:
            blocks.append(f"--- {jail.shown(relative)}: {absent}")
            continue
        except jail.Refused as exc:
            blocks.append(f"--- {jail.shown(relative)}: {exc.marker()}")
            continue
        blocks.append(f"--- file {jail.shown(relative)} ---\n{clip(text, limit)}")
    return "\n\n".join(blocks) or "(no files changed)"
