"""A test agent that replays the reference solution through MCP: ``scripted:reference`` whose every tool call goes
through an :class:`~proactive_bench.mcp_world.McpWorld` over the session's toolbox and the official MCP client SDK,
as an agent outside the process would. Registered (and granted the reference) by tests/oracles.py."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import replace
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from proactive_bench.mcp_world import McpWorld
from proactive_bench.scaffolds import AgentTurn, ScaffoldOptions, SessionContext
from proactive_bench.scaffolds.scripted import ScriptedAgent


class OverMcp:
    """Stands where the session's toolbox stood in the agent's context: ``acall`` is an MCP call (the world records it)."""

    def __init__(self, world: McpWorld) -> None:
        self.world = world
        self.client: ClientSession | None = None
        self.results: list[Any] = []

    async def connect(self, stack: AsyncExitStack) -> None:
        http = await stack.enter_async_context(httpx2.AsyncClient(headers=self.world.headers))
        read, write = await stack.enter_async_context(streamable_http_client(self.world.url, http_client=http))
        self.client = await stack.enter_async_context(ClientSession(read, write))
        await self.client.initialize()

    async def acall(self, name: str, args: dict[str, Any] | None = None) -> Any:
        assert self.client is not None
        result = await self.client.call_tool(name, args or {})
        self.results.append(result)
        return result


class McpReference(ScriptedAgent):
    """``scripted:reference`` with its tool calls over MCP; one world per session, started and stopped with the async API
    on the runner's loop (awaited, so the loop serves the world's tool calls and the run's other sessions meanwhile)."""

    def __init__(self, _options: ScaffoldOptions) -> None:
        super().__init__("reference")
        self.world: McpWorld | None = None

    async def start_session(self, ctx: SessionContext) -> None:  # type: ignore[override]  # awaited: the runner takes either
        self.world = await McpWorld(ctx.tools).astart()  # the runner's loop stays free while the server starts
        self.over_mcp = OverMcp(self.world)
        super().start_session(replace(ctx, tools=self.over_mcp))  # type: ignore[arg-type]

    async def respond(self, message: str) -> AgentTurn:
        async with AsyncExitStack() as stack:  # one connection per turn, as a harness run per turn would open
            await self.over_mcp.connect(stack)
            return await super().respond(message)

    async def end_session(self) -> None:  # type: ignore[override]
        super().end_session()
        if self.world is not None:
            await self.world.astop()
            self.world = None
