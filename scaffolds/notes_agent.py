"""EXAMPLE custom scaffold: a rule-based note-taker (no language model).

It shows the shape of a scaffold, not a good agent. On every message it

1. lists the workspace root,
2. reads each file the message names (anything that looks like ``name.ext``),
3. saves the message to memory as ``request_<session>_<n>``,
4. replies with a short summary of what it found.

Every action goes through ``ctx.tools.call``, so the framework records it.
Run it with::

    pbench episode --persona pharmacist --model scaffolds/notes_agent.py:NotesAgent
"""

from __future__ import annotations

import re

from proactive_bench import AgentTurn, SessionContext, ToolRecord

FILE_NAME = re.compile(r"[\w./-]+\.[A-Za-z0-9]+")
PREVIEW_CHARS = 80


class NotesAgent:
    """Lists the workspace, reads the files a message names and notes the request."""

    def __init__(self) -> None:
        self._ctx: SessionContext | None = None
        self._count = 0

    def start_session(self, ctx: SessionContext) -> None:
        self._ctx = ctx
        self._count = 0

    def end_session(self) -> None:
        self._ctx = None

    def respond(self, message: str) -> AgentTurn:
        if self._ctx is None:
            raise RuntimeError("respond() called before start_session()")
        tools = self._ctx.tools
        self._count += 1
        listing = tools.call("list_dir", {"path": "."})
        lines = [
            f"The workspace holds: {', '.join(listing.result['response']) or 'nothing'}."
            if listing.ok
            else "I could not list the workspace."
        ]
        for name in dict.fromkeys(m.rstrip(".") for m in FILE_NAME.findall(message)):
            lines.append(_describe(name, tools.call("read_file", {"path": name})))
        key = f"request_{self._ctx.session_id}_{self._count}"
        saved = tools.call("memory_write", {"key": key, "text": message})
        lines.append(f"I noted your request in memory as {key}." if saved.ok else "I could not save a note.")
        return AgentTurn(reply="\n".join(lines))


def _describe(name: str, record: ToolRecord) -> str:
    if not record.ok:
        return f"I could not read {name}: {record.result['error']}"
    text: str = record.result["response"]
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return f"{name}: {len(text.splitlines())} lines, starting with {first[:PREVIEW_CHARS]!r}."
