"""Text from outside: JSON nested too deep for Python's parser is a ValueError, as any unreadable text is; lone
surrogates become U+FFFD."""

from __future__ import annotations

import json

import pytest

from proactive_bench.json_text import TOO_DEEP, escapes_a_surrogate, parse_json, valid_unicode

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


def test_lone_surrogates_become_the_replacement_character_and_pairs_stay() -> None:
    read = parse_json(b'{"a": "x \\ud800 y", "\\udfff": ["\\ud83d\\ude00", 1, null]}')
    assert read == {"a": "x \ufffd y", "\ufffd": ["\U0001f600", 1, None]}
    assert json.dumps(read, ensure_ascii=False).encode()  # storable as UTF-8
    assert valid_unicode(["ok\udc80", {"k": ("t\ud800",)}]) == ["ok\ufffd", {"k": ("t\ud800",)}]  # lists and dicts only
    assert escapes_a_surrogate('"\\uD83D"') and not escapes_a_surrogate('"\\u00e9 \\ufffd"')
