"""JSON from outside: text nested too deep for Python's parser is a ValueError, as any unreadable text is."""

from __future__ import annotations

import pytest

from proactive_bench.json_text import TOO_DEEP, parse_json

DEEP = ["[" * 100_000, "[" * 100_000 + "]" * 100_000, '{"a": ' * 100_000, b"[" * 100_000]


@pytest.mark.parametrize("raw", DEEP, ids=["open-array", "closed-array", "object", "bytes"])
def test_json_nested_too_deep_is_a_value_error(raw: str | bytes) -> None:
    with pytest.raises(ValueError, match=TOO_DEEP):
        parse_json(raw)


def test_json_parses_as_json_loads_does() -> None:
    assert parse_json('{"a": [1, 2.5, "x", null]}') == {"a": [1, 2.5, "x", None]}
    assert parse_json(b"[[[]]]") == [[[]]]
    with pytest.raises(ValueError, match="Expecting value"):
        parse_json("not json")
