"""A predicate's regex search: the "all of these anywhere" lookahead idiom is tried at the text's start only, with
the same outcome as a search at every position (which is quadratic on it)."""

from __future__ import annotations

import random
import re
import time

import pytest

from proactive_bench.dataset import compile_pattern
from proactive_bench.dataset.predicates import _searcher

FROM_START = [
    "(?s)(?=.*spam)(?=.*share of voice)(?=.*net sentiment)",
    "(?s)(?=.*60 ?%)(?=.*(six|6)[- ]month)(?=.*engagement)",
    "(?s)(?=.*(a))(?=.*\\1b)",  # a group a later lookahead refers to: the same last place from every position
    "(?s)(?=.*^b)(?=.*a$)",
    "(?s)(?=.*\\ba)(?=.*(?<=x)b)",
    "(?s)(?=.*(?-s:.)a)",
]
"""Greedy ``(?=.*...)`` lookaheads only, ``.`` matching newlines: a match can only start at the text's start."""
ANYWHERE = [
    "(?=.*a)(?=.*b)",  # without (?s) a lookahead sees one line: a later line can match
    "(?s)(?=.*?a)(?=.*b)",  # lazy
    "(?s)(?=.*a)b",  # something after the lookaheads
    "(?s)(?!.*a)",  # negative: holds later, not at the start
    "(?s)(?=.+a)",
    "(?s)(?=a.*)",
    "a|b",
]


@pytest.mark.parametrize("pattern", FROM_START + ANYWHERE)
def test_the_search_finds_what_a_search_at_every_position_finds(pattern: str) -> None:
    rng = random.Random(pattern)
    regex = compile_pattern(pattern)
    for _ in range(3000):
        text = "".join(rng.choice("abx \n") for _ in range(rng.randint(0, 14)))
        plain, found = regex.search(text), _searcher(pattern)(text)
        assert (plain and (plain.span(), plain.groups())) == (found and (found.span(), found.groups())), (pattern, text)


@pytest.mark.parametrize("pattern", FROM_START)
def test_the_lookahead_idiom_is_tried_at_the_start_only(pattern: str) -> None:
    assert searcher_of(pattern) == ("match", compile_pattern(pattern))


@pytest.mark.parametrize("pattern", ANYWHERE)
def test_other_patterns_are_searched_everywhere(pattern: str) -> None:
    assert searcher_of(pattern) == ("search", compile_pattern(pattern))


def searcher_of(pattern: str) -> tuple[str, re.Pattern[str]]:
    """Which method of which compiled pattern ``_searcher`` gives (compared by value: ``re``'s own cache may hand out
    another object for the same pattern once other tests have filled it)."""
    method = _searcher(pattern)
    return method.__name__, method.__self__  # type: ignore[attr-defined]  # a bound method of a Pattern


def test_the_idiom_on_a_long_text_without_its_words_is_quick() -> None:
    """A search tries 20,000 positions, each reading to the end (seconds); a match at the start reads it once."""
    text = "stuffed word\n" * 1500
    started = time.perf_counter()
    assert _searcher(FROM_START[0])(text) is None
    assert time.perf_counter() - started < 0.5
