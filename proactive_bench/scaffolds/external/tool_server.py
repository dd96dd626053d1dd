"""How an external agent reaches its session's tools: an MCP server per session, behind a narrow interface.

A :data:`ToolServer` takes the session's recording :class:`~proactive_bench.env.ToolBox` and returns a context
manager, asynchronous or not, that serves it while the session runs and yields the server's :class:`McpEndpoint`
(loopback URL and bearer token; None: the session has no tools); leaving the context stops the server.
:func:`mcp_tool_server`, the default, is ``mcp_world.McpWorld`` entered with ``async with``: streamable HTTP on
127.0.0.1, a token per session, every call recorded through the toolbox, started and stopped without holding the
runner's event loop. Tests pass their own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import proactive_bench.mcp_world  # the package, not its names: the MCP SDK loads at the first session
from proactive_bench.env import ToolBox

if TYPE_CHECKING:
    from proactive_bench.mcp_world import McpWorld


@dataclass(frozen=True)
class McpEndpoint:
    """Where a session's MCP server answers, and the token it asks for (``Authorization: Bearer TOKEN``)."""

    url: str
    token: str


Served = AbstractAsyncContextManager[McpEndpoint | None] | AbstractContextManager[McpEndpoint | None]
ToolServer = Callable[[ToolBox], Served]
"""Serves one session's toolbox for as long as its context (``async with`` or ``with``) is open; yields the endpoint (None: no tools)."""


@asynccontextmanager
async def mcp_tool_server(toolbox: ToolBox) -> AsyncIterator[McpEndpoint | None]:
    """The session's tools over MCP until the context ends (tool calls run on the loop that is running now: the runner's)."""
    world_class = await asyncio.to_thread(_world_class)
    async with world_class(toolbox) as world:
        yield McpEndpoint(world.url, world.token)


def _world_class() -> type[McpWorld]:
    """``McpWorld``, imported on first use: the MCP SDK and uvicorn take about a second to import, which a thread
    pays rather than the runner's loop (every session of a sweep process would wait)."""
    return proactive_bench.mcp_world.McpWorld


async def enter_served(stack: AsyncExitStack, served: Served) -> McpEndpoint | None:
    """Enter what a :data:`ToolServer` returned on ``stack``: awaited when it is asynchronous."""
    if isinstance(served, AbstractAsyncContextManager):
        return await stack.enter_async_context(served)
    return stack.enter_context(served)
