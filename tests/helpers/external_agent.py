"""A ``cmd:`` agent for the external-agent tests, misbehaving as its first argument asks (stdlib only, but for the modes that call tools: the MCP client SDK).

Every mode appends its pid to ``pids.txt`` in its working folder. Modes: ``echo`` (well behaved: notes each message in ``seen.txt`` in its working folder, replies ``turn N``),
``crash SESSION`` (like echo, but raises at its first message in SESSION), ``hang [SESSION]`` (never replies, ignores
SIGTERM; given SESSION, only there, like echo elsewhere), ``flood`` (one endless line), ``blank`` (endless blank lines), ``junk`` (prints a line that is not JSON), ``deep`` (a line of JSON nested too deep to read), ``twice`` (two
replies per message), ``linger`` (like echo, but does not exit after session_end, ignoring SIGTERM), ``chatter`` (replies, then
writes replies without end), ``dump PATH`` (like echo, and appends its environment, arguments and every message it
receives to PATH as JSON lines; ``dump PATH tools`` also the answers of the session's MCP server to a tool listing
and two calls, at each session's start), ``gate PATH`` (like echo, but after session_end waits up to 10 s for PATH to
exist, noting ``gate seen`` or ``gate missed`` in ``seen.txt``), ``busy [N]`` (at each message, calls ``list_dir`` over
the session's MCP server N times, or without end, noting each answer in ``calls.txt``, then replies). Each mode serves sessions until stdin closes: one
process may serve several (``--agent-lifetime episode``); ``turn N`` counts the session's turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from typing import Any


@contextlib.asynccontextmanager
async def mcp_tools(url: str, token: str) -> AsyncIterator[Any]:
    """A client session on the session's MCP server (the official MCP client SDK, which only the modes using tools need)."""
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as tools,
    ):
        await tools.initialize()
        yield tools


def answer_text(answer: Any) -> str:
    return "".join(block.text for block in answer.content)


async def tool_answers(url: str, token: str) -> list[str]:
    """The session's tool list and two calls (list_dir, memory_read) over MCP, as the texts the server answered."""
    async with mcp_tools(url, token) as tools:
        listed = [tool.name for tool in (await tools.list_tools()).tools]
        calls = [await tools.call_tool("list_dir", {"path": "."}), await tools.call_tool("memory_read", {})]
    return [json.dumps(listed), *map(answer_text, calls)]


async def busy(url: str, token: str, times: int | None) -> None:
    """Call ``list_dir`` ``times`` times (None: until killed), noting each answer's first line in ``calls.txt``."""
    async with mcp_tools(url, token) as tools:
        made = 0
        while times is None or made < times:
            answer = await tools.call_tool("list_dir", {"path": "."})
            made += 1
            with open("calls.txt", "a") as notes:
                notes.write(f"{made} {'error' if answer.is_error else 'ok'}: {answer_text(answer).splitlines()[0][:80]}\n")


def main() -> None:
    mode, arg = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    print(f"{mode} agent ready, pid {os.getpid()}", file=sys.stderr, flush=True)
    with open("pids.txt", "a") as pids:
        pids.write(f"{os.getpid()}\n")
    session, turn = "", 0
    mcp: dict[str, Any] = {}
    for line in sys.stdin:
        message = json.loads(line)
        if mode == "dump":
            with open(arg, "a") as out:
                out.write(json.dumps({"env": dict(os.environ), "argv": sys.argv, "cwd": os.getcwd(), "message": message}) + "\n")
        if message["type"] == "session_start":
            session, turn, mcp = message["session"], 0, message.get("mcp") or {}
            if mode == "dump" and sys.argv[3:] == ["tools"]:
                with open(arg, "a") as out:
                    out.write(json.dumps({"tools": asyncio.run(tool_answers(message["mcp"]["url"], message["mcp"]["token"]))}) + "\n")
            continue
        if message["type"] == "session_end":
            if mode == "linger":
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                time.sleep(3600)
            if mode == "gate":
                waited = time.monotonic() + 10
                while not os.path.exists(arg) and time.monotonic() < waited:
                    time.sleep(0.01)
                with open("seen.txt", "a") as notes:
                    notes.write(f"{session}: gate {'seen' if os.path.exists(arg) else 'missed'}\n")
            continue
        turn += 1
        with open("seen.txt", "a") as notes:
            notes.write(f"{session} {turn}: {message['text'][:40]}\n")
        if mode == "crash" and session == arg:
            raise RuntimeError(f"boom in {session}")
        if mode == "hang" and arg in ("", session):
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(3600)
        if mode == "busy":
            asyncio.run(busy(mcp["url"], mcp["token"], int(arg) if arg else None))
        if mode == "flood":
            while True:
                sys.stdout.write("x" * 65536)
        if mode == "blank":
            while True:
                sys.stdout.write("\n" * 65536)
        if mode == "junk":
            print("thinking about it...", flush=True)
        if mode == "deep":
            print("[" * 100_000, flush=True)
        reply = json.dumps({"type": "reply", "text": f"turn {turn}"}) + "\n"
        sys.stdout.write(reply * (2 if mode == "twice" else 1))  # twice: both lines in one write, so both arrive before the next turn
        sys.stdout.flush()
        while mode == "chatter":
            sys.stdout.write(reply * 1000)


if __name__ == "__main__":
    main()
