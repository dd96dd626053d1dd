"""Loose ``ask`` cues: cues that fire on questions that are not about their intent's requirement.

Part of ``pbench validate`` (warnings). An intent's cues are run over:

- **the off-target corpus** (``data/offtarget_questions.txt``): generic
  questions, questions from other lines of work and fixed convention questions
  (index, tracker, log, register, template), each one the targeted-question
  screen lets through;
- **bare probes**: each top-level alternative of a cue is tried on minimal
  questions that name one generic work noun ("Should I update the
  tracker?"), one folder ("Should I use reports/?", the workspace's folders
  too), one file type ("Should I export a CSV?"), one year ("Is this for
  2025?") or one file name ("Should I update INDEX.md?"). An alternative that
  fires on one needs nothing beyond that bare element, so any question that
  mentions it would count;
- **workspace convention questions**: for every file in the workspace when
  the session starts, "Should I add a row for this to <path>?" and the like;
  naming a file the agent can see is not knowing what the user wants in it;
- **other personas' questions** (:func:`cross_persona_cues`, over a whole
  dataset): the shipped ``question`` of every intent of another persona's
  sessions.

A cue passes when it names the session's specific requirement: the thing,
plus what about it.

Each question list is also searched as one text (:class:`Questions`): a cue
that finds nothing there fires on none of its questions, and only a cue that
finds something is tried question by question (the same hits, in order).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import accumulate
from pathlib import Path, PurePosixPath
from re import _parser  # type: ignore[attr-defined]  # the stdlib's regex parser: typeshed has no stub for the private module
from string import ascii_uppercase
from typing import Any

from proactive_bench.dataset import REGEX_FLAGS, Dataset, Problem, Session, compile_pattern
from proactive_bench.user import screen_questions

CORPUS = "offtarget_questions.txt"

GENERIC_NOUNS: tuple[str, ...] = (
    "tracker",
    "index",
    "log",
    "register",
    "template",
    "report",
    "reports",
    "summary",
    "table",
    "spreadsheet",
    "sheet",
    "file",
    "folder",
    "document",
    "draft",
    "email",
    "memo",
    "note",
    "notes",
    "list",
    "row",
    "column",
    "chart",
    "dashboard",
    "calendar",
    "schedule",
    "checklist",
    "worklist",
    "record",
    "archive",
    "inbox",
    "task",
    "to-do list",
    "reminder",
    "deadline",
    "budget",
    "format",
    "layout",
    "version",
    "attachment",
    "export",
    "backup",
    "minutes",
    "agenda",
    "plan",
    "review",
    "protocol",
    "policy",
    "handbook",
    "brief",
    "deck",
    "slides",
    "memory",
    "readme",
    "changelog",
    "history",
    "audit trail",
    "worksheet",
    "workbook",
    "database",
    "dataset",
    "form",
    "letter",
    "invoice",
    "order",
    "ticket",
    "board",
    "timeline",
    "roadmap",
)
"""Work artefacts every line of work has: a cue that fires on one of them alone is about no one requirement."""

GENERIC_FOLDERS: tuple[str, ...] = ("reports", "data", "notes", "drafts", "docs", "output", "archive", "templates", "logs")
FILE_TYPES: tuple[str, ...] = ("CSV", "PDF", "XLSX", "DOCX", "Excel file", "Word document", "Markdown file", "JSON file", "PowerPoint")
EXTENSIONS: tuple[str, ...] = ("csv", "pdf", "xlsx", "docx", "md", "json", "txt", "pptx")
YEARS: tuple[int, ...] = tuple(range(2019, 2031))
FILE_NAMES: tuple[str, ...] = ("INDEX.md", "README.md", "LOG.md", "tracker.csv", "log.csv", "register.xlsx", "index.md")

_NOUN_FRAMES = ("Should I update the {}?", "Should I add this to the {}?")
_FOLDER_FRAMES = ("Should I use {}/?", "Should I save it in {}/?")
_PATH_FRAMES = ("Should I add a row for this to {}?", "Should I update {} too?", "Should I add this to `{}`?")


_SEPARATOR = "\n"
_LOCAL_ANCHORS = {_parser.AT_BEGINNING, _parser.AT_END, _parser.AT_BOUNDARY, _parser.AT_NON_BOUNDARY}
"""With the patterns' MULTILINE flag, ``^`` and ``$`` hold at a line's ends, and a word boundary beside a newline is
one at a text's end: these assertions hold alike on a question alone and on it as a line of the joined text."""


@dataclass(frozen=True)
class Questions:
    """Questions in order, and (when none holds a newline) all of them as one text, one per line (``joined``), with
    each character as an ASCII ``ask`` literal matches it, ignoring case (``folded``, the same length)."""

    items: tuple[str, ...]
    joined: str | None = field(init=False)
    folded: str | None = field(init=False)
    starts: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        joined = None if any(_SEPARATOR in q for q in self.items) else _SEPARATOR.join(self.items)
        object.__setattr__(self, "joined", joined)
        object.__setattr__(self, "folded", None if joined is None else _folded(joined))
        object.__setattr__(self, "starts", tuple(accumulate((len(q) + 1 for q in self.items[:-1]), initial=0)))

    def hits(self, pattern: str) -> list[str]:
        """The questions the pattern fires on, in order (compiled only when one may: see :meth:`_candidates`)."""
        return [self.items[n] for n in self._candidates(pattern) if compile_pattern(pattern).search(self.items[n])]

    def first_hit(self, pattern: str) -> int | None:
        """The index of the first question the pattern fires on."""
        return next((n for n in self._candidates(pattern) if compile_pattern(pattern).search(self.items[n])), None)

    def _candidates(self, pattern: str) -> Iterable[int]:
        """The indexes, in order, of the questions the pattern may fire on: those holding one of its required
        literals, else (a local pattern) all or none as it fires on the joined text."""
        if self.joined is None:
            return range(len(self.items))
        needed = required_literals(pattern)
        if needed is not None and self.folded is not None:
            found = set()
            for literal in needed:
                at = self.folded.find(literal)
                while at != -1:
                    found.add(bisect_right(self.starts, at) - 1)
                    at = self.folded.find(literal, at + 1)
            return sorted(found)
        if is_local(pattern) and not compile_pattern(pattern).search(self.joined):
            return ()
        return range(len(self.items))


def _folded(text: str) -> str | None:
    """``text`` with each character replaced by the ASCII character an ASCII ``ask`` literal that matches it ignoring
    case is, lower-cased ("K" and the Kelvin sign as "k"); None when a character has two."""
    table: dict[int, str] = {ord(c): c.lower() for c in ascii_uppercase}
    for char in {c for c in set(text) if not c.isascii()}:
        matched = _ascii_alike(char)
        if len(matched) > 1:
            return None
        if matched:
            table[ord(char)] = next(iter(matched))
    return text.translate(table)


@cache
def _ascii_alike(char: str) -> frozenset[str]:
    """The lower-case ASCII characters whose literal matches ``char`` ignoring case (asked once per character: each
    session's probe and path questions are folded anew, with the same few accented letters and dashes)."""
    return frozenset(chr(a).lower() for a in range(128) if re.fullmatch(re.escape(chr(a)), char, re.IGNORECASE))


@dataclass(frozen=True)
class CueShape:
    """What the screens read of an ``ask`` pattern's parse: :func:`required_literals` and :func:`is_local`."""

    literals: frozenset[str] | None
    local: bool


_SHAPES: dict[str, CueShape] = {}
"""Each pattern's shape, worked out once per process (or learnt from another: :func:`learn_cue_shapes`)."""


def cue_shape(pattern: str) -> CueShape:
    """The pattern's shape, parsed by the stdlib's parser with the flags it is compiled with (parsed, not compiled: most
    patterns find no required literal in the questions, so they are never compiled)."""
    shape = _SHAPES.get(pattern)
    if shape is None:
        parsed = _parser.parse(pattern, REGEX_FLAGS)
        shape = _SHAPES[pattern] = CueShape(_required(parsed), _local(parsed))
    return shape


def cue_shapes(patterns: Iterable[str]) -> dict[str, CueShape]:
    """The shapes of ``patterns``, for another process's :func:`learn_cue_shapes`: the cues across personas are looked
    for in ``validate``'s parent process, and the workers that checked each episode's cues have parsed its patterns."""
    return {pattern: cue_shape(pattern) for pattern in patterns}


def learn_cue_shapes(shapes: Mapping[str, CueShape]) -> None:
    """Take the shapes :func:`cue_shapes` gave in another process (a shape is a function of its pattern alone)."""
    _SHAPES.update(shapes)


def required_literals(pattern: str) -> frozenset[str] | None:
    """Lower-case ASCII strings one of which every question the pattern fires on holds (ignoring case), as far as
    its parse shows: a run of literal characters, a group's or a positive lookaround's own, one of each
    alternative's, a repeat's of at least once; None when none is certain (the longest shortest one is kept)."""
    return cue_shape(pattern).literals


def _required(items: Sequence[tuple[object, Any]]) -> frozenset[str] | None:
    best: frozenset[str] | None = None
    run = ""

    def keep(found: frozenset[str] | None) -> None:
        nonlocal best
        if found and all(found) and (best is None or min(map(len, found)) > min(map(len, best))):
            best = found

    for op, arg in items:
        if op is _parser.LITERAL and arg < 128:
            run += chr(arg).lower()
            continue
        keep(frozenset([run]) if run else None)
        run = ""
        if op is _parser.SUBPATTERN:
            keep(_required(arg[3]))
        elif op is _parser.ATOMIC_GROUP:
            keep(_required(arg))
        elif op is _parser.ASSERT:
            keep(_required(arg[1]))
        elif op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT) and arg[0] >= 1:
            keep(_required(arg[2]))
        elif op is _parser.BRANCH:
            each = [_required(branch) for branch in arg[1]]
            keep(None if any(e is None for e in each) else frozenset().union(*each))  # type: ignore[arg-type]  # none is None
    keep(frozenset([run]) if run else None)
    return best


def is_local(pattern: str) -> bool:
    """Whether every match of the pattern on a question alone is one on that question as a line of a longer text.

    True unless it can look beyond the question: a negative lookaround (what it must not see may be in the next line),
    ``\\A`` or ``\\Z``, or ``^``/``$`` with the MULTILINE flag turned off inside it; a positive lookaround is local when
    its own pattern is. Such a pattern is only ever tried question by question.
    """
    return cue_shape(pattern).local


def _local(items: Sequence[tuple[object, object]]) -> bool:
    for op, arg in items:
        if op is _parser.ASSERT_NOT or (op is _parser.AT and arg not in _LOCAL_ANCHORS):
            return False
        if op is _parser.SUBPATTERN and arg[2] & re.MULTILINE:  # type: ignore[index]  # (group, add flags, del flags, items)
            return False
        if not all(_local(sub) for sub in _subsequences(arg)):
            return False
    return True


def _subsequences(arg: object) -> list[Sequence[tuple[object, object]]]:
    """The nested item sequences of a parsed item's argument (groups, branches, repeats, conditionals)."""
    if isinstance(arg, _parser.SubPattern):
        return [arg]
    if isinstance(arg, (tuple, list)):
        return [s for a in arg for s in _subsequences(a)]
    return []


@cache
def offtarget_questions() -> tuple[str, ...]:
    """The shipped corpus of off-target questions, each one the screen lets through."""
    text = (Path(__file__).resolve().parent / "data" / CORPUS).read_text(
        encoding="utf-8"
    )  # importlib.resources fails on an editable namespace package
    lines = [line.strip() for line in text.splitlines()]
    return tuple(q for q in lines if q and not q.startswith("#") and screen_questions(q).admissible)


def top_level_alternatives(pattern: str) -> list[str]:
    """The ``|``-separated alternatives of a regex outside any group or character class."""
    parts, current, depth, in_class, escaped = [], "", 0, False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    return [*parts, current]


def folders_of(paths: Iterable[str]) -> set[str]:
    """Every folder on the way to the given workspace paths ("data", "data/levels")."""
    return {str(parent) for p in paths for parent in PurePosixPath(p).parents if str(parent) != "."}


def bare_probes(workspace_files: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(kind, question) minimal probes, each naming one bare element and nothing a requirement is about."""
    files = list(workspace_files)
    folders = sorted(set(GENERIC_FOLDERS) | folders_of(files))
    return [
        *(("generic noun", f.format(n)) for n in GENERIC_NOUNS for f in _NOUN_FRAMES),
        *(("folder", f.format(d)) for d in folders for f in _FOLDER_FRAMES),
        *(("file type", f"Should I export a {t}?") for t in FILE_TYPES),
        *(("file extension", f"Should I save it as .{e}?") for e in EXTENSIONS),
        *(("year", q) for y in YEARS for q in (f"Is this for {y}?", f"Should I use the {y} figures?")),
        *(("file name", f"Should I update {name}?") for name in (*FILE_NAMES, *sorted({PurePosixPath(p).name for p in files}))),
    ]


def path_questions(workspace_files: Iterable[str]) -> list[str]:
    """Convention questions about the files the agent can see: "Should I add a row for this to <path>?"."""
    return [q for p in sorted(workspace_files) for f in _PATH_FRAMES if _admissible(q := f.format(p))]


@cache
def _admissible(question: str) -> bool:
    """Whether the screen lets the question through (asked once per question: sessions see the same files)."""
    return bool(screen_questions(question).admissible)


def loose_cues(session: Session, rel: str, questions: tuple[str, ...] | None = None, workspace_files: Iterable[str] = ()) -> list[Problem]:
    """One warning per ``ask`` regex that fires on a bare probe, an off-target question or a workspace convention question."""
    files = list(workspace_files)
    corpus = _corpus() if questions is None else Questions(questions)
    probes = bare_probes(files)
    probed = Questions(tuple(q for _, q in probes))
    by_path = Questions(tuple(path_questions(files)))
    problems = []
    for n, intent in enumerate(session.intents):
        for k, pattern in enumerate(intent.ask):
            reason = _bare_reason(pattern, probes, probed)
            if reason is None:
                if hits := corpus.hits(pattern):
                    reason = f"fires on {len(hits)} off-target question(s), e.g. {hits[0]!r}"
                elif hits := by_path.hits(pattern):
                    reason = f"fires on {len(hits)} convention question(s) about a workspace file, e.g. {hits[0]!r}"
            if reason is not None:
                problems.append(
                    Problem(rel, f"intents[{n}].ask[{k}]", f"{reason}: a question not about {intent.id} would count", "warning")
                )
    return problems


@cache
def _corpus() -> Questions:
    return Questions(offtarget_questions())


def _bare_reason(pattern: str, probes: list[tuple[str, str]], probed: Questions) -> str | None:
    for alternative in top_level_alternatives(pattern):
        hit = probed.first_hit(alternative)
        if hit is not None:
            kind, question = probes[hit]
            return (
                f"the alternative {alternative!r} fires on the bare {kind} probe {question!r}; "
                "name the requirement (the thing and what about it), not only the thing"
            )
    return None


def cross_persona_cues(dataset: Dataset) -> list[Problem]:
    """Warnings for cues that fire on the shipped ``question`` of an intent of another persona's sessions."""
    asked = [
        (episode.episode.persona, f"{episode.episode.id}/{session.id}/{intent.id}", intent.question)
        for episode in dataset.episodes.values()
        for session in episode.sessions
        for intent in session.intents
        if intent.question
    ]
    others = {
        persona: Questions(tuple(q for asker, _, q in asked if asker != persona))
        for persona in {episode.episode.persona for episode in dataset.episodes.values()}
    }
    problems = []
    for episode in dataset.episodes.values():
        theirs = [(where, q) for persona, where, q in asked if persona != episode.episode.persona]
        for session in episode.sessions:
            rel = f"episodes/{episode.episode.id}/sessions/{session.id}.yaml"
            for n, intent in enumerate(session.intents):
                for k, pattern in enumerate(intent.ask):
                    hit = others[episode.episode.persona].first_hit(pattern)
                    if hit is not None:
                        where, question = theirs[hit]
                        problems.append(
                            Problem(
                                rel,
                                f"intents[{n}].ask[{k}]",
                                f"fires on another persona's question {question!r} ({where}): a question not about {intent.id} would count",
                                "warning",
                            )
                        )
    return problems
