"""The paper's figures for one scenario day, and the two it lacks (docs/metrics.md, "Trainee").

- **Checkpoint Score**: mean over tasks of passed / all checkpoints (paper eq. 4).
- **Success Rate**: share of tasks whose every checkpoint passed.
- **clues asked**: NPC-held clues released over chat / NPC-held clues.
- **guesses**: checkpoints that need a clue whose ``attempt`` holds although a needed
  clue was never obtained (an NPC's never released; a file clue's file never opened
  by a tool call naming its path), / checkpoints that need a clue and have an ``attempt``.
- **messages per clue**: the agent's chat messages / clues released (burden on colleagues).

Attempts are predicates over tool calls and app rows, so they can be judged
again from a stored run (its tool calls and final app snapshot).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proactive_bench.data_model import Evidence
from pydantic import BaseModel

from proactive_bench.dataset import ChecklistItem, evaluate
from proactive_bench.env import AppStore, Memory, ToolRecord, Workspace
from proactive_bench.suites.trainee.compose import ScenarioDay

CHAT_TABLE = "chat_message"


@dataclass(frozen=True)
class TaskScore:
    key: str
    template: str
    difficulty: str
    passed: int
    total: int

    @property
    def ratio(self) -> float:
        return self.passed / self.total

    @property
    def success(self) -> bool:
        return self.passed == self.total


@dataclass(frozen=True)
class DayFigures:
    tasks: tuple[TaskScore, ...]
    clues: int
    clues_asked: int
    messages: int
    guessable: int
    guesses: int

    @property
    def checkpoint_score(self) -> float:
        return sum(t.ratio for t in self.tasks) / len(self.tasks)

    @property
    def success_rate(self) -> float:
        return sum(t.success for t in self.tasks) / len(self.tasks)

    @property
    def messages_per_clue(self) -> float | None:
        return self.messages / self.clues_asked if self.clues_asked else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "checkpoint_score": self.checkpoint_score, "success_rate": self.success_rate, "clues": self.clues,
            "clues_asked": self.clues_asked, "messages": self.messages, "messages_per_clue": self.messages_per_clue,
            "guessable": self.guessable, "guesses": self.guesses,
            "tasks": [{"key": t.key, "template": t.template, "difficulty": t.difficulty, "passed": t.passed, "total": t.total} for t in self.tasks],
        }


def task_scores(day: ScenarioDay, verdicts: dict[str, bool]) -> tuple[TaskScore, ...]:
    """Each task's passed and total checkpoints (a missing verdict counts as failed)."""
    return tuple(
        TaskScore(t.key, t.template, t.difficulty, sum(verdicts.get(f"{t.key}.{c.id}", False) for c in t.draft.checkpoints), len(t.draft.checkpoints))
        for t in day.tasks
    )


def no_python(name: str) -> Any:
    """Trainee predicates name no python graders: resolving one is an error."""
    raise ValueError(f"trainee predicates take no python graders ({name})")


def day_figures(day: ScenarioDay, verdicts: dict[str, bool], records: list[ToolRecord], apps: AppStore) -> DayFigures:
    """The day's figures from its checklist verdicts, its tool calls and the apps' state at its end."""
    chat = apps.rows(CHAT_TABLE)
    clue_ids = {t.clue_id(day.day, c) for t in day.tasks for c in t.draft.clues if not c.in_file}
    released = {c for row in chat if row["direction"] == "in" for c in row.get("released") or []} & clue_ids
    sent = [row for row in chat if row["direction"] == "out" and any(row["contact"] == n.handle for n in day.npcs)]
    guessable = guesses = 0
    with tempfile.TemporaryDirectory() as scratch:
        evidence = Evidence([], records, Workspace(Path(scratch)), Memory(), no_python, apps=apps)
        for task in day.tasks:
            for checkpoint in task.draft.checkpoints:
                if not checkpoint.needs or checkpoint.attempt is None:
                    continue
                guessable += 1
                read = {str(r.call.get("path")) for r in records}
                clues = {c.id: c for c in task.draft.clues}
                missing = any(
                    clues[k].holder.removeprefix("file:") not in read if clues[k].in_file else task.clue_id(day.day, k) not in released
                    for k in checkpoint.needs
                )
                if missing and evaluate(attempt_predicate(checkpoint.attempt), evidence):
                    guesses += 1
    return DayFigures(task_scores(day, verdicts), len(clue_ids), len(released), len(sent), guessable, guesses)


def attempt_predicate(raw: dict[str, Any]) -> BaseModel:
    """A raw predicate (a checkpoint's ``attempt``) parsed as the dataset parses a rule item's check."""
    item = ChecklistItem(id="attempt", text="attempt", grader="rule", check=raw)  # type: ignore[arg-type]
    assert item.check is not None
    return item.check
