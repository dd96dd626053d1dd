"""How an external agent reaches its session's tools: an MCP server per session, behind a narrow interface.

A :data:`ToolServer` takes the session's recording :class:`~proactive_bench.env.ToolBox` and returns a context
manager that serves it while the session runs and yields the server's :class:`McpEndpoint` (loopback URL and
bearer token; None: the session has no tools); leaving the context stops the server. :func:`mcp_tool_server`,
the default, is ``mcp_world.McpWorld``: streamable HTTP on 127.0.0.1, a token per session, every call recorded
through the toolbox. Tests pass their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

import proactive_bench.mcp_world  # the package, not its names: the MCP SDK loads at the first session
from proactive_bench.env import ToolBox


@dataclass(frozen=True)
class McpEndpoint:
    """Where a session's MCP server answers, and the token it asks for (``Authorization: Bearer TOKEN``)."""

    url: str
    token: str


ToolServer = Callable[[ToolBox], AbstractContextManager[McpEndpoint | None]]
"""Serves one session's toolbox for as long as its context is open; yields the endpoint (None: no tools)."""


@contextmanager
def mcp_tool_server(toolbox: ToolBox) -> Iterator[McpEndpoint | None]:
    """The session's tools over MCP until the context ends (tool calls run on the loop that is running now: the runner's)."""
    with proactive_bench.mcp_world.McpWorld(toolbox) as world:
        yield McpEndpoint(world.url, world.token)
