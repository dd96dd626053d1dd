"""JSON values (tool arguments and results, app rows) as text a person reads: real line breaks, no quoting.

``json.dumps`` turns a file's content into one line full of ``\\n``; here a
mapping becomes ``key: value`` lines, a list ``- item`` lines, nested values
are indented, and a string with line breaks is written as a block below its
key, its lines as they are. Numbers, booleans, null and the empty string keep
their JSON spelling. For display only: it is not parsed back.
"""

from __future__ import annotations

import json
from typing import Any

INDENT = "  "


def readable(value: Any) -> str:
    """``value`` as indented plain text (see the module docstring)."""
    return "\n".join(_lines(value, ""))


def _lines(value: Any, indent: str) -> list[str]:
    if isinstance(value, dict) and value:
        return [line for key, item in value.items() for line in _entry(f"{indent}{key}:", item, indent)]
    if isinstance(value, list) and value:
        return [line for item in value for line in _entry(f"{indent}-", item, indent)]
    return [indent + line for line in _scalar(value).split("\n")]


def _entry(head: str, value: Any, indent: str) -> list[str]:
    """One key or list item: the value on the same line when it is short, else indented below."""
    if _nested(value) or (isinstance(value, str) and "\n" in value):
        return [head, *_lines(value, indent + INDENT)]
    return [f"{head} {_scalar(value)}"]


def _nested(value: Any) -> bool:
    return isinstance(value, dict | list) and bool(value)


def _scalar(value: Any) -> str:
    if isinstance(value, str) and value:
        return value
    return json.dumps(value, ensure_ascii=False, default=str)
