"""What the simulated user decides about hidden intents: one label per intent, and the leaks of a reply.

A label is made by a user backend (``turn`` still 0), stamped with its user
turn by the session graph, held in the graph state, and written to the
store as one ``IntentEvent`` row (:mod:`proactive_bench.episode.rows`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from proactive_bench.data_model.status import IntentStatus


class Stage(StrEnum):
    COMPLETION = "completion"
    QUESTION = "question"
    VOLUNTEER = "volunteer"
    REASKED = "reasked"
    """A question about a requirement the agent already knew from an earlier session: answered, labelled provided."""


@dataclass(frozen=True)
class IntentLabel:
    """The terminal status one intent received, and why."""

    intent_id: str
    status: IntentStatus
    stage: Stage
    evidence: str
    decided_by: str
    prompt_hash: str | None = None
    turn: int = 0
    """The user turn that gave the label (set by the session graph; 0 until then)."""


@dataclass(frozen=True)
class Leak:
    """A user reply (at ``turn``) whose first draft conveyed intents not chosen that turn."""

    turn: int
    intents: list[str]
