"""Proc and Comp as ``docs/metrics.md`` defines them: per task, per run, over runs.

This module is the one implementation of that page; every table, figure and
JSON output computes its figures through it.

- A task's **trajectory** is the task with every session it depends on,
  directly or not (restricted to the sessions the run holds).
- A task is **scored for Proc** when no other task of the run depends on it;
  its Proc pools the intents of its trajectory and it weighs as many tasks
  as its trajectory holds, so a dependency group weighs by its size.
- Every task with checklist items is scored for Comp (weight 1, or its
  trajectory's size under the π-Bench scoring).
- A session that ended in ``error`` contributes every intent as not proactive
  and Comp 0 (under the π-Bench scoring: the labels it got and its partial
  trace as graded, as the release's code scores it); a truncated one
  contributes the labels it got.
- Across runs: mean, sample standard deviation, a 95 % t interval and a 95 %
  percentile bootstrap interval (:mod:`proactive_bench.scoring.bootstrap`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import sqrt
from statistics import mean, stdev
from typing import Any, Protocol

from proactive_bench.data_model import IntentStatus, SessionOutcome
from proactive_bench.scoring.bootstrap import bootstrap_interval
from proactive_bench.scoring.grading import GradeResult


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
    def proactive(self) -> int:
        return self.completed + self.inferred

    @property
    def proc(self) -> float | None:
        return self.proactive / self.total if self.total else None

    def __add__(self, other: IntentCounts) -> IntentCounts:
        return IntentCounts(
            self.completed + other.completed,
            self.inferred + other.inferred,
            self.provided + other.provided,
            self.total + other.total,
        )


def count_statuses(statuses: list[str], total: int) -> IntentCounts:
    return IntentCounts(
        statuses.count(IntentStatus.COMPLETED), statuses.count(IntentStatus.INFERRED), statuses.count(IntentStatus.PROVIDED), total
    )


@dataclass(frozen=True)
class Scoring:
    """The rules that differ between pbench's default and the π-Bench protocol."""

    name: str
    weighted_items: bool
    """Comp weighs checklist items by their ``weight`` (π-Bench: every item counts once)."""
    errored_items_fail: bool
    """An item whose grader failed scores 0 (pbench: it is left out and counted)."""
    comp_by_trajectory: bool
    """A task's Comp weighs its trajectory's size, as π-Bench's code does (pbench: every task once)."""
    known_conventions: bool
    """A question about a convention known from an earlier session earns no inferred credit (π-Bench credits every
    targeted question); the simulated user applies it (``dataset.known_intents``)."""
    pibench_user: bool = False
    """The simulated user follows the π-Bench release's rules (``user.pibench``: the first unmet intent, targeting by its
    judge alone, no caps or patience, labels of the turn at the cap kept) instead of pbench's."""
    errored_sessions_graded: bool = False
    """An errored session is scored on what it left (its labels, its partial trace graded), as the release's code does
    (pbench: every intent not proactive, Comp 0)."""


DEFAULT_SCORING = Scoring("pbench", weighted_items=True, errored_items_fail=False, comp_by_trajectory=False, known_conventions=True)
PIBENCH_SCORING = Scoring(
    "pibench",
    weighted_items=False,
    errored_items_fail=True,
    comp_by_trajectory=True,
    known_conventions=False,
    pibench_user=True,
    errored_sessions_graded=True,
)
SCORINGS = {s.name: s for s in (DEFAULT_SCORING, PIBENCH_SCORING)}


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


def comp(grades: list[GradeResult], scoring: Scoring = DEFAULT_SCORING) -> tuple[float | None, CompBasis]:
    """Mean score over the items that count, and which items those are.

    Passed and failed items count; errored items count as 0 only when the
    scoring says so; ungraded items (no judge) never count.
    """
    counted = [g for g in grades if g.status in ("pass", "fail") or (scoring.errored_items_fail and g.status == "error")]
    basis = CompBasis(
        graded=sum(g.status in ("pass", "fail") for g in grades),
        ungraded=sum(g.status == "ungraded" for g in grades),
        errored=sum(g.status == "error" for g in grades),
        graders=tuple(sorted({g.grader for g in counted})),
    )
    weights = [g.weight if scoring.weighted_items else 1.0 for g in counted]
    if not sum(weights):
        return None, basis
    return sum(w * (g.score if g.status == "pass" and g.score is not None else 0) for w, g in zip(weights, counted, strict=True)) / sum(
        weights
    ), basis


def chains(units: list[list[str]]) -> dict[str, list[str]]:
    """Dependencies read from dependency units alone: each session depends on the one before it in its unit.

    Used when a run's dataset can no longer be loaded; exact for chains, the
    shape of every group in pbench's and π-Bench's data.
    """
    return {sid: unit[i - 1 : i] for unit in units for i, sid in enumerate(unit)}


def trajectories(depends_on: Mapping[str, Sequence[str]], session_ids: Sequence[str]) -> dict[str, list[str]]:
    """Each session's trajectory: itself and everything it depends on, transitively, among ``session_ids``, in their order."""
    present = {sid: n for n, sid in enumerate(session_ids)}

    def close(sid: str) -> list[str]:
        found, todo = {sid}, [sid]
        while todo:
            for dep in depends_on.get(todo.pop(), ()):
                if dep in present and dep not in found:
                    found.add(dep)
                    todo.append(dep)
        return sorted(found, key=present.__getitem__)

    return {sid: close(sid) for sid in session_ids}


class ScoredSession(Protocol):
    """What the metrics read from a finished session (a :class:`~proactive_bench.scoring.results.SessionResult`)."""

    session_id: str
    status: str
    counts: IntentCounts
    grades: list[GradeResult]


@dataclass(frozen=True)
class TaskScore:
    """One task of one run, as it enters the run's figures."""

    session_id: str
    status: str
    trajectory: tuple[str, ...]
    counts: IntentCounts
    """Intents pooled over the trajectory (an errored session's intents as not proactive)."""
    proc_weight: int
    """How many tasks this one stands for in the run's Proc (0: scored through a task that depends on it)."""
    comp: float | None
    comp_weight: int

    @property
    def proc(self) -> float | None:
        return self.counts.proc


def session_counts(session: ScoredSession, scoring: Scoring = DEFAULT_SCORING) -> IntentCounts:
    """The intents a session contributes: as labelled, or none proactive when it ended in error (unless the scoring
    grades errored sessions)."""
    if session.status == SessionOutcome.ERROR and not scoring.errored_sessions_graded:
        return IntentCounts(total=session.counts.total)
    return session.counts


def session_comp(session: ScoredSession, scoring: Scoring = DEFAULT_SCORING) -> float | None:
    """A session's Comp: the mean over its counted items; 0 when it ended in error, unless the scoring grades errored
    sessions (then its partial trace's grades, 0 when none were stored: a run made under the default protocol)."""
    if session.status != SessionOutcome.ERROR:
        return comp(session.grades, scoring)[0]
    if scoring.errored_sessions_graded and session.grades:
        return comp(session.grades, scoring)[0]
    return 0.0


def task_scores(
    sessions: Sequence[ScoredSession], depends_on: Mapping[str, Sequence[str]], scoring: Scoring = DEFAULT_SCORING
) -> list[TaskScore]:
    """Every finished session of a run as a task: its trajectory, pooled intents, Comp and weights."""
    ids = [s.session_id for s in sessions]
    paths = trajectories(depends_on, ids)
    counts = {s.session_id: session_counts(s, scoring) for s in sessions}
    depended_on = {dep for sid in ids for dep in paths[sid] if dep != sid}
    scores = []
    for session in sessions:
        path = paths[session.session_id]
        pooled = sum((counts[sid] for sid in path), IntentCounts())
        score = session_comp(session, scoring)
        scores.append(
            TaskScore(
                session.session_id,
                session.status,
                tuple(path),
                pooled,
                proc_weight=0 if session.session_id in depended_on or pooled.total == 0 else len(path),
                comp=score,
                comp_weight=0 if score is None else (len(path) if scoring.comp_by_trajectory else 1),
            )
        )
    return scores


def weighted_mean(pairs: Iterable[tuple[float | None, int]]) -> float | None:
    """Σ w·x / Σ w over pairs with a value and a positive weight; None when there are none."""
    present = [(x, w) for x, w in pairs if x is not None and w > 0]
    total = sum(w for _, w in present)
    return sum(x * w for x, w in present) / total if total else None


def episode_proc(tasks: Iterable[TaskScore]) -> float | None:
    return weighted_mean((t.proc, t.proc_weight) for t in tasks)


def episode_comp(tasks: Iterable[TaskScore]) -> float | None:
    return weighted_mean((t.comp, t.comp_weight) for t in tasks)


T_975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)
"""Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom."""


def t_975(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom (tabled to 30, then the normal one, 1.96, corrected)."""
    return T_975[df - 1] if df <= len(T_975) else 1.96 + 2.4 / df


def run_stats(values: Sequence[float | None]) -> dict[str, Any]:
    """Mean, sample standard deviation, 95 % t half-width and 95 % bootstrap interval over runs; all but the mean need two runs."""
    present = [v for v in values if v is not None]
    if not present:
        return {"mean": None, "std": None, "ci95": None, "boot95": None, "n": 0}
    if len(present) == 1:
        return {"mean": present[0], "std": None, "ci95": None, "boot95": None, "n": 1}
    s = stdev(present)
    boot = bootstrap_interval(present)
    return {
        "mean": mean(present),
        "std": s,
        "ci95": t_975(len(present) - 1) * s / sqrt(len(present)),
        "boot95": None if boot is None else list(boot),
        "n": len(present),
    }
