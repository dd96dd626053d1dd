"""Checks that an odyssey task can be solved from its history and does not give the history away.

Each detail's ``cue`` must match the history (the fact is there to find) and
must not match the intent (the intent alone does not leak it); the history's
length (distractors included) should be 1,000-8,000 tokens; every detail should be used by a reference
step. Schema-level rules (known checkers and valid arguments, >= 5 days in date
order, 1-3 known apps) are enforced by the model itself.
"""

from __future__ import annotations

from proactive_bench.dataset import Problem
from proactive_bench.suites.odyssey.memory_tokens import count_tokens
from proactive_bench.suites.odyssey.task import OdysseyTask

HISTORY_TOKENS = (1_000, 8_000)


def task_problems(task: OdysseyTask, rel: str) -> list[Problem]:
    """Solvability, leaks and shape warnings of one task (``rel``: its file, for the messages)."""
    history = task.history_text()
    problems = []
    for n, detail in enumerate(task.details):
        if not detail.found_in(history):
            problems.append(
                Problem(
                    rel,
                    f"details[{n}].cue",
                    f"{detail.cue!r} matches nothing in the history: detail {detail.id!r} cannot be found (unsolvable)",
                )
            )
        if detail.found_in(task.intent):
            problems.append(
                Problem(
                    rel, f"details[{n}].cue", f"{detail.cue!r} matches the intent: detail {detail.id!r} leaks into the task instruction"
                )
            )
    used = {d for step in task.reference for d in step.details}
    for n, detail in enumerate(task.details):
        if detail.id not in used:
            problems.append(Problem(rel, f"details[{n}].id", f"detail {detail.id!r} is used by no reference step", "warning"))
    tokens = count_tokens(history)
    low, high = HISTORY_TOKENS
    if not low <= tokens <= high:
        problems.append(Problem(rel, "history", f"{tokens} tokens; a history should hold {low:,}-{high:,}", "warning"))
    return problems
