"""The cue checks' screen (one search over all questions, required literals) finds exactly what trying each question finds."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from proactive_bench.dataset import compile_pattern, load_dataset
from proactive_bench.validation import cues
from proactive_bench.validation.cues import (
    CueShape,
    Questions,
    bare_probes,
    cue_shapes,
    is_local,
    learn_cue_shapes,
    offtarget_questions,
    required_literals,
    top_level_alternatives,
)
from tests.helpers.cli import run_cli
from tests.helpers.paths import DATA

S01 = "episodes/researcher/sessions/s01_main_results_table.yaml"
PLANTED = [
    "tracker",  # a bare generic noun
    "kv budget|\\bpdf\\b",  # a bare file type, in its second alternative
    "search index",  # an off-target question
    "add a row[^?]*admin/tern",  # a convention question about a workspace file
    "^(?=.*\\b(?:gareth)).*?72-hour window",  # another persona's question
    "(?<!\\s)rebuild the search",  # the off-target question has a space before "rebuild": fires on nothing
    "\\Ashould the investment memo",  # an off-target question, from its first character on
]
"""Cues added to the first intent of the researcher's first session (after its three own)."""
FOUND = [
    (
        "intents[0].ask[3]",
        "the alternative 'tracker' fires on the bare generic noun probe 'Should I update the tracker?'; "
        "name the requirement (the thing and what about it), not only the thing",
    ),
    (
        "intents[0].ask[4]",
        "the alternative '\\\\bpdf\\\\b' fires on the bare file type probe 'Should I export a PDF?'; "
        "name the requirement (the thing and what about it), not only the thing",
    ),
    ("intents[0].ask[5]", "fires on 1 off-target question(s), e.g. 'Should I rebuild the search index after the migration?'"),
    (
        "intents[0].ask[6]",
        "fires on 1 convention question(s) about a workspace file, e.g. 'Should I add a row for this to admin/tern_quota.md?'",
    ),
    ("intents[0].ask[9]", "fires on 1 off-target question(s), e.g. 'Should the investment memo compare index funds with bonds?'"),
    (
        "intents[0].ask[7]",
        "fires on another persona's question \"When exactly does the 72-hour window for reporting to the ICO close, "
        "counting from Gareth's call on Friday?\" (law_trainee/s01_halden_breach_triage/i1_ico_clock)",
    ),
]
"""What ``pbench validate`` found on that copy before the screen (each reason ends with the intent it is not about)."""


def _naive_hits(pattern: str, questions: tuple[str, ...]) -> list[str]:
    regex = compile_pattern(pattern)
    return [q for q in questions if regex.search(q)]


def _same(pattern: str, questions: tuple[str, ...]) -> None:
    screened = Questions(questions)
    expected = _naive_hits(pattern, questions)
    assert screened.hits(pattern) == expected, pattern
    first = screened.first_hit(pattern)
    assert (questions[first] if first is not None else None) == (expected[0] if expected else None), pattern


def test_planted_cues_in_a_copy_of_two_shipped_episodes_are_found_as_before(tmp_path: Path) -> None:
    for persona in ("researcher", "law_trainee"):
        (tmp_path / "personas").mkdir(exist_ok=True)
        shutil.copy(DATA / f"personas/{persona}.yaml", tmp_path / f"personas/{persona}.yaml")
        shutil.copytree(DATA / f"episodes/{persona}", tmp_path / f"episodes/{persona}")
    shutil.copytree(DATA / "graders", tmp_path / "graders")
    session = yaml.safe_load((tmp_path / S01).read_text())
    session["intents"][0]["ask"] += PLANTED
    (tmp_path / S01).write_text(yaml.safe_dump(session, sort_keys=False))
    result = run_cli("validate", "--no-cache", "--json", "--data", str(tmp_path))
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert [(p["file"], p["field"], p["reason"], p["level"]) for p in found["problems"]] == [
        (S01, field, f"{reason}: a question not about i1_budget_20 would count", "warning") for field, reason in FOUND
    ]


def test_every_shipped_cue_hits_the_same_questions_screened_as_tried_one_by_one() -> None:
    dataset = load_dataset(DATA)
    asked = tuple(i.question for e in dataset.episodes.values() for s in e.sessions for i in s.intents if i.question)
    probes = tuple(q for _, q in bare_probes(["admin/tern_quota.md", "results/main.csv"]))
    patterns = {p for e in dataset.episodes.values() for s in e.sessions for i in s.intents for p in i.ask}
    assert len(patterns) > 500
    for pattern in sorted(patterns):
        for questions in (offtarget_questions(), asked):
            _same(pattern, questions)
        for alternative in top_level_alternatives(pattern):
            _same(alternative, probes)


@pytest.mark.parametrize(
    ("pattern", "questions", "local"),
    [
        ("(?<!\\s)[sx]\\w+", ("a b", "Should I?"), False),  # the newline before the second question is a space
        ("(?<![?])[sx]\\w+", ("Why?", "Should I?"), False),
        ("\\A[sx]\\w+", ("Why?", "Should I?"), False),
        ("(?-m:^)[sx]\\w+", ("Why?", "Should I?"), False),
        ("[sx]\\w+(?-m:$)", ("Should", "Why?"), False),
        ("[sx]\\w+\\Z", ("Should", "Why?"), False),
        ("[sx]\\w*\\b(?!\\s)", ("Should", "Why?"), False),
        ("^[sx]\\w+$", ("Why?", "Should", "Should I?"), True),
        ("\\b[sx]\\w+\\b", ("Why?", "Should", "xShould"), True),
        ("(?=.*index)[sx]\\w+", ("Should I?", "index", "Should I index?"), True),
        ("I\\s+[sx]\\w+", ("I", "Should", "Then I should"), True),  # \s crosses lines only in the joined text
        ("sheet", ("the \u017fheet", "the SHEET"), True),  # the long s matches "s" ignoring case
        ("kelvin", ("\u212aelvin",), True),  # so does the Kelvin sign "k"
        ("istanbul", ("\u0130stanbul", "\u0131stanbul"), True),  # dotted and dotless capital and small i
        ("update", ("Should I\nupdate it?", "update"), True),  # a question with a newline: tried one by one
    ],
)
def test_patterns_that_look_beyond_a_question_and_folded_letters_hit_as_one_by_one(
    pattern: str, questions: tuple[str, ...], local: bool
) -> None:
    assert is_local(pattern) is local
    assert _naive_hits(pattern, questions)  # each case fires on something
    _same(pattern, questions)


def test_a_shape_learnt_from_another_process_is_used_without_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    pattern = "learnt (shape|form) of a cue"
    shapes = cue_shapes([pattern])
    assert shapes[pattern] == CueShape(frozenset({" of a cue"}), True)
    parsed: list[str] = []
    parse = cues._parser.parse
    monkeypatch.setattr(cues, "_SHAPES", {})
    monkeypatch.setattr(cues._parser, "parse", lambda text, flags: parsed.append(text) or parse(text, flags))
    learn_cue_shapes(shapes)
    assert required_literals(pattern) == frozenset({" of a cue"}) and is_local(pattern)
    assert required_literals("never learnt") == frozenset({"never learnt"})
    assert parsed == ["never learnt"]


@pytest.mark.parametrize(
    ("pattern", "literals"),
    [
        ("^(?=.*\\b(?:argument)).*?scripts?", {"argument"}),
        ("compar\\w*|month[- ]over|(vs|versus) feb", {"compar", "month", " feb"}),
        ("(?:abc)?x", {"x"}),
        ("a*|b", None),
        ("(?:foo)+bar", {"foo"}),
        ("\u00e9t\u00e9 report", {" report"}),
        ("(?!never)x", {"x"}),
    ],
)
def test_required_literals(pattern: str, literals: set[str] | None) -> None:
    assert required_literals(pattern) == (frozenset(literals) if literals is not None else None)


_PIECES = st.sampled_from(
    [
        "a",
        "ab",
        "B",
        " ",
        "[ab]",
        "[a\u017f]",
        "\\W",
        "\\S",
        "\\s",
        "\\s",
        "\\w",
        "\\w",
        ".",
        ".",
        "[^a]",
        "\\b",
        "\\B",
        "^",
        "$",
        "\\A",
        "\\Z",
        "(?<=a)",
        "(?<!a)",
        "(?=b)",
        "(?!b)",
        "(?<!\\s)",
        "(?-m:^)",
        "(?-m:$)",
        "(?:ab|b)",
        "(?:a|)",
        "\u017f",
        "k",
    ]
)
_REPEATS = st.sampled_from(["", "", "*", "+", "?", "{0,2}"])


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    branches = draw(st.lists(st.lists(st.tuples(_PIECES, _REPEATS), min_size=1, max_size=5), min_size=1, max_size=3))
    pattern = "|".join(
        "".join(piece + (repeat if not piece.startswith(("(?<", "(?=", "(?!", "\\", "^", "$")) else "") for piece, repeat in branch)
        for branch in branches
    )
    re.compile(pattern)
    return pattern


@settings(max_examples=600, deadline=None)
@given(_patterns(), st.lists(st.text(alphabet="abAB \u017f\u212ak?\n", max_size=6), max_size=5))
def test_any_pattern_hits_the_same_questions_screened_as_tried_one_by_one(pattern: str, questions: list[str]) -> None:
    _same(pattern, tuple(questions))
