"""An ``http:`` agent that replays a recorded run through each session's MCP tools: a replay baseline (see replay.py).

    pbench export latest --db ref.db --out reference.jsonl          # a scripted:reference run, as in cmd_reference.py
    python examples/agents/http_reference.py reference.jsonl --port 8000 &
    pbench episode --persona pharmacist --agent http:http://127.0.0.1:8000/

Each event is a JSON POST; ``session_start`` carries the MCP server's address and token, ``conversation`` tells the
sessions apart. It prints its URL on stdout once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # replay.py, next to this file
from replay import NOTHING_LEFT, Turn, mcp_session, play, recorded_turns

TURNS: dict[str, list[Turn]] = {}
SESSIONS: dict[str, tuple[dict[str, str], list[Turn]]] = {}  # conversation: (its MCP endpoint, its turns to come)


async def replay_turn(mcp: dict[str, str], turn: Turn) -> str:
    async with mcp_session(mcp["url"], mcp["token"]) as tools:
        return await play(tools, turn)


class Agent(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        event = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = b"{}"
        if event["type"] == "session_start":
            SESSIONS[event["conversation"]] = (event["mcp"], list(TURNS.get(event["session"], [])))
        elif event["type"] == "user":
            mcp, pending = SESSIONS[event["conversation"]]
            reply = asyncio.run(replay_turn(mcp, pending.pop(0) if pending else NOTHING_LEFT))
            body = json.dumps({"type": "reply", "text": reply}).encode()
        else:
            SESSIONS.pop(event["conversation"], None)
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("recording")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    TURNS.update(recorded_turns(args.recording))
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Agent)
    print(f"http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()
