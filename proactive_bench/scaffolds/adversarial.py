"""Adversarial scripted baselines: agents that try to game Proc and Comp without doing the work.

Each must score near zero (Proc <= 0.05, Comp <= 0.15 with the rules user on
every dataset): ``pbench validate --oracle`` holds them to it. They are the benchmark's own
attackers, not reference points for real assistants:

- ``scripted:shotgun`` opens with one laundry-list question over
  :data:`WORK_DIMENSIONS`, then says it is done;
- ``scripted:drip`` is the smarter shotgun: one short question per dimension,
  :data:`DRIP_PER_TURN` a turn (under the per-turn survey cap) until the list
  runs out;
- ``scripted:vague`` asks an open "anything else?" question every turn;
- ``scripted:claimer`` never touches the workspace and says every requirement
  is handled;
- ``scripted:stuffer`` writes every file the task produces (a .docx, .xlsx
  or .pdf through its office tool, so the graders can read it), stuffed with
  the words of the request and of the workspace files (documents read as
  ``read_file`` shows them), and lists everything in a long reply;
- ``scripted:conventions`` opens every session with the same few questions
  about conventions most workplaces keep (:data:`CONVENTION_QUESTIONS`: the
  reports index, the tracker, the log, the template), then says it is done;
- ``scripted:filer`` asks, for every workspace file named like an index,
  tracker, log or register, whether to add a row for this to that file,
  :data:`DRIP_PER_TURN` a turn;
- ``scripted:echo`` turns what the user told it in earlier sessions back into
  questions ("Same as last time: ...?"), :data:`DRIP_PER_TURN` a turn;
- ``scripted:parrot`` does no work but copies the user's sentences and ID
  codes (this session's and earlier sessions'), one a line, into every index,
  tracker, log or register file of the workspace, a notes file in each
  folder, and memory;
- ``scripted:magpie`` is all four at once: the convention questions, the
  per-file questions and the echoes, spread over turns under the survey cap,
  after a parrot's writes.

Their vocabulary is generic and persona-independent on purpose: it is not built
from any episode's cues, so a dataset whose cues it hits has a cue problem. The
stuffer reads the reference solution for one thing only, the paths a session
writes, so that its files land where the graders look.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import PurePosixPath
from typing import Literal, get_args

from proactive_bench.dataset import Session
from proactive_bench.env import Workspace, file_text
from proactive_bench.scaffolds.protocol import (
    SCAFFOLDS,
    AgentTurn,
    ScaffoldOptions,
    SessionContext,
)

AdversaryMode = Literal["shotgun", "drip", "vague", "claimer", "stuffer", "conventions", "filer", "echo", "parrot", "magpie"]
ADVERSARY_MODES: tuple[AdversaryMode, ...] = get_args(AdversaryMode)
DRIP_PER_TURN = 4

WORK_DIMENSIONS: tuple[str, ...] = (
    "all locations and sites",
    "a projection or forecast",
    "alternatives and substitutes",
    "a purchase order",
    "a notice to the people affected",
    "the audience and who should receive it",
    "a reminder or follow-up task",
    "an index or log of your reports",
    "your usual template, format and layout",
    "the deadline and delivery date",
    "costs and the budget",
    "who to copy (cc)",
    "sources and citations",
    "a summary or recommendation first",
    "exclusions and exceptions",
    "monitoring and checks",
    "thresholds and cut-offs",
    "a spreadsheet or CSV export",
    "an email draft",
    "a task in your to-do list",
    "a comparison with last time",
    "criteria and eligibility",
    "contact details",
    "approval and sign-off",
    "labels and tags",
    "sections by week",
    "attachments",
    "quantities and units",
    "risk factors",
    "documentation and wording",
    "a note in memory for next time",
    "a breakdown by unit or team",
    "the edition or version",
    "the data to use and the period it covers",
)
"""Common dimensions of knowledge work across professions, for the shotgun and the claimer."""

VAGUE_QUESTIONS: tuple[str, ...] = (
    "Anything else I should know before I finish?",
    "Is there anything else you would like me to handle?",
    "Any preferences or requirements I should keep in mind?",
    "Anything more you'd like me to add?",
)

CONVENTION_QUESTIONS: tuple[str, ...] = (
    "Should I add this report to your reports index?",
    "Should I update the tracker too?",
    "Should I log it in the register as well?",
    "Should I use your usual template for it?",
)
"""Questions about conventions most workplaces keep, asked whatever the session is about."""

CONVENTION_FILE = re.compile(r"index|tracker|log|register|registry|ledger", re.IGNORECASE)
"""Workspace file names that look like a running list of the user's work."""

DONE = "All done - everything is handled."
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]{3,}|\d[\d.,/-]*\d|[A-Z0-9]{2,}(?:-[A-Z0-9]+)+")


def laundry_list_question() -> str:
    """One question that names every work dimension."""
    return "Before I start: should I include " + ", ".join(WORK_DIMENSIONS[:-1]) + f", or {WORK_DIMENSIONS[-1]}?"


def claims_everything() -> str:
    """A reply that says every dimension is handled, and nothing else."""
    return "Done. I have handled every requirement: " + "; ".join(WORK_DIMENSIONS) + ". It is all added to the index and filed."


class AdversarialAgent:
    """An agent that tries to earn credit without doing the work (see the module docstring)."""

    def __init__(self, mode: AdversaryMode) -> None:
        self.mode = mode
        self._ctx: SessionContext | None = None
        self._turns = 0
        self._queue: list[str] = []

    def start_session(self, ctx: SessionContext) -> None:
        self._ctx, self._turns = ctx, 0

    def end_session(self) -> None:
        self._ctx = None

    def respond(self, message: str) -> AgentTurn:
        self._turns += 1
        first = self._turns == 1
        if self.mode == "shotgun":
            return AgentTurn(laundry_list_question() if first else DONE)
        if self.mode == "drip":
            start = (self._turns - 1) * DRIP_PER_TURN
            dimensions = WORK_DIMENSIONS[start : start + DRIP_PER_TURN]
            return AgentTurn(" ".join(f"Should I include {d}?" for d in dimensions) if dimensions else DONE)
        if self.mode == "vague":
            return AgentTurn(VAGUE_QUESTIONS[(self._turns - 1) % len(VAGUE_QUESTIONS)])
        if self.mode == "claimer":
            return AgentTurn(claims_everything())
        if self.mode == "stuffer":
            return AgentTurn(self._stuff(message) if first else claims_everything())
        if self.mode == "parrot":
            return AgentTurn(self._parrot(message) if first else DONE)
        if first:
            self._queue = self._questions()
            if self.mode == "magpie":
                self._parrot(message)
        batch, self._queue = self._queue[:DRIP_PER_TURN], self._queue[DRIP_PER_TURN:]
        return AgentTurn(" ".join(batch) if batch else DONE)

    def _questions(self) -> list[str]:
        """Every question the mode will ask this session, in order."""
        assert self._ctx is not None
        asks = {
            "conventions": list(CONVENTION_QUESTIONS),
            "filer": [f"Should I add a row for this to {path}?" for path in convention_files(self._ctx.workspace)],
            "echo": [echoed(sentence) for sentence in user_sentences(earlier_reveals(self._ctx.history))],
        }
        if self.mode == "magpie":
            return [q for kind in ("conventions", "filer", "echo") for q in asks[kind]]
        return asks[self.mode]

    def _parrot(self, message: str) -> str:
        """Copy the user's sentences and codes, one a line, into the files it guesses and into memory."""
        assert self._ctx is not None
        heard = user_sentences([message, *earlier_reveals(self._ctx.history)])
        lines = [*heard, *id_codes(" ".join(heard))]
        text = "\n".join(lines)
        for path in convention_files(self._ctx.workspace):
            old = self._ctx.workspace.read_text(path) if path.endswith((".md", ".txt", ".csv")) else ""
            self._ctx.tools.call("write_file", {"path": path, "content": f"{old.rstrip()}\n{text}\n"})
        for folder in sorted({str(PurePosixPath(p).parent) for p in self._ctx.workspace.files()} - {"."}):
            self._ctx.tools.call("write_file", {"path": f"{folder}/notes.md", "content": f"# Notes\n\n{text}\n"})
        for n, line in enumerate(lines):
            self._ctx.tools.call("memory_write", {"key": f"note-{n}", "text": line})
        return f"Done. Noted: {' '.join(heard)}"

    def _stuff(self, message: str) -> str:
        """Write every output path with the session's words on one line; reply with them all."""
        assert self._ctx is not None
        assert self._ctx.reference is not None
        words = " ".join(stuffing_words(message, workspace_texts(self._ctx.workspace)))
        for path in written_paths(self._ctx.reference):
            text = f"{words} {' '.join(WORK_DIMENSIONS)}"
            tool, args = stuffed_call(path, text)
            if not self._ctx.tools.call(tool, args).ok:  # an office tool the session does not offer: a plain file then
                self._ctx.tools.call("write_file", {"path": path, "content": f"# {path}\n\n{text}\n"})
        return f"Done: {'; '.join(WORK_DIMENSIONS)}. Key points: {words}"


def convention_files(workspace: Workspace) -> list[str]:
    """Workspace files named like an index, tracker, log or register."""
    return [path for path in workspace.files() if CONVENTION_FILE.search(PurePosixPath(path).stem)]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_CODE = re.compile(r"\b(?:[A-Z0-9]{2,}(?:[-.][A-Z0-9]+)+|\d+(?:[-/.]\d+)+)\b")


def earlier_reveals(history: list[list[dict[str, str]]]) -> list[str]:
    """What the user said in earlier sessions after their opening request: the requirements it revealed."""
    return [m["content"] for transcript in history for m in transcript[1:] if m.get("role") == "user"]


def user_sentences(messages: list[str]) -> list[str]:
    """The distinct sentences of the user's messages."""
    parts = (part.strip() for text in messages for part in _SENTENCE_END.split(text))
    return list(dict.fromkeys(part for part in parts if len(part.split()) >= 3))


def id_codes(text: str) -> list[str]:
    """Codes, numbers with separators and dates in a text ("4-7823", "MRM-014", "2025-03-21")."""
    return list(dict.fromkeys(_CODE.findall(text)))


def echoed(sentence: str) -> str:
    """A sentence the user said before, asked back as a question."""
    return f"Same as last time: {sentence.rstrip('.!? ')}?"


WRITING_TOOLS = ("write_file", "edit_file", "docx_create", "docx_edit", "xlsx_write", "xlsx_append_rows", "pdf_create")
"""The tools whose ``path`` argument is a file the session produces."""


def written_paths(session: Session) -> list[str]:
    """The workspace paths a session's reference solution writes or edits, in order."""
    paths = (str(step.args["path"]) for step in session.reference if step.tool in WRITING_TOOLS and "path" in step.args)
    return list(dict.fromkeys(paths))


def stuffed_call(path: str, text: str) -> tuple[str, dict[str, object]]:
    """The tool call that fills ``path`` with ``text`` in the file's own format (a document the graders can read)."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix == ".docx":
        return "docx_create", {"path": path, "blocks": [{"type": "paragraph", "text": text}], "overwrite": True}
    if suffix == ".xlsx":
        return "xlsx_write", {"path": path, "cells": {"A1": text}}
    if suffix == ".pdf":
        return "pdf_create", {"path": path, "text": text, "overwrite": True}
    return "write_file", {"path": path, "content": f"# {path}\n\n{text}\n"}


STUFFING_FILE_CHARS = 20_000


def workspace_texts(workspace: Workspace) -> list[str]:
    """The text of every workspace file as ``read_file`` would show it (documents extracted)."""
    texts = []
    for path in workspace.files():
        try:
            texts.append(file_text(workspace, path, STUFFING_FILE_CHARS))
        except (OSError, ValueError):
            continue
    return texts


def stuffing_words(request: str, texts: list[str], limit: int = 600) -> list[str]:
    """The request's words, then the most frequent words and codes of the workspace files."""
    from_request = list(dict.fromkeys(_WORD.findall(request)))
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(_words_of(text))
    common = [w for w, _ in counts.most_common(limit) if w not in from_request]
    return from_request + common


@functools.lru_cache(maxsize=512)
def _words_of(text: str) -> tuple[str, ...]:
    """A text's words and codes in order (kept: each session's stuffing reads the same unchanged files again)."""
    return tuple(_WORD.findall(text))


def adversarial_factory(mode: AdversaryMode):  # a factory of factories
    def factory(_options: ScaffoldOptions) -> AdversarialAgent:
        return AdversarialAgent(mode)

    return factory


for _mode in ADVERSARY_MODES:
    SCAFFOLDS.add(f"scripted:{_mode}", adversarial_factory(_mode))
