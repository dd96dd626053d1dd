"""What a chat completion answer must hold for LangChain to read it.

A server's 200 whose JSON object lacks that shape (no ``choices``, a ``message``
that is null, text that is a number, ``tool_calls`` that is not a list of named
functions) is a malformed body, retried within bounds as one, never an
AttributeError or KeyError out of the reader. Where the meaning is plain, the
answer is mended instead: tool call arguments sent as a JSON object (a quirk of
some servers) become the JSON text the format asks for, lone surrogates escaped in
them become U+FFFD, and a ``usage`` that is not token counts is dropped.
"""

from __future__ import annotations

import json
from typing import Any

from proactive_bench.json_text import escapes_a_surrogate, parse_json

USAGE_COUNTS = ("prompt_tokens", "completion_tokens", "total_tokens")
USAGE_DETAILS = ("prompt_tokens_details", "completion_tokens_details")


def mend_chat_answer(answer: dict[str, Any]) -> bool:
    """Make ``answer`` readable as a chat completion in place where it is plain how; whether it changed. A ValueError
    saying why when it cannot be read."""
    choices = answer.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ValueError("it has no choices")
    mended = False
    for n, choice in enumerate(choices):
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise ValueError(f"choices[{n}] holds no message object")
        problem, changed = _message_problem(message)
        if problem is not None:
            raise ValueError(f"choices[{n}].message.{problem}")
        mended |= changed
    usage = answer.get("usage")
    if usage is not None and not _readable_usage(usage):
        del answer["usage"]  # the counts are a record, not the answer: unreadable ones are left out
        mended = True
    return mended


def _message_problem(message: dict[str, Any]) -> tuple[str | None, bool]:
    """What in a message cannot be read (None when all can), and whether its tool calls' arguments were mended."""
    content = message.get("content")
    if content is not None and not isinstance(content, str | list):
        return f"content is {type(content).__name__}, not text", False
    calls = message.get("tool_calls")
    if calls is None:
        return None, False
    if not isinstance(calls, list):
        return f"tool_calls is {type(calls).__name__}, not a list", False
    mended = False
    for k, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            return f"tool_calls[{k}] names no function", mended
        arguments = function.get("arguments")
        if isinstance(arguments, dict):
            function["arguments"], mended = json.dumps(arguments), True  # read by parse_json: its text is valid already
        elif not isinstance(arguments, str):
            return f"tool_calls[{k}].function.arguments is {type(arguments).__name__}, not JSON text", mended
        elif escapes_a_surrogate(arguments):  # read as JSON, they would hold a lone surrogate: U+FFFD instead
            try:
                function["arguments"], mended = json.dumps(parse_json(arguments)), True
            except ValueError:
                pass  # not JSON: LangChain keeps them as an invalid tool call, as text
    return None, mended


def _readable_usage(usage: Any) -> bool:
    """Token counts as LangChain reads them: whole numbers, and their details as objects of whole numbers."""
    if not isinstance(usage, dict) or not all(_is_count(usage.get(key)) for key in USAGE_COUNTS):
        return False
    details = [usage.get(key) for key in USAGE_DETAILS]
    return all(d is None or (isinstance(d, dict) and all(_is_count(v) for v in d.values())) for d in details)


def _is_count(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)
