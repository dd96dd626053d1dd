"""Proactivity (Proc) and completeness (Comp), per session and pooled.

Proc = (completed + inferred) / intents. Over a dependency group (sessions
linked by ``depends_on``) the intents are pooled; the episode Proc is the mean
over dependency units (groups and independent sessions). Comp is the
weighted mean of graded checklist items; ungraded and errored items are left
out and reported in the basis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import mean

from proactive_bench.grading import GradeResult
from proactive_bench.schema import Episode


@dataclass(frozen=True)
class IntentCounts:
    completed: int = 0
    inferred: int = 0
    provided: int = 0
    total: int = 0

    @property
    def unresolved(self) -> int:
        return self.total - self.completed - self.inferred - self.provided

    @property
    def proc(self) -> float | None:
        return (self.completed + self.inferred) / self.total if self.total else None

    def __add__(self, other: IntentCounts) -> IntentCounts:
        return IntentCounts(
            self.completed + other.completed,
            self.inferred + other.inferred,
            self.provided + other.provided,
            self.total + other.total,
        )


def count_statuses(statuses: list[str], total: int) -> IntentCounts:
    return IntentCounts(statuses.count("completed"), statuses.count("inferred"), statuses.count("provided"), total)


@dataclass(frozen=True)
class CompBasis:
    graded: int = 0
    ungraded: int = 0
    errored: int = 0
    graders: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"graders": list(self.graders), "graded_items": self.graded, "ungraded_items": self.ungraded, "errored_items": self.errored}

    def __add__(self, other: CompBasis) -> CompBasis:
        graders = tuple(sorted(set(self.graders) | set(other.graders)))
        return CompBasis(self.graded + other.graded, self.ungraded + other.ungraded, self.errored + other.errored, graders)


def comp(grades: list[GradeResult]) -> tuple[float | None, CompBasis]:
    """Weighted mean over graded items, and which items it covers."""
    graded = [g for g in grades if g.status in ("pass", "fail")]
    basis = CompBasis(
        graded=len(graded),
        ungraded=sum(g.status == "ungraded" for g in grades),
        errored=sum(g.status == "error" for g in grades),
        graders=tuple(sorted({g.grader for g in graded})),
    )
    weight = sum(g.weight for g in graded)
    if not weight:
        return None, basis
    return sum(g.weight * (g.score or 0) for g in graded) / weight, basis


def dependency_units(episode: Episode, session_ids: list[str] | None = None) -> list[list[str]]:
    """Connected components of ``depends_on`` (restricted to ``session_ids``), in episode order."""
    order = [s.id for s in episode.sessions if session_ids is None or s.id in session_ids]
    parent = {sid: sid for sid in order}

    def find(sid: str) -> str:
        while parent[sid] != sid:
            parent[sid] = parent[parent[sid]]
            sid = parent[sid]
        return sid

    for entry in episode.sessions:
        for dep in entry.depends_on:
            if entry.id in parent and dep in parent:
                parent[find(entry.id)] = find(dep)
    units: dict[str, list[str]] = {}
    for sid in order:
        units.setdefault(find(sid), []).append(sid)
    return list(units.values())


@dataclass
class UnitScore:
    sessions: list[str]
    counts: IntentCounts = field(default_factory=IntentCounts)

    @property
    def proc(self) -> float | None:
        return self.counts.proc


def pooled_proc(units: list[list[str]], counts: dict[str, IntentCounts]) -> list[UnitScore]:
    """Pool intent counts over each unit; sessions without counts (errors) are left out."""
    scores = []
    for unit in units:
        score = UnitScore([s for s in unit if s in counts])
        for sid in score.sessions:
            score.counts = score.counts + counts[sid]
        if score.sessions:
            scores.append(score)
    return scores


def mean_or_none(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return mean(present) if present else None
