"""A ``cmd:`` agent that replays a recorded run through the session's MCP tools: a replay baseline (see replay.py).

    pbench episode --persona pharmacist --model scripted:reference --db ref.db
    pbench export latest --db ref.db --out reference.jsonl
    pbench episode --persona pharmacist --agent "cmd:.venv/bin/python examples/agents/cmd_reference.py reference.jsonl"

pbench starts it in the run's workspace and exchanges one JSON object per line on stdin and stdout. Each
``session_start`` names that session's MCP server (``mcp``: ``url`` and ``token``), so the same loop serves one
session (the default: stdin closes after ``session_end``) or all of a run's sessions (``--agent-lifetime episode``:
stdin closes after the last one). Use a Python that has the ``mcp`` package (pbench's own).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # replay.py, next to this file
from replay import NOTHING_LEFT, Turn, mcp_session, play, recorded_turns


async def next_event() -> dict | None:
    line = await asyncio.to_thread(sys.stdin.readline)
    return json.loads(line) if line else None


async def session(start: dict, turns: list[Turn]) -> None:
    """One session, from its ``session_start`` to its ``session_end``, on its own MCP server."""
    async with mcp_session(start["mcp"]["url"], start["mcp"]["token"]) as tools:
        while (event := await next_event()) is not None and event["type"] == "user":
            reply = await play(tools, turns.pop(0) if turns else NOTHING_LEFT)
            print(json.dumps({"type": "reply", "text": reply}), flush=True)


async def main(recording: str) -> None:
    turns = recorded_turns(recording)
    while (event := await next_event()) is not None:  # stdin closed: the process's work is done
        if event["type"] == "session_start":
            await session(event, list(turns.get(event["session"], [])))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
