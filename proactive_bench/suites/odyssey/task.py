"""The format of one OdysseyBench-style task (``<root>/odyssey/<task id>/task.yaml``), as pydantic models.

A task is a short intent, the multi-day dialogue history it depends on, the
details the history holds, the apps it uses, named checkers that must all
pass, and a reference solution. ``pbench schema`` prints this model beside the
persona-episode format. See docs/suites.md ("Odyssey").
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import date, datetime
from itertools import pairwise
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from proactive_bench.dataset import ID_PATTERN, check_one_action, check_regex
from proactive_bench.suites.odyssey.checkers import parse_checker_args
from proactive_bench.suites.odyssey.distractors import NEO_DAYS, Split, lengthen
from proactive_bench.suites.odyssey.memory_docs import HistoryDay, history_days, render_history
from proactive_bench.suites.task_files import StrictModel as _Model, TaskUser

APPS = ("documents", "spreadsheets", "pdf", "email", "calendar")
"""The applications a task may use (1-3 of them)."""
App = Literal["documents", "spreadsheets", "pdf", "email", "calendar"]
MIN_HISTORY_DAYS = 5


class Turn(_Model):
    """One utterance of a day's conversation."""

    role: Literal["user", "assistant"]
    text: str = Field(min_length=1)


class Day(_Model):
    """One dated conversation of the history."""

    date: date
    turns: list[Turn] = Field(min_length=1)


class Detail(_Model):
    """A fact from the history the task needs; ``cue`` finds it there and must not find it in the intent."""

    id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1)
    cue: str = Field(min_length=1, description="A regex (Python re, case-insensitive) that matches the history and not the intent.")

    _regex = field_validator("cue")(check_regex)

    def found_in(self, text: str) -> bool:
        """Whether the cue matches ``text`` (case-insensitive)."""
        return re.search(self.cue, text, re.IGNORECASE) is not None


class Distractors(_Model):
    """How the history is lengthened with authored small talk and unrelated questions (``distractors.py``)."""

    seed: int = Field(ge=0, description="Picks the exchanges and their places; the same seed gives the same history.")


class Criterion(_Model):
    """One named checker with its arguments; all of a task's criteria must pass."""

    checker: str
    args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("args", mode="before")
    @classmethod
    def _yaml_on_key(cls, value: Any) -> Any:
        """YAML 1.1 reads a bare ``on:`` key (calendar_no_overlap's) as ``true``: take it back as ``on``."""
        if isinstance(value, dict) and True in value and "on" not in value:
            value = {("on" if key is True else key): v for key, v in value.items()}
        return value

    @model_validator(mode="after")
    def _known_checker_valid_args(self) -> Criterion:
        parse_checker_args(self.checker, self.args)
        return self


class TaskStep(_Model):
    """A step of the reference solution: a tool call or something said, and the details it draws from the history."""

    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    say: str | None = None
    details: list[str] = Field(default_factory=list, description="Detail ids the step draws from the history; empty: the intent alone.")

    @model_validator(mode="after")
    def _one_action(self) -> TaskStep:
        check_one_action(self.tool, self.say, self.args)
        return self


class OdysseyTask(_Model):
    """One history-grounded office workflow (OdysseyBench-style): intent, history, details, criteria, reference."""

    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=1)
    apps: list[App] = Field(min_length=1, max_length=3, description="The applications the task uses, 1-3 of: " + ", ".join(APPS) + ".")
    user: TaskUser
    now: datetime = Field(description="The task's simulated time (the apps' clock).")
    intent: str = Field(min_length=1, description="The short instruction the agent gets.")
    history: list[Day] = Field(min_length=MIN_HISTORY_DAYS, description=f">= {MIN_HISTORY_DAYS} dated conversations, in date order.")
    split: Split = Field(
        default="plus",
        description="OdysseyBench's split the task follows: plus (many sessions, distractor sessions between the task's) "
        f"or neo (exactly {NEO_DAYS} long sessions, distractor exchanges inside them).",
    )
    distractors: Distractors | None = Field(default=None, description="Lengthen the history with distractors (none: as written).")
    details: list[Detail] = Field(min_length=1)
    criteria: list[Criterion] = Field(min_length=1)
    reference: list[TaskStep] = Field(min_length=1)
    tools: list[str] = Field(default_factory=list, description="Extra tool names or groups beyond the defaults of the task's apps.")

    @model_validator(mode="after")
    def _consistent(self) -> OdysseyTask:
        if problems := self.link_problems():
            raise ValueError("; ".join(f"{field}: {reason}" for field, reason in problems))
        return self

    def link_problems(self, cut: Collection[str] = ()) -> list[tuple[str, str]]:
        """(field, reason) of every rule across fields the task breaks, all of them: apps listed twice, days out of
        order or after ``now``, repeated or unknown detail ids (``cut``: ids of details left out for their own errors)."""
        out = []
        if len(set(self.apps)) != len(self.apps):
            out.append(("apps", f"listed twice: {sorted({a for a in self.apps if self.apps.count(a) > 1})}"))
        days = [d.date for d in self.history]
        for n, (earlier, later) in enumerate(pairwise(days), start=1):
            if later <= earlier:
                out.append((f"history[{n}].date", f"{later} does not come after {earlier} (days go in date order, once each)"))
        if days and days[-1] > self.now.date():
            out.append(("history", f"the last day {days[-1]} is after the task's 'now' {self.now.date()}"))
        if self.split == "neo" and len(self.history) != NEO_DAYS:
            out.append(("history", f"a neo task has exactly {NEO_DAYS} days (sessions), this one {len(self.history)}"))
        ids = [d.id for d in self.details]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            out.append(("details", f"duplicate ids {dupes}"))
        for n, step in enumerate(self.reference):
            unknown = sorted(set(step.details) - set(ids) - set(cut))
            if unknown:
                out.append((f"reference[{n}].details", f"unknown detail ids {unknown}"))
        return out

    @property
    def group(self) -> int:
        """The task's application count: its 1/2/3-app group."""
        return len(self.apps)

    def days(self) -> list[HistoryDay]:
        """The history the agent is given: the authored days, lengthened with distractors when the task names them."""
        days = history_days(self.history)
        if self.distractors is None:
            return days
        return lengthen(days, self.split, self.distractors.seed, self.id, [d.cue for d in self.details], self.now.date())

    def history_text(self) -> str:
        """The whole history as the agent reads it under long-context (what a detail's cue is searched in)."""
        return render_history(self.days())
