"""A session's world offered over the Model Context Protocol, for agents outside pbench's process.

- ``tools``: the MCP server over one session's :class:`~proactive_bench.env.ToolBox` (``tool_server``, ``ToolCalls``):
  the same tool names, schemas, jail, limits and recording as in process;
- ``http_server``: :class:`McpWorld`, that server over streamable HTTP on 127.0.0.1 with a bearer token, in a thread of its own;
- ``stdio``: ``serve_stdio``, the same server on stdin/stdout.

Names load on first use (the MCP SDK takes about a second to import).
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "http_server": ("LOOPBACK", "MAX_CLIENT_SESSIONS", "BearerGuard", "McpWorld", "WorldStartError"),
        "stdio": ("serve_stdio",),
        "tools": ("ToolCalls", "call_result", "tool_listing", "tool_server"),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.mcp_world.http_server import LOOPBACK, MAX_CLIENT_SESSIONS, BearerGuard, McpWorld, WorldStartError
    from proactive_bench.mcp_world.stdio import serve_stdio
    from proactive_bench.mcp_world.tools import ToolCalls, call_result, tool_listing, tool_server

__all__ = [
    "LOOPBACK",
    "MAX_CLIENT_SESSIONS",
    "BearerGuard",
    "McpWorld",
    "ToolCalls",
    "WorldStartError",
    "call_result",
    "serve_stdio",
    "tool_listing",
    "tool_server",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
