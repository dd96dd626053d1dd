"""Text from outside pbench (a model server's body, an agent's reply or tool call, a person's line), read so that it
can always be stored: JSON nested too deep for Python's parser is a ValueError like any other unreadable JSON, never a
RecursionError, and a lone surrogate (JSON may escape one, ``"\\ud800"``; no UTF-8 text can hold one) becomes U+FFFD,
the replacement character, instead of failing the session's save."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

TOO_DEEP = "JSON nested too deep to read"
REPLACEMENT = "\ufffd"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_BYTES = re.compile(_SURROGATE_ESCAPE.pattern.encode())
T = TypeVar("T")


def parse_json(raw: str | bytes, loads: Callable[[Any], Any] = json.loads) -> Any:
    """``loads(raw)`` (``json.loads``, or a tolerant reader such as ``json_repair.loads``), its strings valid Unicode
    (:func:`valid_unicode`); text nested deeper than the interpreter's recursion limit raises ``ValueError(TOO_DEEP)``
    like any other text that is not JSON (``[`` repeated a hundred thousand times is a 100 KB body)."""
    try:
        value = loads(raw)
        return valid_unicode(value) if escapes_a_surrogate(raw) else value
    except RecursionError:  # from the parser, or from the walk over what it could just read
        raise ValueError(TOO_DEEP) from None


def escapes_a_surrogate(raw: str | bytes) -> bool:
    """Whether JSON text writes a surrogate as an escape (a pair, whole, is fine, but only a walk can tell)."""
    if isinstance(raw, str):
        return _SURROGATE_ESCAPE.search(raw) is not None
    return _SURROGATE_ESCAPE_BYTES.search(raw) is not None


def valid_unicode(value: T) -> T:
    """``value`` with every lone surrogate in its strings (keys too, in lists and dicts at any depth) replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub(REPLACEMENT, value)  # type: ignore[return-value]  # a str stays a str
    if isinstance(value, list):
        return [valid_unicode(item) for item in value]  # type: ignore[return-value]  # a list stays a list
    if isinstance(value, dict):
        return {valid_unicode(key): valid_unicode(item) for key, item in value.items()}  # type: ignore[return-value]  # a dict stays a dict
    return value
