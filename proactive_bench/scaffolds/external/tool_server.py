"""How an external agent reaches its session's tools: an MCP server per session, behind a narrow interface.

A :data:`ToolServer` takes the session's recording :class:`~proactive_bench.env.ToolBox` and returns a context
manager that serves it while the session runs and yields the server's :class:`McpEndpoint` (loopback URL and
bearer token); leaving the context stops the server. :func:`no_tool_server` is the stand-in while no MCP
server is wired: the agent gets no ``PBENCH_MCP_*`` variables and ``"mcp": null`` in ``session_start``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

import structlog

from proactive_bench.env import ToolBox

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class McpEndpoint:
    """Where a session's MCP server answers, and the token it asks for (``Authorization: Bearer TOKEN``)."""

    url: str
    token: str


ToolServer = Callable[[ToolBox], AbstractContextManager[McpEndpoint | None]]
"""Serves one session's toolbox for as long as its context is open; yields the endpoint (None: no tools)."""


@contextmanager
def no_tool_server(toolbox: ToolBox) -> Iterator[McpEndpoint | None]:
    """No server: the session's tools are not offered (logged once per session)."""
    log.warning("external_agent_without_tools", tools=[spec.name for spec in toolbox.specs])
    yield None
