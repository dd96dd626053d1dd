"""Assertion helpers for app tests: call a tool and get its response or its error."""

from typing import Any

from proactive_bench.env.toolbox import ToolBox


def ok(box: ToolBox, tool: str, /, **args: Any) -> Any:
    """Call `tool` and return its response; fail the test if the call was refused."""
    record = box.call(tool, args)
    assert record.ok, record.result
    return record.result["response"]


def err(box: ToolBox, tool: str, /, **args: Any) -> str:
    """Call `tool` expecting a refusal and return the error text."""
    record = box.call(tool, args)
    assert not record.ok, record.result
    return str(record.result["error"])
