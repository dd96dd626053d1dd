"""Composing tasks into a scenario: templates drawn by seed, unique names, a timeline with arrivals, deadlines and interrupts.

A scenario ``s<seed>-n<count>`` holds ``count`` tasks per day (2..6); day 2
uses the same templates with new seeds (the paper's continual-learning
setup). One :class:`~proactive_bench.suites.trainee.template.NamePool` spans
both days, so no person, vendor or file is shared by two tasks. Flexible tasks
arrive one after another (staggered by half the previous one's work); fixed
(time-critical) tasks keep their minute and preempt then.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from datetime import date, timedelta

import proactive_bench.suites.trainee.templates  # noqa: F401  (registers the shipped templates)
from proactive_bench.suites.trainee.model import Clue, Npc, TaskDraft
from proactive_bench.suites.trainee.template import TEMPLATES, Company, NamePool, company_for, context_for

MIN_TASKS, MAX_TASKS = 2, 6
DAY_MINUTES = 8 * 60
FIRST_DAY = date(2026, 3, 2)
NAME = re.compile(r"s(?P<seed>[0-9]{1,6})-n(?P<count>[0-9])")
DAY2_SEED_OFFSET = 500
MAX_REDRAWS, REDRAW_SEED_STEP = 20, 100_000
FIXED_GAP_MINUTES = 30
"""Time-critical tasks of one day start at least this far apart (else the later one is redrawn)."""


class ScenarioNameError(ValueError):
    """A scenario name that is not ``s<seed>-n<count>`` with 2..6 tasks."""


@dataclass(frozen=True)
class Task:
    """One composed task: its key in the day (``t1``), its template and seed, its draft and its place on the timeline."""

    key: str
    template: str
    difficulty: str
    seed: int
    folder: str
    draft: TaskDraft
    arrival_minute: int

    @property
    def fixed(self) -> bool:
        return self.draft.timing.kind == "fixed"

    @property
    def start_minute(self) -> int:
        """When the task is announced: its fixed time for a time-critical task (listed in the opening too), else its arrival."""
        return self.draft.timing.at_minute if self.draft.timing.at_minute is not None else self.arrival_minute

    @property
    def deadline_minute(self) -> int:
        due = self.draft.timing.due_minutes
        return self.arrival_minute + due if due is not None else DAY_MINUTES

    def clue_id(self, day: int, clue: Clue | str) -> str:
        """The scenario-wide id of one of the task's clues (``d1.t2.k1``)."""
        return f"d{day}.{self.key}.{clue if isinstance(clue, str) else clue.id}"


@dataclass(frozen=True)
class ScenarioDay:
    day: int
    company: Company
    tasks: tuple[Task, ...]

    @property
    def npcs(self) -> list[Npc]:
        """The day's colleagues, each once (a shared colleague is declared by every task that reaches them)."""
        unique: dict[str, Npc] = {}
        for npc in (npc for task in self.tasks for npc in task.draft.npcs):
            unique.setdefault(npc.handle, npc)
        return list(unique.values())

    def minute(self, minute: int) -> str:
        return (self.company.day_start + timedelta(minutes=minute)).strftime("%H:%M")


@dataclass(frozen=True)
class Scenario:
    name: str
    seed: int
    count: int
    days: tuple[ScenarioDay, ...]
    password: str
    """The intern's e-mail password (given in the opening)."""


def parse_name(name: str) -> tuple[int, int]:
    """``s7-n3`` -> (7, 3); ScenarioNameError (one line) otherwise."""
    match = NAME.fullmatch(name)
    if match is None:
        raise ScenarioNameError(f"{name!r} is not a scenario name like s7-n3 (seed 7, 3 concurrent tasks)")
    seed, count = int(match["seed"]), int(match["count"])
    if not MIN_TASKS <= count <= MAX_TASKS:
        raise ScenarioNameError(f"{name!r}: a scenario has {MIN_TASKS} to {MAX_TASKS} tasks, not {count}")
    return seed, count


def default_names(scenarios: int = 50) -> list[str]:
    """The default benchmark: seeds 1..N, task counts cycling through 2..6."""
    return [f"s{seed}-n{MIN_TASKS + (seed - 1) % (MAX_TASKS - MIN_TASKS + 1)}" for seed in range(1, scenarios + 1)]


def pick_templates(seed: int, count: int, only: list[str] | None = None) -> list[str]:
    """The scenario's templates: drawn uniformly by seed, without repeats while the library allows."""
    names = sorted(only or TEMPLATES)
    unknown = sorted(set(names) - set(TEMPLATES))
    if unknown:
        raise ScenarioNameError(f"unknown templates {unknown}; known: {', '.join(sorted(TEMPLATES))}")
    rng = random.Random(f"scenario:{seed}")
    picked: list[str] = []
    while len(picked) < count:
        pool = [n for n in names if n not in picked] or names
        picked.append(rng.choice(pool))
    return picked


def compose_scenario(name: str, days: int = 1, templates: list[str] | None = None) -> Scenario:
    """The scenario of a name (``s7-n3``) over one or two days; the same name always gives the same scenario.

    A scenario of the default template mix is composed once per process and then shared (read it, never change it;
    its models are frozen): a run composes it when it admits it (two days), loads it and reports it, and its pictures
    and office files are most of the composing. Its first day is the same whether it has one day or two (the days are
    composed in order), so one day is cut from two already composed."""
    if templates is not None:
        return _compose(name, days, templates)
    registered = tuple((n, id(t)) for n, t in TEMPLATES.items())  # a template registered later makes another mix
    key = (name, days, registered)
    if key not in _SHARED:
        both = _SHARED.get((name, 2, registered))
        _SHARED[key] = replace(both, days=both.days[:1]) if days == 1 and both is not None else _compose(name, days, None)
        if len(_SHARED) > SHARED_SCENARIOS:
            del _SHARED[next(iter(_SHARED))]  # the oldest
    return _SHARED[key]


SHARED_SCENARIOS = 128
"""How many composed scenarios of the default mix a process keeps (the default benchmark has 50, over one and two days)."""
_SHARED: dict[tuple[str, int, tuple[tuple[str, int], ...]], Scenario] = {}


def _compose(name: str, days: int, templates: list[str] | None) -> Scenario:
    seed, count = parse_name(name)
    chosen = pick_templates(seed, count, templates)
    rng = random.Random(f"scenario:{seed}:password")
    password = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(10))
    company, pool = company_for(seed, FIRST_DAY)
    composed = []
    for day in range(1, days + 1):
        today = Company(company.name, company.domain, company.intern, FIRST_DAY + timedelta(days=day - 1))
        composed.append(_compose_day(seed, day, chosen, today, pool))
    return Scenario(name, seed, count, tuple(composed), password)


def _compose_day(seed: int, day: int, chosen: list[str], company: Company, pool: NamePool) -> ScenarioDay:
    tasks: list[Task] = []
    arrival = 0
    prefix = "" if day == 1 else f"day{day}/"
    for n, template_name in enumerate(chosen, start=1):
        template = TEMPLATES[template_name]
        folder = f"{prefix}t{n}_{template_name}/"
        for attempt in range(MAX_REDRAWS):  # a time-critical task is redrawn while it clashes with another
            task_seed = seed * 1000 + (day - 1) * DAY2_SEED_OFFSET + n + attempt * REDRAW_SEED_STEP
            draft = template.instantiate(context_for(template_name, task_seed, company, pool, folder, arrival))
            if not _clashes(draft, tasks):
                break
        else:
            raise ScenarioNameError(f"s{seed}: no seed of {template_name} avoids the other time-critical tasks")
        tasks.append(Task(f"t{n}", template_name, template.difficulty, task_seed, folder, draft, arrival))
        if draft.timing.kind == "flexible":
            arrival += draft.timing.work_minutes // 2
    return ScenarioDay(day, company, tuple(tasks))


def _clashes(draft: TaskDraft, tasks: list[Task]) -> bool:
    """Whether a time-critical draft starts within FIXED_GAP_MINUTES of another time-critical task of the day."""
    at = draft.timing.at_minute
    return at is not None and any(t.fixed and abs(t.start_minute - at) < FIXED_GAP_MINUTES for t in tasks)
