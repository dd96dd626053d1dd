"""Scores of finished sessions and episodes, as the runner returns and the CLI prints them.

The figures themselves come from :mod:`proactive_bench.scoring.metrics` (``docs/metrics.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from proactive_bench.data_model import (
    PARTIAL_RUN_STATUSES,
    RunStatus,
    SessionOutcome,
    was_clipped,
)
from proactive_bench.scoring.grading import GradeResult
from proactive_bench.scoring.metrics import (
    DEFAULT_SCORING,
    CompBasis,
    IntentCounts,
    Scoring,
    TaskScore,
    episode_comp,
    episode_proc,
    session_comp,
    session_counts,
    task_scores,
)


@dataclass
class SessionResult:
    session_id: str
    status: str
    turns: int
    """Agent turns (the session graph's counter)."""
    counts: IntentCounts
    """Intent labels as the user gave them (see :attr:`scored_counts` for what the figures use)."""
    grades: list[GradeResult]
    comp: float | None
    """Comp over the graded items as graded (see :attr:`scored_comp`)."""
    basis: CompBasis
    error: str | None = None
    transcript: list[dict[str, str]] = field(default_factory=list)
    """The session's messages as ``{"role", "content"}``, for later sessions' history."""
    clipped_intents: int = 0
    """Intent labels the user simulator gave on clipped evidence."""
    provided_intents: tuple[str, ...] = ()
    """The intents the user had to provide (answered or volunteered): an AgentIF bonus tied to one earns nothing."""
    intent_labels: tuple[tuple[str, str], ...] = ()
    """(intent id, label) of every intent that received a label, in labelling order."""
    scoring: Scoring = DEFAULT_SCORING
    """The rules its scored figures follow (set by :func:`episode_result`)."""
    gaps: tuple[str, ...] = ()
    """What of its source benchmark's world the session lacked (the dataset session's ``gaps``): its figures are flagged."""

    @property
    def labelled_intents(self) -> tuple[str, ...]:
        """Every intent that received a label (later sessions' known conventions, ``dataset.known_intents``)."""
        return tuple(intent for intent, _ in self.intent_labels)

    @property
    def clipped_items(self) -> int:
        """Checklist items the judge graded on clipped evidence."""
        return sum(was_clipped(g.rationale) for g in self.grades)

    @property
    def follow_up_turns(self) -> int:
        """User messages after the opening request: the turns π-Bench counts."""
        return sum(m["role"] == "user" for m in self.transcript[1:])

    @property
    def passed(self) -> bool:
        """The session passed: it did not error, and every graded or errored checklist item (at least one) passed."""
        graded = [g for g in self.grades if g.status in ("pass", "fail", "error")]
        return self.status != SessionOutcome.ERROR and bool(graded) and all(g.status == "pass" for g in graded)

    @property
    def scored_counts(self) -> IntentCounts:
        return session_counts(self, self.scoring)

    @property
    def proc(self) -> float | None:
        """The session's own Proc as it enters the figures (0 when it ended in error, unless the scoring grades errored sessions)."""
        return self.scored_counts.proc

    @property
    def scored_comp(self) -> float | None:
        return session_comp(self, self.scoring)

    def as_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "status": self.status,
            "turns": self.turns,
            "follow_up_turns": self.follow_up_turns,
            "intents": self.counts.total,
            "completed": self.counts.completed,
            "inferred": self.counts.inferred,
            "provided": self.counts.provided,
            "proc": self.proc,
            "comp": self.scored_comp,
            "comp_basis": self.basis.as_dict(),
            "clipped": {"intents": self.clipped_intents, "items": self.clipped_items},
            "error": self.error,
            "gaps": list(self.gaps),
        }


@dataclass(frozen=True)
class Failures:
    """Sessions of a run (or of several) that did not end normally, shown beside every figure."""

    error: int = 0
    truncated: int = 0
    not_run: int = 0

    @property
    def any(self) -> bool:
        return bool(self.error or self.truncated or self.not_run)

    def __add__(self, other: Failures) -> Failures:
        return Failures(self.error + other.error, self.truncated + other.truncated, self.not_run + other.not_run)

    def as_dict(self) -> dict[str, int]:
        return {"error": self.error, "truncated": self.truncated, "not_run": self.not_run}


@dataclass
class EpisodeResult:
    run_id: str
    persona: str
    model: str
    sessions: list[SessionResult]
    tasks: list[TaskScore]
    planned: list[str]
    """The session ids the run was meant to play."""
    run_status: str = RunStatus.FINISHED
    scoring: Scoring = DEFAULT_SCORING

    @property
    def proc(self) -> float | None:
        return episode_proc(self.tasks)

    @property
    def comp(self) -> float | None:
        return episode_comp(self.tasks)

    @property
    def failures(self) -> Failures:
        played = {s.session_id for s in self.sessions}
        return Failures(
            sum(s.status == SessionOutcome.ERROR for s in self.sessions),
            sum(s.status == SessionOutcome.TRUNCATED for s in self.sessions),
            sum(sid not in played for sid in self.planned),
        )

    @property
    def partial(self) -> bool:
        """The run stopped before playing every planned session; comparisons leave it out unless asked."""
        return self.run_status in PARTIAL_RUN_STATUSES or self.failures.not_run > 0

    @property
    def clipped(self) -> dict[str, int]:
        """Intents labelled and items graded on clipped evidence."""
        return {"intents": sum(s.clipped_intents for s in self.sessions), "items": sum(s.clipped_items for s in self.sessions)}

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
            "scoring": self.scoring.name,
            "proc": self.proc,
            "comp": self.comp,
            "partial": self.partial,
            "failures": self.failures.as_dict(),
            "clipped": self.clipped,
            "comp_basis": self.basis.as_dict(),
            "tasks": [
                {
                    "session_id": t.session_id,
                    "trajectory": list(t.trajectory),
                    "proc": t.proc,
                    "proc_weight": t.proc_weight,
                    "comp": t.comp,
                    "comp_weight": t.comp_weight,
                }
                for t in self.tasks
            ],
            "sessions": [s.as_dict() for s in self.sessions],
        }


def episode_result(
    run_id: str,
    persona: str,
    model: str,
    sessions: list[SessionResult],
    depends_on: Mapping[str, Sequence[str]],
    planned: Sequence[str],
    run_status: str = RunStatus.FINISHED,
    scoring: Scoring = DEFAULT_SCORING,
) -> EpisodeResult:
    """A run's result: its finished sessions scored as tasks under ``scoring``."""
    scored = [replace(s, scoring=scoring) for s in sessions]
    return EpisodeResult(run_id, persona, model, scored, task_scores(scored, depends_on, scoring), list(planned), run_status, scoring)
