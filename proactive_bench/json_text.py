"""JSON from outside pbench (a model server's body, an agent's reply, a value an agent wrote): read so that any
unreadable text, including JSON nested too deep for Python's parser, is a ValueError, never a RecursionError."""

from __future__ import annotations

import json
from typing import Any

TOO_DEEP = "JSON nested too deep to read"


def parse_json(raw: str | bytes) -> Any:
    """``json.loads(raw)``; text nested deeper than the interpreter's recursion limit raises ``ValueError(TOO_DEEP)``
    like any other text that is not JSON (``[`` repeated a hundred thousand times is a 100 KB body)."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
