"""An ``http:`` agent that replays a recorded run through each session's MCP tools: a replay baseline (see replay.py).

    pbench export latest --db ref.db --out reference.jsonl          # a scripted:reference run, as in cmd_reference.py
    python examples/agents/http_reference.py reference.jsonl --port 8000 &
    pbench episode --persona pharmacist --agent http:http://127.0.0.1:8000/

Each event is a JSON POST; ``session_start`` carries the MCP server's address and token, ``conversation`` tells the
sessions apart, and each conversation keeps one MCP session until ``session_end``. Requests are served in threads,
the MCP sessions on one event loop of their own. It prints its URL on stdout once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # replay.py, next to this file
from replay import Conversation, Turn, recorded_turns

TURNS: dict[str, list[Turn]] = {}
SESSIONS: dict[str, Conversation] = {}
LOOP = asyncio.new_event_loop()


def on_loop(work: Any) -> Any:
    return asyncio.run_coroutine_threadsafe(work, LOOP).result()


async def opened(event: dict[str, Any]) -> Conversation:
    return Conversation(event["mcp"]["url"], event["mcp"]["token"], TURNS.get(event["session"], []))


class Agent(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # connections kept alive: pbench's client sends the run's events over one
    disable_nagle_algorithm = True  # the body goes out at once, not after the client's delayed ACK of the headers (40 ms)

    def do_POST(self) -> None:
        event = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = b"{}"
        if event["type"] == "session_start":
            SESSIONS[event["conversation"]] = on_loop(opened(event))
        elif event["type"] == "user":
            reply = on_loop(SESSIONS[event["conversation"]].next_turn())
            body = json.dumps({"type": "reply", "text": reply}).encode()
        elif (ended := SESSIONS.pop(event["conversation"], None)) is not None:
            on_loop(ended.close())
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: no line per request on stderr."""


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("recording")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    TURNS.update(recorded_turns(args.recording))
    threading.Thread(target=LOOP.run_forever, daemon=True).start()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Agent)
    print(f"http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()
