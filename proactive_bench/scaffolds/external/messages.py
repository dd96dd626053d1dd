"""The message protocol every external agent speaks, whatever carries it: one JSON object per event.

pbench sends ``session_start``, then ``user`` once per turn, then ``session_end``; the agent answers each
``user`` message (and only those) with ``{"type": "reply", "text": ...}``. Every message pbench sends
carries the session's ``conversation`` id, fresh for each session, so an agent serving several sessions at
once (an HTTP service in a sweep) can tell them apart. Anything the agent sends that is not a reply is an
:class:`ExternalAgentError` whose one-line message quotes the start of what it sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from proactive_bench.json_text import parse_json

MAX_LINE_BYTES = 1 << 20
"""The longest line (or HTTP response body) an agent may send: 1 MiB."""
MAX_UNREAD_BYTES = 4 << 20
"""The most a ``cmd:`` agent's stdout may hold unread (lines no turn asked for): 4 MiB; the reader stops there."""
SHOWN_CHARS = 120
"""How much of a bad line an error message quotes."""


class ExternalAgentError(RuntimeError):
    """An external agent broke the protocol, crashed, flooded or went silent; the message is one line."""


@dataclass(frozen=True)
class SessionOpening:
    """What ``session_start`` tells the agent about its session."""

    conversation: str
    session: str
    position: int
    trigger: str
    workspace: str
    mcp_url: str | None
    mcp_token: str | None
    history: list[list[dict[str, str]]]


def session_start(opening: SessionOpening) -> dict[str, Any]:
    """``{"type": "session_start", ...}``: the session's id, 1-based position in the episode, trigger kind, workspace
    folder, MCP endpoint (null without one) and the transcripts of the episode's earlier sessions."""
    mcp = {"url": opening.mcp_url, "token": opening.mcp_token} if opening.mcp_url else None
    return {
        "type": "session_start",
        "conversation": opening.conversation,
        "session": opening.session,
        "position": opening.position,
        "trigger": opening.trigger,
        "workspace": opening.workspace,
        "mcp": mcp,
        "history": opening.history,
    }


def user_message(conversation: str, text: str) -> dict[str, Any]:
    return {"type": "user", "conversation": conversation, "text": text}


def session_end(conversation: str) -> dict[str, Any]:
    return {"type": "session_end", "conversation": conversation}


def encode(event: dict[str, Any]) -> bytes:
    """One event as one line of UTF-8 JSON (newlines inside strings are escaped)."""
    return (json.dumps(event, ensure_ascii=False) + "\n").encode()


def shown(raw: bytes | str) -> str:
    """The start of what an agent sent, quoted on one line."""
    text = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
    text = text.rstrip("\r\n")
    return repr(text[:SHOWN_CHARS]) + (f" (+{len(text) - SHOWN_CHARS} chars)" if len(text) > SHOWN_CHARS else "")


def parse_reply(raw: bytes | str, what: str) -> str:
    """The text of a ``{"type": "reply", "text": ...}`` object, or an :class:`ExternalAgentError` naming ``what``
    (``stdout line``, ``response body``) and quoting it."""
    try:
        event = parse_json(raw)
    except ValueError:
        raise ExternalAgentError(f"the agent's {what} is not JSON: {shown(raw)}") from None
    if not isinstance(event, dict) or event.get("type") != "reply" or not isinstance(event.get("text"), str):
        raise ExternalAgentError(f'the agent\'s {what} is not a reply {{"type": "reply", "text": "..."}}: {shown(raw)}')
    return event["text"]
