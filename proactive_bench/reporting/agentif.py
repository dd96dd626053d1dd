"""AgentIF tables: the paper's score per task, per category, domain and item category, beside Proc and user burden.

Definitions (docs/metrics.md, "AgentIF tasks"): a run's task score is
``max(0, S+ - S-) / S_max`` (``suites.score_task``); a task's score is the
mean over its runs; a model's score, and its score per task category
(workflow / latent / refinement), domain (work / study / life) and
attachment condition (tasks with attachments, tasks without), is the mean
over tasks (equation 2); its negative-constraint score (the paper's "Neg.
Const.") is the share of penalty points not triggered, pooled over its scored
runs. A run with an item that could not be graded is
left out of the means and counted in ``unscored``; an errored run scores 0
and is counted in ``errored``. The item table sums, per item category
(content / form / execution), the bonus points earned over the bonus points
possible and the penalty points triggered. Proc pools the latent rules'
labels (completed + inferred over all); burden is the mean of questions and
user turns per session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import TYPE_CHECKING, Any

import proactive_bench.suites as suites  # the AgentIF suite loads when an AgentIF run is reported, not for every report
from proactive_bench.data_model import SessionOutcome
from proactive_bench.episode import run_spec
from proactive_bench.reporting.row_tables import Rows, RowTables, group_by, no_rows
from proactive_bench.scoring import SNAPSHOT_KIND, EpisodeResult
from proactive_bench.store import ReadQueries, RunLike

if TYPE_CHECKING:
    from proactive_bench.suites import AgentIFTask, TaskScore

SUITE = "agentif"


def is_agentif_run(run: RunLike) -> bool:
    return run_spec(run).suite == SUITE


@dataclass
class AgentIFRun:
    """One scored run of an AgentIF task."""

    run: RunLike
    score: TaskScore
    intents: tuple[int, int]
    """(completed + inferred, all) latent-rule labels of the run."""
    questions: int
    user_turns: int
    attachments: int = 0
    """How many attachments the task gives."""


def run_task_score(task: AgentIFTask, result: EpisodeResult) -> TaskScore:
    """A run's score: from its one session's grades and provided rules; an errored or unplayed session scores 0."""
    session = result.sessions[0] if result.sessions else None
    if session is None or session.status == SessionOutcome.ERROR:
        return suites.score_task(task, {}, errored=True)
    return suites.score_task(task, {g.item_id: g.status for g in session.grades}, session.provided_intents)


def agentif_runs(store: ReadQueries, runs: Sequence[tuple[RunLike, EpisodeResult]]) -> tuple[list[AgentIFRun], list[str]]:
    """The runs scored against their tasks (read once per dataset and task), and one line per run whose task no longer loads."""
    tasks: dict[tuple[str, str], AgentIFTask | None] = {}
    scored, problems = [], []
    for run, result in runs:
        spec = run_spec(run)
        key = (spec.data_root, spec.persona)
        if key not in tasks:
            tasks[key] = suites.read_agentif_task(Path(spec.data_root), spec.persona)[0]
        task = tasks[key]
        if task is None:
            problems.append(f"run {run.id}: task {spec.persona!r} does not load from {spec.data_root}; left out")
            continue
        counts = [s.scored_counts for s in result.sessions]
        burden = store.latest_snapshot(run.id, SNAPSHOT_KIND) or {}  # the run's one session
        scored.append(
            AgentIFRun(
                run,
                run_task_score(task, result),
                (sum(c.completed + c.inferred for c in counts), sum(c.total for c in counts)),
                burden.get("questions", 0),
                burden.get("user_turns", 0),
                len(task.attachments),
            )
        )
    return scored, problems


@dataclass
class AgentIFTables(RowTables):
    tasks: Rows = no_rows()
    models: Rows = no_rows()
    items: Rows = no_rows()
    problems: list[str] = field(default_factory=list)


def _mean(values: list[float]) -> float | None:
    return mean(values) if values else None


def agentif_tables(runs: list[AgentIFRun], problems: list[str] | None = None) -> AgentIFTables:
    """Per-task rows, per-model rows (overall, per category, per domain, Proc, burden), per-model item-category rows."""
    tables = AgentIFTables(problems=list(problems or []))
    for (model, task), members in sorted(group_by(runs, lambda r: (r.run.model, r.score.task)).items()):
        scores = [m.score.score for m in members if m.score.score is not None]
        first = members[0].score
        tables.tasks.append(
            {
                "model": model,
                "task": task,
                "category": first.category,
                "domain": first.domain,
                "attachments": members[0].attachments,
                "runs": len(members),
                "score": _mean(scores),
                "bonus": _mean([float(m.score.bonus) for m in members]),
                "penalty": _mean([float(m.score.penalty) for m in members]),
                "max_points": first.max_points,
                "errored": sum(m.score.errored for m in members),
                "unscored": sum(m.score.score is None for m in members),
                "rules": sum(m.intents[1] for m in members),
                "proc": _pooled([m.intents for m in members]),
                "user_turns": mean(m.user_turns for m in members),
                "questions": mean(m.questions for m in members),
            }
        )
    for model, rows in sorted(group_by(tables.tasks, lambda row: row["model"]).items()):
        scored = [r for r in rows if r["score"] is not None]
        members = [r for r in runs if r.run.model == model]
        tables.models.append(
            {
                "model": model,
                "tasks": len(rows),
                "score": _mean([r["score"] for r in scored]),
                **{c: _mean([r["score"] for r in scored if r["category"] == c]) for c in suites.AGENTIF_CATEGORIES},
                **{d: _mean([r["score"] for r in scored if r["domain"] == d]) for d in suites.AGENTIF_DOMAINS},
                "with_attachments": _mean([r["score"] for r in scored if r["attachments"]]),
                "without_attachments": _mean([r["score"] for r in scored if not r["attachments"]]),
                "neg_const": _avoided([m.score for m in members if m.score.score is not None]),
                "proc": _pooled([m.intents for m in members]),
                "user_turns": _mean([float(m.user_turns) for m in members]),
                "questions": _mean([float(m.questions) for m in members]),
                "errored": sum(r["errored"] for r in rows),
                "unscored": sum(r["unscored"] for r in rows),
            }
        )
        tables.items += _item_rows(model, members)
    return tables


def _pooled(intents: list[tuple[int, int]]) -> float | None:
    proactive, total = sum(i[0] for i in intents), sum(i[1] for i in intents)
    return proactive / total if total else None


def _avoided(scores: list[TaskScore]) -> float | None:
    """The share of penalty points not triggered (the paper's negative-constraint score); None without penalty items."""
    possible = sum(i.points for s in scores for i in s.items if i.polarity == "penalty")
    return 1 - sum(s.penalty for s in scores) / possible if possible else None


def _item_rows(model: str, runs: list[AgentIFRun]) -> list[dict[str, Any]]:
    """Per item category: bonus points earned / possible and penalty points triggered, summed over the scored runs."""
    rows = []
    for category in suites.AGENTIF_ITEM_CATEGORIES:
        items = [i for r in runs if r.score.score is not None for i in r.score.items if i.category == category]
        possible = sum(i.points for i in items if i.polarity == "bonus")
        rows.append(
            {
                "model": model,
                "item_category": category,
                "bonus_possible": possible,
                "bonus_earned": sum(i.earned for i in items),
                "bonus_share": sum(i.earned for i in items) / possible if possible else None,
                "penalty_items": sum(i.polarity == "penalty" for i in items),
                "penalty_points": sum(i.lost for i in items),
                "withheld": sum(i.withheld for i in items),
            }
        )
    return rows
