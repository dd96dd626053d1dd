"""What judges and graders look at: the dialogue, tool records, workspace and memory."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from proactive_bench.data_model.messages import Message

if TYPE_CHECKING:  # annotations only: the data model loads no tools
    from proactive_bench.env import AppStore, Memory, ToolRecord, Workspace

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ABBREVIATION = re.compile(r"(?:\b(?:dr|mr|mrs|ms|prof|st|no|vs|approx|etc|fig|al|inc|ltd|e\.g|i\.e|cf)|\b[a-z])\.$", re.IGNORECASE)


def split_sentences(text: str) -> list[str]:
    """Sentences and lines of a text; a period after a common abbreviation ("Dr.", "e.g.") ends none."""
    return list(_sentences(text))


@functools.lru_cache(maxsize=1024)
def _sentences(text: str) -> tuple[str, ...]:
    """:func:`split_sentences`, split once per text: the user's checks read every reply and message again at each turn."""
    sentences: list[str] = []
    for line in text.splitlines():
        current = ""
        for piece in (p.strip() for p in _SENTENCE_END.split(line) if p.strip()):
            if current and not _ABBREVIATION.search(current):
                sentences.append(current)
                current = ""
            current = f"{current} {piece}" if current else piece
        if current:
            sentences.append(current)
    return tuple(sentences)


def questions_in(text: str) -> list[str]:
    """The sentences of a reply that are questions."""
    return [s for s in _sentences(text) if s.endswith("?")]


def without_questions(text: str) -> str:
    """A reply with its questions removed: asking about a requirement is not meeting it."""
    return "\n".join(s for s in _sentences(text) if not s.endswith("?"))


@dataclass
class Evidence:
    """A view of one session for predicates, Python graders and judges."""

    transcript: list[Message]
    tool_records: list[ToolRecord]
    workspace: Workspace
    memory: Memory
    resolve_python: Callable[[str], Callable[[Evidence], Any]]
    apps: AppStore | None = None
    apps_at_start: dict[str, list[dict[str, Any]]] | None = None
    """Every app table's rows when the session started (``app_rows_added`` counts against it)."""
    memo: dict[Any, Any] = field(default_factory=dict)
    """Values derived from this evidence, computed once per grading pass (a π-Bench script's scores, the predicates'
    workspace walk and file texts): an evidence describes the world as it stands, so after the workspace changes
    make a new one (or ``replace(evidence, memo={})``)."""

    @property
    def replies(self) -> list[str]:
        return [m.content for m in self.transcript if m.role == "agent"]

    @property
    def latest_reply(self) -> str:
        replies = self.replies
        return replies[-1] if replies else ""

    @property
    def latest_statement(self) -> str:
        return without_questions(self.latest_reply)

    @property
    def statements(self) -> list[str]:
        return [without_questions(r) for r in self.replies]

    def tool_history(self) -> list[dict[str, Any]]:
        """Tool records as π-Bench grader scripts expect them."""
        return [r.as_pibench() for r in self.tool_records]
