"""A ``cmd:`` agent that replays a recorded run through the session's MCP tools: a replay baseline (see replay.py).

    pbench episode --persona pharmacist --model scripted:reference --db ref.db
    pbench export latest --db ref.db --out reference.jsonl
    pbench episode --persona pharmacist --agent "cmd:.venv/bin/python examples/agents/cmd_reference.py reference.jsonl"

pbench starts it once per session in the session's workspace, with the MCP server's address and token in
``PBENCH_MCP_URL`` and ``PBENCH_MCP_TOKEN``, and exchanges one JSON object per line on stdin and stdout.
Use a Python that has the ``mcp`` package (pbench's own).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # replay.py, next to this file
from replay import NOTHING_LEFT, mcp_session, play, recorded_turns


async def main(recording: str) -> None:
    turns = recorded_turns(recording)
    async with mcp_session(os.environ["PBENCH_MCP_URL"], os.environ["PBENCH_MCP_TOKEN"]) as tools:
        pending: list = []
        while line := await asyncio.to_thread(sys.stdin.readline):
            event = json.loads(line)
            if event["type"] == "session_start":
                pending = list(turns.get(event["session"], []))
            elif event["type"] == "user":
                reply = await play(tools, pending.pop(0) if pending else NOTHING_LEFT)
                print(json.dumps({"type": "reply", "text": reply}), flush=True)
            else:  # session_end: this process's work is done
                return


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
