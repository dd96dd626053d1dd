"""Trainee tables: Checkpoint Score and Success Rate overall, by concurrent tasks, by difficulty, by day and by hints (docs/metrics.md, "Trainee").

Each run is one scenario; each of its sessions one working day. A day's
figures come from its checklist verdicts (``t<N>.c<M>``), its stored tool
calls and its final app snapshot (clues released over chat, the agent's chat
messages, attempts made without a needed clue). An errored or unplayed day
counts every checkpoint as missed. Steps are the agent's decisions of the day as the run recorded them
(``SessionRun.steps``: model calls for a model agent, actions and replies for a scripted one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import mean
from typing import TYPE_CHECKING, Any

from proactive_bench.episode import run_spec
from proactive_bench.reporting.row_tables import Rows, RowTables, group_by, no_rows
from proactive_bench.scoring import EpisodeResult
from proactive_bench.store import ReadQueries, RunLike, StoredToolCall

if TYPE_CHECKING:
    from proactive_bench.suites.trainee import DayFigures

SUITE = "trainee"


@dataclass(frozen=True)
class TraineeDay:
    """One day of one run, as the tables see it."""

    model: str
    scenario: str
    count: int
    day: int
    hints: str
    figures: DayFigures
    steps: int
    tool_calls: int


def is_trainee_run(run: RunLike) -> bool:
    return run_spec(run).suite == SUITE


def trainee_days(store: ReadQueries, runs: Sequence[tuple[RunLike, EpisodeResult]]) -> list[TraineeDay]:
    """Every played day of the given trainee runs, with its figures."""
    if not runs:
        return []
    from proactive_bench.env import AppStore, ToolRecord  # DEFERRED: the tools, and the trainee suite, load for its runs only
    from proactive_bench.suites.trainee import compose_scenario, day_figures

    out = []
    for run, result in runs:
        spec = run_spec(run)
        scenario = compose_scenario(spec.persona, spec.suite_settings.get("days") or 1)
        stored = {s.session_id: s for s in store.session_runs(run.id)}
        graded = {s.session_id: s for s in result.sessions}
        for day in scenario.days:
            sid = f"day{day.day}"
            session, row = graded.get(sid), stored.get(sid)
            verdicts = {g.item_id: g.status == "pass" for g in session.grades} if session is not None and session.status != "error" else {}
            apps, records = AppStore(), []
            if row is not None and row.id is not None:
                apps.restore(store.snapshot(row.id, "apps") or {})
                records = [ToolRecord(r.tool_name, r.call, r.result, r.ok, r.turn, r.seq) for r in store.rows(StoredToolCall, row.id)]
            out.append(
                TraineeDay(
                    run.model,
                    spec.persona,
                    scenario.count,
                    day.day,
                    spec.suite_settings.get("hints") or "none",
                    day_figures(day, verdicts, records, apps),
                    row.steps if row is not None else 0,
                    len(records),
                )
            )
    return out


@dataclass
class TraineeTables(RowTables):
    overall: Rows = no_rows()
    by_tasks: Rows = no_rows()
    by_difficulty: Rows = no_rows()
    by_day: Rows = no_rows()
    by_hints: Rows = no_rows()


def _scores(days: list[TraineeDay]) -> dict[str, Any]:
    return {
        "scenario_days": len(days),
        "checkpoint_score": mean(d.figures.checkpoint_score for d in days),
        "success_rate": mean(d.figures.success_rate for d in days),
    }


def trainee_tables(days: list[TraineeDay]) -> TraineeTables:
    """The paper's tables 2-5 (overall, by task count, by difficulty, day 1 vs day 2) plus hints and the asking/guessing figures."""
    tables = TraineeTables()
    for model, members in sorted(group_by(days, lambda d: d.model).items()):
        clues = sum(d.figures.clues for d in members)
        asked = sum(d.figures.clues_asked for d in members)
        guessable = sum(d.figures.guessable for d in members)
        tables.overall.append(
            {
                "model": model,
                **_scores(members),
                "avg_steps": mean(d.steps for d in members),
                "avg_tool_calls": mean(d.tool_calls for d in members),
                "clues_asked": asked / clues if clues else None,
                "guesses": sum(d.figures.guesses for d in members) / guessable if guessable else None,
                "messages": mean(d.figures.messages for d in members),
                "messages_per_clue": sum(d.figures.messages for d in members) / asked if asked else None,
            }
        )
        for count, same in sorted(group_by(members, lambda d: d.count).items()):
            tables.by_tasks.append({"model": model, "tasks": count, **_scores(same)})
        for difficulty in ("easy", "hard"):
            tasks = [t for d in members for t in d.figures.tasks if t.difficulty == difficulty]
            if tasks:
                tables.by_difficulty.append(
                    {
                        "model": model,
                        "difficulty": difficulty,
                        "tasks": len(tasks),
                        "checkpoint_score": mean(t.ratio for t in tasks),
                        "success_rate": mean(t.success for t in tasks),
                    }
                )
        if any(d.day == 2 for d in members):
            first = [d for d in members if d.day == 1 and any(e.day == 2 and e.scenario == d.scenario for e in members)]
            second = [d for d in members if d.day == 2]
            one, two = _scores(first)["checkpoint_score"], _scores(second)["checkpoint_score"]
            tables.by_day.append({"model": model, "day1": one, "day2": two, "gain": two - one, "scenarios": len(second)})
        for hints, same in sorted(group_by(members, lambda d: d.hints).items()):
            tables.by_hints.append({"model": model, "hints": hints, **_scores(same)})
    return tables
