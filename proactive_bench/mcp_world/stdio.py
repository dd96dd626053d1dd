"""A session's MCP server over stdio: the MCP client started the process and talks to it on stdin/stdout."""

from __future__ import annotations

from mcp.server.stdio import stdio_server

from proactive_bench.env import ToolBox
from proactive_bench.mcp_world.tools import ToolCalls, tool_server


async def serve_stdio(toolbox: ToolBox, name: str = "pbench") -> None:
    """Serve the toolbox's tools on this process's stdin and stdout until the client closes stdin.

    Nothing else may write to stdout meanwhile (pbench logs go to stderr). Tool calls run on this event loop.
    """
    server = tool_server(ToolCalls(toolbox), name)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
