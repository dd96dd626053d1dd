"""MCP tools as LangChain tools, with the official ``mcp`` client SDK: what ``langchain-mcp-adapters`` does, for an
environment that cannot install it (its releases up to 0.3.2 require ``mcp<2``; pbench's environment has ``mcp>=2.3``).

    async with mcp_session(url, token) as session:  # replay.py
        tools = await langchain_tools(session)

Each tool keeps the server's name, description and argument JSON Schema; a call goes to the server through
``session`` (so pbench records it as evidence) and returns the result's text. A failed call (``isError``) comes
back to the model as an error message, and the graph goes on.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from mcp import types
from mcp.client.session import ClientSession


def result_text(result: types.CallToolResult) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


def langchain_tool(session: ClientSession, tool: types.Tool) -> BaseTool:
    """One MCP tool as a LangChain tool that calls it through ``session``."""

    async def call(**arguments: Any) -> str:
        result = await session.call_tool(tool.name, arguments)
        if result.is_error:
            raise ToolException(result_text(result))
        return result_text(result)

    return StructuredTool(
        name=tool.name,
        description=tool.description or tool.name,
        args_schema=tool.input_schema,
        coroutine=call,
        handle_tool_error=True,  # the error's text goes back to the model as the tool's answer
    )


async def langchain_tools(session: ClientSession) -> list[BaseTool]:
    """Every tool the server lists (one page: a pbench session offers a few dozen at most)."""
    return [langchain_tool(session, tool) for tool in (await session.list_tools()).tools]
