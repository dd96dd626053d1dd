"""One session's tools as an MCP server: the toolbox's tools listed with their own schemas, every call through ``ToolBox.acall``.

The listing is the session's :class:`~proactive_bench.env.ToolBox` as it is (its own tool groups, in its order): each
tool's name, description and argument JSON Schema are the ones an in-process agent gets. A call goes through
:meth:`ToolBox.acall` like an in-process call, so it is validated, jailed, limited and recorded the same way (the same
:class:`~proactive_bench.env.ToolRecord`, the same evidence); its result is the text an in-process model sees
(:func:`~proactive_bench.env.render_result`: capped, notices appended), with ``isError`` set when the call failed. The
SDK's own input validation is not used: invalid arguments reach the toolbox and are recorded as a failed call, as they
are in process.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from proactive_bench.env import ToolBox, ToolRecord, render_result
from proactive_bench.logs import get_logger

log = get_logger(__name__)

MAX_MESSAGE_BYTES = 16 << 20
"""The longest message a world reads from a client, over either transport (a tool call's arguments: a model writes far
less in a turn); a longer one is refused unread, so a client sending without end cannot grow pbench's memory."""


@dataclass
class ToolCalls:
    """Runs an MCP client's calls on a toolbox, one at a time, on the event loop the toolbox belongs to.

    ``loop``: the loop the calls run on (the runner's, so an ``async`` tool's model client stays on its own loop and the
    toolbox is touched from one thread only); None: the loop serving the request. That loop must stay free while the
    agent works (await the agent, never block on it), or a call waits forever.
    """

    toolbox: ToolBox
    loop: asyncio.AbstractEventLoop | None = None
    _one_at_a_time: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def call(self, name: str, arguments: dict[str, Any] | None) -> ToolRecord:
        async with self._one_at_a_time:  # tool calls never overlap, as in process (the sandbox relies on it)
            served_here = self.loop is None or self.loop is asyncio.get_running_loop()
            if served_here:
                return await self.toolbox.acall(name, arguments)
            future = asyncio.run_coroutine_threadsafe(self.toolbox.acall(name, arguments), self.loop)  # type: ignore[arg-type]
            return await asyncio.wrap_future(future)


def tool_listing(toolbox: ToolBox) -> list[types.Tool]:
    """The toolbox's tools as MCP tools: name, description and argument schema as an in-process agent sees them."""
    return [types.Tool(name=spec.name, description=spec.description, input_schema=spec.json_schema()) for spec in toolbox.specs]


def call_result(record: ToolRecord) -> types.CallToolResult:
    """A recorded call as an MCP result: the text an in-process model gets, ``isError`` when the call failed."""
    return types.CallToolResult(content=[types.TextContent(text=render_result(record))], is_error=not record.ok)


def tool_server(calls: ToolCalls, name: str = "pbench") -> Server[Any]:
    """The low-level MCP server offering ``calls.toolbox``'s tools (tools only: no resources, prompts or sampling)."""
    tools = tool_listing(calls.toolbox)

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        record = await calls.call(params.name, params.arguments)
        log.info("mcp_tool_call", tool=params.name, ok=record.ok)
        return call_result(record)

    schemas = {tool.name: tool.input_schema for tool in tools}
    server = Server(
        name,
        version=version("pbench"),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        get_tool_input_schema=schemas.get,  # a client on the 2026-07-28 protocol: a lookup, not a tools/list run per call
    )
    server.middleware = []  # the SDK's OpenTelemetry span per message: pbench exports no traces, and each call pays for it
    return server
