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
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path, PurePosixPath

from proactive_bench.dataset import Dataset, Problem, Session, compile_pattern
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
    return [q for p in sorted(workspace_files) for f in _PATH_FRAMES if screen_questions(q := f.format(p)).admissible]


def loose_cues(session: Session, rel: str, questions: tuple[str, ...] | None = None, workspace_files: Iterable[str] = ()) -> list[Problem]:
    """One warning per ``ask`` regex that fires on a bare probe, an off-target question or a workspace convention question."""
    files = list(workspace_files)
    corpus = offtarget_questions() if questions is None else questions
    probes = bare_probes(files)
    by_path = path_questions(files)
    problems = []
    for n, intent in enumerate(session.intents):
        for k, pattern in enumerate(intent.ask):
            reason = _bare_reason(pattern, probes)
            if reason is None:
                regex = compile_pattern(pattern)
                if hits := [q for q in corpus if regex.search(q)]:
                    reason = f"fires on {len(hits)} off-target question(s), e.g. {hits[0]!r}"
                elif hits := [q for q in by_path if regex.search(q)]:
                    reason = f"fires on {len(hits)} convention question(s) about a workspace file, e.g. {hits[0]!r}"
            if reason is not None:
                problems.append(
                    Problem(rel, f"intents[{n}].ask[{k}]", f"{reason}: a question not about {intent.id} would count", "warning")
                )
    return problems


def _bare_reason(pattern: str, probes: list[tuple[str, str]]) -> str | None:
    for alternative in top_level_alternatives(pattern):
        regex = compile_pattern(alternative)
        hit = next(((kind, q) for kind, q in probes if regex.search(q)), None)
        if hit is not None:
            kind, question = hit
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
    problems = []
    for episode in dataset.episodes.values():
        for session in episode.sessions:
            rel = f"episodes/{episode.episode.id}/sessions/{session.id}.yaml"
            for n, intent in enumerate(session.intents):
                for k, pattern in enumerate(intent.ask):
                    regex = compile_pattern(pattern)
                    hit = next(((where, q) for persona, where, q in asked if persona != episode.episode.persona and regex.search(q)), None)
                    if hit is not None:
                        problems.append(
                            Problem(
                                rel,
                                f"intents[{n}].ask[{k}]",
                                f"fires on another persona's question {hit[1]!r} ({hit[0]}): a question not about {intent.id} would count",
                                "warning",
                            )
                        )
    return problems
