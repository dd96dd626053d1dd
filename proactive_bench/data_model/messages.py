"""One message of a session's dialogue: the opening request or event, an agent reply, a user reply.

The session graph's transcript holds these; the store keeps each as one
``MessageRow`` (:mod:`proactive_bench.episode.rows`); judges and graders read
them from the :class:`~proactive_bench.data_model.evidence.Evidence`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["user", "event", "agent"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str
    turn: int

    def as_history(self) -> dict[str, str]:
        """The message as scaffolds and session results show it (no turn)."""
        return {"role": self.role, "content": self.content}
