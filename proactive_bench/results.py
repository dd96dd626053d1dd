"""Scores of finished sessions and episodes, as the runner returns and the CLI prints them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from proactive_bench.grading import GradeResult
from proactive_bench.metrics import CompBasis, IntentCounts, UnitScore, mean_or_none


@dataclass
class SessionResult:
    session_id: str
    status: str
    turns: int
    counts: IntentCounts
    grades: list[GradeResult]
    comp: float | None
    basis: CompBasis
    error: str | None = None
    transcript: list[dict[str, str]] = field(default_factory=list)
    """The session's messages as ``{"role", "content"}``, for later sessions' history."""

    @property
    def proc(self) -> float | None:
        return None if self.status == "error" else self.counts.proc

    def as_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "status": self.status,
            "turns": self.turns,
            "intents": self.counts.total,
            "completed": self.counts.completed,
            "inferred": self.counts.inferred,
            "provided": self.counts.provided,
            "proc": self.proc,
            "comp": self.comp,
            "comp_basis": self.basis.as_dict(),
            "error": self.error,
        }


@dataclass
class EpisodeResult:
    run_id: str
    persona: str
    model: str
    sessions: list[SessionResult]
    units: list[UnitScore]

    @property
    def proc(self) -> float | None:
        return mean_or_none([u.proc for u in self.units])

    @property
    def comp(self) -> float | None:
        return mean_or_none([s.comp for s in self.sessions])

    @property
    def basis(self) -> CompBasis:
        total = CompBasis()
        for s in self.sessions:
            total = total + s.basis
        return total

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "persona": self.persona,
            "model": self.model,
            "proc": self.proc,
            "comp": self.comp,
            "comp_basis": self.basis.as_dict(),
            "dependency_groups": [{"sessions": u.sessions, "proc": u.proc} for u in self.units if len(u.sessions) > 1],
            "sessions": [s.as_dict() for s in self.sessions],
        }
