"""The session's tools as LangChain tools, for scaffolds built on LangChain.

Each tool forwards the model's raw arguments to :meth:`ToolBox.call`, which
validates, runs and records the call. LangChain's own argument validation is
skipped on purpose: a call with bad arguments must still be recorded and come
back to the model as an error result, exactly as when the toolbox is called
directly. The ``args_schema`` is still the tool's pydantic model, so
``model.bind_tools(...)`` advertises the right JSON schema.

Invoked with a model ``ToolCall``, a tool returns a ``ToolMessage`` whose
``artifact`` is the :class:`~proactive_bench.env.toolbox.ToolRecord`.
``ainvoke`` goes through :meth:`ToolBox.acall`, so a tool that calls a model
(a colleague, an embedding search) is awaited instead of blocking the loop.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from proactive_bench.env import ToolBox, ToolRecord, ToolSpec, render_result


class RecordedTool(StructuredTool):
    """A ``StructuredTool`` whose arguments reach the toolbox unvalidated and whole."""

    def _to_args_and_kwargs(self, tool_input: str | dict[str, Any], tool_call_id: str | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if not isinstance(tool_input, dict):
            raise TypeError(f"tool {self.name!r} takes a dict of arguments, got {type(tool_input).__name__}")
        return (dict(tool_input),), {}


def _recorded_tool(toolbox: ToolBox, spec: ToolSpec) -> RecordedTool:
    def run(args: dict[str, Any]) -> tuple[str, ToolRecord]:
        record = toolbox.call(spec.name, args)
        return render_result(record), record

    async def arun(args: dict[str, Any]) -> tuple[str, ToolRecord]:
        record = await toolbox.acall(spec.name, args)
        return render_result(record), record

    return RecordedTool(
        name=spec.name,
        description=spec.description,
        args_schema=spec.args_model,
        func=run,
        coroutine=arun,
        response_format="content_and_artifact",
    )


def as_langchain_tools(toolbox: ToolBox) -> list[BaseTool]:
    """The session's tools for a LangChain agent.

    Args:
        toolbox: The session's toolbox (``ctx.tools``).

    Returns:
        One LangChain tool per tool of ``toolbox``, each calling and recording through it.
    """
    return [_recorded_tool(toolbox, spec) for spec in toolbox.specs]


def _not_for_calling(args: dict[str, Any]) -> None:
    raise RuntimeError("schema-only tool: calls go through the toolbox")


@cache
def _openai_schema(spec: ToolSpec) -> dict[str, Any]:
    """What ``bind_tools`` would make of the spec's recorded tool (same name, description, schema)."""
    return convert_to_openai_tool(
        StructuredTool(name=spec.name, description=spec.description, args_schema=spec.args_model, func=_not_for_calling)
    )


def openai_tool_schemas(toolbox: ToolBox) -> list[dict[str, Any]]:
    """The session's tools in OpenAI's function format, for ``bind_tools`` (converted once per tool and process)."""
    return [_openai_schema(spec) for spec in toolbox.specs]
