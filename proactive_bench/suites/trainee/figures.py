"""The paper's figures for one scenario day, and the two it lacks (docs/metrics.md, "Trainee").

- **Checkpoint Score**: mean over tasks of passed / all checkpoints (paper eq. 4).
- **Success Rate**: share of tasks whose every checkpoint passed.
- **clues asked**: NPC-held clues released over chat / NPC-held clues.
- **guesses**: checkpoints that need a clue whose ``attempt`` holds although a needed
  clue was never obtained (an NPC's never released; a file clue's file never read
  by a successful ``read_file``, ``xlsx_read`` or ``docx_read``; a picture's by ``view_image``), or already held before the last needed clue was
  obtained (the attempt judged on the tool calls before that release and the app rows
  sent before its minute: guessing first and asking afterwards is still guessing; a
  file's read has no minute of its own, so the rows are cut at the first chat message
  sent after the read),
  / checkpoints that need a clue and have an ``attempt``.
- **messages per clue**: the agent's chat messages / clues released (burden on colleagues).

Attempts are predicates over tool calls and app rows, so they can be judged
again from a stored run (its tool calls and final app snapshot).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from proactive_bench.data_model import Evidence
from proactive_bench.dataset import ChecklistItem, evaluate
from proactive_bench.env import AppStore, Memory, ToolRecord, Workspace, scratch_directory
from proactive_bench.suites.trainee.compose import ScenarioDay

CHAT_TABLE = "chat_message"
FILE_READERS = ("read_file", "xlsx_read", "docx_read")
"""The tools whose successful call on a clue's file reads the clue (naming its path in a failed call or a write does not)."""
IMAGE_READERS = ("view_image",)
"""The tools that read a clue drawn in a picture (its bytes read as text do not show it)."""


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
            "checkpoint_score": self.checkpoint_score,
            "success_rate": self.success_rate,
            "clues": self.clues,
            "clues_asked": self.clues_asked,
            "messages": self.messages,
            "messages_per_clue": self.messages_per_clue,
            "guessable": self.guessable,
            "guesses": self.guesses,
            "tasks": [
                {"key": t.key, "template": t.template, "difficulty": t.difficulty, "passed": t.passed, "total": t.total} for t in self.tasks
            ],
        }


def task_scores(day: ScenarioDay, verdicts: dict[str, bool]) -> tuple[TaskScore, ...]:
    """Each task's passed and total checkpoints (a missing verdict counts as failed)."""
    return tuple(
        TaskScore(
            t.key,
            t.template,
            t.difficulty,
            sum(verdicts.get(f"{t.key}.{c.id}", False) for c in t.draft.checkpoints),
            len(t.draft.checkpoints),
        )
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
    obtained = obtained_at(day, records, chat)
    with scratch_directory("pbench-trainee-figures-") as scratch:  # in memory where possible
        workspace = Workspace(Path(scratch))
        for task in day.tasks:
            for checkpoint in task.draft.checkpoints:
                if not checkpoint.needs or checkpoint.attempt is None:
                    continue
                guessable += 1
                points = [obtained.get(task.clue_id(day.day, k)) for k in checkpoint.needs]
                if any(p is None for p in points):  # a needed clue never obtained: any attempt is a guess
                    before = Evidence([], records, workspace, Memory(), no_python, apps=apps)
                else:  # the attempt as it stood before the last needed clue came in
                    last = max((p for p in points if p is not None), key=lambda p: p.seq)
                    minute = last.minute or first_sent_minute(records, last.seq)
                    before = Evidence(
                        [],
                        [r for r in records if r.seq < last.seq],
                        workspace,
                        Memory(),
                        no_python,
                        apps=apps_before(apps, minute) if minute else apps,
                    )
                guesses += evaluate(attempt_predicate(checkpoint.attempt), before)
    return DayFigures(task_scores(day, verdicts), len(clue_ids), len(released), len(sent), guessable, guesses)


@dataclass(frozen=True)
class Obtained:
    """When a clue came in: the tool call that brought it (its ``seq``) and, for a chat reply, its minute (``YYYY-MM-DDTHH:MM``)."""

    seq: int
    minute: str | None


def obtained_at(day: ScenarioDay, records: list[ToolRecord], chat: list[dict[str, Any]]) -> dict[str, Obtained]:
    """Each clue of the day the agent obtained: an NPC's by the chat call whose reply released it, a file's by the first call naming its path."""
    out: dict[str, Obtained] = {}
    for task in day.tasks:
        for clue in task.draft.clues:
            cid = task.clue_id(day.day, clue)
            if clue.in_file:
                path = clue.holder.removeprefix("file:")
                readers = IMAGE_READERS if clue.in_image else FILE_READERS
                seq = next((r.seq for r in records if r.ok and r.tool_name in readers and str(r.call.get("path")) == path), None)
                found = Obtained(seq, None) if seq is not None else None
            else:
                row = next((r for r in chat if r["direction"] == "in" and cid in (r.get("released") or [])), None)
                found = _release_call(records, row) if row is not None else None
            if found is not None:
                out[cid] = found
    return out


def _release_call(records: list[ToolRecord], row: dict[str, Any]) -> Obtained | None:
    """The chat call whose reply is ``row`` (same colleague, minute and text)."""
    minute = str(row["sent_at"])[:16]
    for r in records:
        response = r.result.get("response") if r.ok and r.tool_name == "chat__send_message" else None
        if (
            isinstance(response, dict)
            and str(r.call.get("to", "")).strip().lower() == row["contact"]
            and response.get("at") == minute
            and response.get("reply") == row["text"]
        ):
            return Obtained(r.seq, minute)
    return None


def first_sent_minute(records: list[ToolRecord], seq: int) -> str | None:
    """The minute of the first chat message sent by the call ``seq`` or a later one: where the rows sent after a file
    clue was read begin (a read's own minute is not recorded; the clock moves on with every call). ``None`` when no chat
    message was sent after it, so every chat row came before the read."""
    return next(
        (
            str(r.result["response"]["at"])
            for r in records
            if r.seq >= seq
            and r.ok
            and r.tool_name == "chat__send_message"
            and isinstance(r.result.get("response"), dict)
            and "at" in r.result["response"]
        ),
        None,
    )


def apps_before(apps: AppStore, minute: str) -> AppStore:
    """The apps without the rows sent at or after ``minute`` (mail, chat): what had been sent before it."""
    return _SentBefore(apps, minute)


class _SentBefore(AppStore):
    """A read-only view of the apps without the rows sent at or after a minute: it filters the apps' own rows as they are
    read, instead of copying every table into a database of its own (most of a played day's figures went into such
    copies). An attempt's predicates and checkers read app rows only (:meth:`AppStore.rows`); the view has no
    database, so it has nothing to write to."""

    def __init__(self, apps: AppStore, minute: str) -> None:  # not AppStore's: no database opened
        self.path, self.apps, self.minute = None, apps, minute

    def __repr__(self) -> str:
        return f"_SentBefore({self.apps!r}, {self.minute!r})"

    def rows(self, table_name: str) -> list[dict[str, Any]]:
        return [r for r in self.apps.rows(table_name) if not ("sent_at" in r and str(r["sent_at"])[:16] >= self.minute)]

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        return {table: kept for table in self.apps.snapshot() if (kept := self.rows(table))}


def attempt_predicate(raw: dict[str, Any]) -> BaseModel:
    """A raw predicate (a checkpoint's ``attempt``) parsed as the dataset parses a rule item's check."""
    item = ChecklistItem(id="attempt", text="attempt", grader="rule", check=raw)  # type: ignore[arg-type]  # pydantic parses the mapping into a predicate
    assert item.check is not None
    return item.check
