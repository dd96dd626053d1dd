"""Shared by the replay examples: the turns of a recorded run (``pbench export`` output), played through a session's
MCP tools with the official MCP client SDK.

These agents are replay baselines, named as such: they repeat what a recorded agent did (pbench's own
``scripted:reference`` for the figures in docs/external-agents.md). pbench gives reference solutions only to its
own in-process baselines and never to an external agent; the recording is a file the person running the example
exported and passes on the command line, and the agent otherwise knows only what any agent is shown.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

Turn = tuple[list[tuple[str, dict[str, Any]]], str]
"""One agent turn: its tool calls ``(name, arguments)`` in order, and its reply."""
NOTHING_LEFT: Turn = ([], "Nothing further from me.")
TLS = ssl.create_default_context()
"""One TLS context for every MCP session's client (each new one would read the CA bundle again, tens of ms)."""


def recorded_turns(path: str) -> dict[str, list[Turn]]:
    """Per session id, the recorded agent turns, in order."""
    sessions: dict[str, list[Turn]] = {}
    with open(path) as lines:
        for line in lines:
            record = json.loads(line)
            turns = sessions[record["session_id"]] = []
            for message in record["messages"]:
                if message["role"] not in ("assistant", "tool"):  # a user message or the opening event: a new turn
                    turns.append(([], ""))
                elif message["role"] == "assistant":
                    calls, reply = turns[-1]
                    calls += [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message["tool_calls"]]
                    turns[-1] = (calls, message["content"] or reply)
    return sessions


@asynccontextmanager
async def mcp_session(url: str, token: str) -> AsyncIterator[ClientSession]:
    """An initialized MCP client session on the session's server, sending its bearer token."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, verify=TLS) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def play(tools: ClientSession, turn: Turn) -> str:
    """Make the turn's tool calls, in order; its reply."""
    calls, reply = turn
    for name, arguments in calls:
        await tools.call_tool(name, arguments)
    return reply


class Conversation:
    """One session's turns played through one MCP session, open from the first turn on: an agent service's state
    per conversation (the SDK's session must be entered and left in one task, so a task of its own holds it)."""

    def __init__(self, url: str, token: str, turns: list[Turn]) -> None:
        self.pending = list(turns)
        self._inbox: asyncio.Queue[tuple[Turn, asyncio.Future[str]] | None] = asyncio.Queue()
        self._task = asyncio.create_task(self._serve(url, token))

    async def _serve(self, url: str, token: str) -> None:
        async with mcp_session(url, token) as tools:
            while (asked := await self._inbox.get()) is not None:
                turn, reply = asked
                try:
                    reply.set_result(await play(tools, turn))
                except Exception as exc:
                    reply.set_exception(exc)

    async def next_turn(self) -> str:
        """Play the next recorded turn (or none once they are done); its reply."""
        reply = asyncio.get_running_loop().create_future()
        await self._inbox.put((self.pending.pop(0) if self.pending else NOTHING_LEFT, reply))
        await asyncio.wait([reply, self._task], return_when=asyncio.FIRST_COMPLETED)
        if not reply.done():  # the MCP session ended first
            self._task.result()  # its error
            raise RuntimeError("the MCP session ended")
        return reply.result()

    async def close(self) -> None:
        await self._inbox.put(None)
        await asyncio.gather(self._task, return_exceptions=True)
