"""HomerAgents-Neo-style generation (OdysseyBench section 3.1.2): a new task and its 5-day history, from an environment.

Where ``generation.py`` (HomerAgents+) writes a history for a task someone has already written, this makes the
task itself from what an environment holds, in the paper's four phases:

1. **Planning**: the orchestrator model reads an overview of the environment and plans what each app's surfer
   looks for, what the task should exercise, and how the days unfold.
2. **Exploration**: one surfer per app reads that app's part of the environment (its files in ``workspace/``,
   its rows in ``apps/``) and notes what it found: the context the task is grounded in. pbench's surfers read
   the files themselves (no model), so the context is exactly what the agent will find.
3. **Task generation**: the task generator writes the task (description, the intent without the details,
   1-5 subtasks, the ground-truth memory as details with cues, criteria of pbench's named checkers, reference
   steps); checked mechanically (cues not in the intent, known detail ids, tools the apps offer) and rewritten
   with the problems, at most ``MAX_ROUNDS`` times.
4. **Dialogue generation**: the memory is spread over the :data:`NEO_DAYS` days in order (each detail on one
   day), and the dialogue generator writes each day with its memory pieces, given the days before; the whole
   history then goes through the generator-verifier rounds of ``generation.py`` (its verifier, its mechanical
   checks, plus: exactly 5 days, each detail stated on its day).

The task is written with ``split: neo`` and ``distractors`` (its days lengthened at load time, ``distractors.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from proactive_bench.env import DocumentError, read_as_text, resolve_tool_names
from proactive_bench.llm import StructuredCaller, StructuredOutputError, load_prompt
from proactive_bench.suites.generation_rounds import GenerationInputError, RoundSteps, Status, run_rounds
from proactive_bench.suites.odyssey.checkers import CHECKERS
from proactive_bench.suites.odyssey.distractors import NEO_DAYS
from proactive_bench.suites.odyssey.generation import (
    MAX_ROUNDS,
    PROMPTS,
    VERIFIER_PROMPT,
    GeneratedHistory,
    Outcome,
    Verdict,
    mechanical_problems,
)
from proactive_bench.suites.odyssey.generation_seed import SeedTask
from proactive_bench.suites.odyssey.loading import APP_TOOLS, BASE_TOOLS
from proactive_bench.suites.odyssey.memory_docs import history_days, render_history
from proactive_bench.suites.odyssey.memory_tokens import TokenCounter, default_token_counter
from proactive_bench.suites.odyssey.task import APPS, Criterion, Day, Detail, TaskStep, Turn
from proactive_bench.suites.task_files import TaskUser
from proactive_bench.yaml_files import YamlFileError, read_yaml_file

PLANNER_PROMPT = load_prompt(PROMPTS, "neo_planner.v1")
TASK_PROMPT = load_prompt(PROMPTS, "neo_task_generator.v1")
DAY_PROMPT = load_prompt(PROMPTS, "neo_day_generator.v1")
ENVIRONMENT_FILE = "environment.yaml"
SURF_CHARS = 3_000
"""Characters of one file or app table a surfer notes (the rest is cut, with a marker)."""
APP_FILES = {"documents": (".docx", ".md", ".txt"), "spreadsheets": (".xlsx", ".csv"), "pdf": (".pdf",)}
APP_ROWS = {"email": "gmail", "calendar": "calendar"}
"""The apps whose state is app rows: the ``apps/*.yaml`` files whose name starts with this."""


class Environment(BaseModel):
    """``environment.yaml``: who the task is for, when, and which apps it uses; ``workspace/`` and ``apps/`` beside it."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    user: TaskUser
    now: datetime
    apps: list[str] = Field(min_length=1, max_length=3)


@dataclass(frozen=True)
class SurfNote:
    """What one surfer read: the app, the file or table, its text (cut at :data:`SURF_CHARS`)."""

    app: str
    source: str
    text: str


class NeoPlan(BaseModel):
    """The orchestrator's plan (phase 1)."""

    surf: list[str] = Field(min_length=1, description="What the surfers should look for, one line per app.")
    task: str = Field(min_length=1, description="What the task should exercise across the apps.")
    dialogue: str = Field(min_length=1, description="How the five days of conversation unfold.")


class NeoTaskDraft(BaseModel):
    """The task generator's answer (phase 3): the task without its history."""

    title: str = Field(min_length=1)
    description: str = Field(min_length=1, description="The whole task with every detail (hidden from the agent).")
    intent: str = Field(min_length=1, description="The short instruction the agent gets, without the details.")
    subtasks: list[str] = Field(min_length=1, max_length=5)
    details: list[Detail] = Field(min_length=2, description="The ground-truth memory: facts and action items the history states.")
    criteria: list[Criterion] = Field(min_length=1)
    reference: list[TaskStep] = Field(min_length=1)


class NeoDay(BaseModel):
    """The dialogue generator's answer for one day (phase 4)."""

    turns: list[Turn] = Field(min_length=4)


@dataclass
class NeoOutcome:
    """What Neo generation ended with: the plan, the surfers' notes, the task rounds' problems, the dialogue rounds."""

    status: Status
    environment: Environment
    plan: NeoPlan | None = None
    notes: list[SurfNote] = field(default_factory=list)
    task: NeoTaskDraft | None = None
    task_rounds: list[list[str]] = field(default_factory=list)
    dialogue: Outcome | None = None
    error: str | None = None


def load_environment(folder: Path) -> Environment:
    """The environment in ``folder`` (its ``environment.yaml``), or a one-line :class:`GenerationInputError`."""
    path = folder / ENVIRONMENT_FILE
    if not path.is_file():
        raise GenerationInputError(f"{folder}: no {ENVIRONMENT_FILE} (id, user, now, apps) in the environment folder")
    try:
        data = read_yaml_file(path)
        env = Environment.model_validate(data)
    except YamlFileError as exc:
        raise GenerationInputError(str(exc)) from None
    except ValidationError as exc:
        problem = exc.errors()[0]
        raise GenerationInputError(f"{path}: {'.'.join(map(str, problem['loc']))}: {problem['msg']}") from None
    unknown = sorted(set(env.apps) - set(APPS))
    if unknown:
        raise GenerationInputError(f"{path}: apps: unknown {unknown}; use {', '.join(APPS)}")
    return env


def surf(folder: Path, apps: list[str]) -> list[SurfNote]:
    """Phase 2: each app's surfer reads its files of ``workspace/`` and its tables of ``apps/`` (sorted, cut)."""
    notes = []
    workspace = folder / "workspace"
    for app in apps:
        if app in APP_FILES and workspace.is_dir():
            for path in sorted(p for p in workspace.rglob("*") if p.is_file() and p.suffix.lower() in APP_FILES[app]):
                try:
                    text = read_as_text(path)
                except DocumentError as exc:
                    text = f"(unreadable: {exc})"
                notes.append(SurfNote(app, path.relative_to(workspace).as_posix(), _cut(text)))
        if app in APP_ROWS and (folder / "apps").is_dir():
            for path in sorted((folder / "apps").glob(f"{APP_ROWS[app]}*.yaml")):
                notes.append(SurfNote(app, f"apps/{path.name}", _cut(path.read_text(encoding="utf-8"))))
    return notes


def _cut(text: str) -> str:
    return text if len(text) <= SURF_CHARS else text[:SURF_CHARS] + "\n[... cut]"


def day_dates(now: datetime) -> list[date]:
    """The :data:`NEO_DAYS` weekdays before the task's day, oldest first."""
    days: list[date] = []
    day = now.date()
    while len(days) < NEO_DAYS:
        day -= timedelta(days=1)
        if day.weekday() < 5:
            days.append(day)
    return days[::-1]


def spread(details: list[Detail]) -> list[list[Detail]]:
    """The orchestrator's split of the memory over the days: in order, each detail on one day, as evenly as can be."""
    days: list[list[Detail]] = [[] for _ in range(NEO_DAYS)]
    for n, detail in enumerate(details):
        days[n * NEO_DAYS // len(details)].append(detail)
    return days


def offered_tools(apps: list[str]) -> set[str]:
    """The tool names a task of these apps offers (its apps' groups and the workspace's)."""
    groups = [*BASE_TOOLS, *(g for app in apps for g in APP_TOOLS[app])]
    return {spec.name for spec in resolve_tool_names(groups)}


def checkers_text() -> str:
    """The named checkers and their arguments, one line each, for the task generator (``?``: optional)."""
    lines = []
    for name, checker in CHECKERS.items():
        fields = [f"{key}{'' if info.is_required() else '?'}" for key, info in checker.args.model_fields.items()]
        lines.append(f"  - {name} {{{', '.join(fields)}}}: {checker.says}")
    return "\n".join(lines)


def task_problems(draft: NeoTaskDraft, apps: list[str]) -> list[str]:
    """What the drafted task breaks by rule: a cue in the intent, a detail unused or unknown, a tool the apps lack."""
    problems = [
        f"detail {d.id}: its cue /{d.cue}/ matches the intent, so the intent gives it away"
        for d in draft.details
        if d.found_in(draft.intent)
    ]
    ids = [d.id for d in draft.details]
    if len(set(ids)) != len(ids):
        problems.append(f"details: duplicate ids {sorted({i for i in ids if ids.count(i) > 1})}")
    used = {i for step in draft.reference for i in step.details}
    if used - set(ids):
        problems.append(f"reference: detail ids {sorted(used - set(ids))} are not among the details")
    problems += [f"detail {i} is used by no reference step" for i in ids if i not in used]
    offered = offered_tools(apps)
    problems += [
        f"reference: tool {s.tool!r} is not among the tools of {apps}" for s in draft.reference if s.tool and s.tool not in offered
    ]
    return problems


def seed_of(env: Environment, draft: NeoTaskDraft) -> SeedTask:
    """The drafted task as the atomic task the history rounds check against."""
    return SeedTask.model_validate(
        {
            "id": env.id,
            "title": draft.title,
            "apps": env.apps,
            "user": env.user.model_dump(),
            "now": env.now,
            "intent": draft.intent,
            "details": [d.model_dump() for d in draft.details],
            "criteria": [c.model_dump() for c in draft.criteria],
        }
    )


def neo_problems(draft: NeoTaskDraft, history: GeneratedHistory) -> list[str]:
    """Neo's own rules on a history: exactly the five days, each detail stated on the day it was given to."""
    if len(history.days) != NEO_DAYS:
        return [f"the history has {len(history.days)} days; a neo history has exactly {NEO_DAYS}"]
    problems = []
    for n, (day, pieces) in enumerate(zip(history.days, spread(draft.details), strict=True), start=1):
        text = render_history(history_days([day]))
        problems += [f"day {n}: detail {d.id} ({d.text}) is not stated on it" for d in pieces if not d.found_in(text)]
    return problems


async def generate_neo(
    folder: Path,
    generator: StructuredCaller,
    verifier: StructuredCaller,
    max_rounds: int = MAX_ROUNDS,
    counter: TokenCounter | None = None,
) -> NeoOutcome:
    """The four phases; a model that gives no valid answer ends it as ``failed``, a phase out of rounds as ``rejected``."""
    env = load_environment(folder)
    counter = counter or default_token_counter()
    outcome = NeoOutcome("rejected", env, notes=surf(folder, env.apps))
    overview = _notes_text(outcome.notes) or "(the environment is empty)"
    person = {
        "user_name": env.user.name,
        "user_role": env.user.role,
        "now": env.now.isoformat(timespec="minutes"),
        "apps": ", ".join(env.apps),
    }
    try:
        outcome.plan = (await generator.call_prompt(NeoPlan, PLANNER_PROMPT, "neo_planning", person, {"environment": overview})).value
        plan = {
            "plan_task": outcome.plan.task,
            "plan_dialogue": outcome.plan.dialogue,
            "plan_surf": "\n".join(outcome.plan.surf),
            "checkers": checkers_text(),
            "tools": ", ".join(sorted(offered_tools(env.apps))),
        }
        previous = ""
        for _ in range(max_rounds):
            draft = (
                await generator.call_prompt(
                    NeoTaskDraft, TASK_PROMPT, "neo_task", {**person, **plan}, {"environment": overview, "previous": previous}
                )
            ).value
            outcome.task = draft
            problems = task_problems(draft, env.apps)
            outcome.task_rounds.append(problems)
            if not problems:
                break
            previous = "\n## Problems of your previous task (fix them all)\n" + "\n".join(f"- {p}" for p in problems)
        else:
            outcome.error = f"no task without problems after {max_rounds} round(s)"
            return outcome
    except StructuredOutputError as exc:
        outcome.status, outcome.error = "failed", f"the generator {generator.model_name} gave no valid answer: {exc}"
        return outcome
    seed = seed_of(env, draft)
    dates = day_dates(env.now)
    pieces = spread(draft.details)

    async def write(feedback: str) -> GeneratedHistory:
        days: list[Day] = []
        for when, memory in zip(dates, pieces, strict=True):
            parts = {
                **person,
                "title": draft.title,
                "intent": draft.intent,
                "date": f"{when.isoformat()} ({when.strftime('%A')})",
                "day": str(len(days) + 1),
                "days": str(NEO_DAYS),
                "plan_dialogue": outcome.plan.dialogue if outcome.plan else "",
                "memory": "\n".join(f"- {d.id}: {d.text}" for d in memory) or "- (none: this day is small talk and follow-ups only)",
            }
            earlier = render_history(history_days(days)) or "(this is the first day)"
            day = (await generator.call_prompt(NeoDay, DAY_PROMPT, "neo_dialogue", parts, {"earlier": earlier, "feedback": feedback})).value
            days.append(Day(date=when, turns=day.turns))
        return GeneratedHistory(days=days)

    async def check(history: GeneratedHistory) -> tuple[list[str], dict[str, Any]]:
        problems, tokens = mechanical_problems(seed, history, counter)
        return problems + neo_problems(draft, history), {"tokens": tokens}

    async def judge(history: GeneratedHistory) -> Verdict:
        parts = {
            "title": draft.title,
            "intent": draft.intent,
            "apps": ", ".join(env.apps),
            "user_name": env.user.name,
            "user_role": env.user.role,
            "details": "\n".join(f"- {d.id}: {d.text}" for d in draft.details),
            "history": render_history(history.as_days()),
        }
        return (await verifier.call_prompt(Verdict, VERIFIER_PROMPT, "history_verification", parts, {})).value

    steps = RoundSteps("history", write, check, judge, "Write the days again, fixing these points.")
    outcome.dialogue = await run_rounds(steps, generator, verifier, max_rounds)
    outcome.status, outcome.error = outcome.dialogue.status, outcome.dialogue.error
    return outcome


def _notes_text(notes: list[SurfNote]) -> str:
    return "\n\n".join(f"### {note.app}: {note.source}\n{note.text}" for note in notes)


def neo_task_document(outcome: NeoOutcome) -> dict[str, Any]:
    """The approved task as a task file's fields (``split: neo``, distractors seeded), in the task format's order."""
    assert outcome.task is not None and outcome.dialogue is not None and outcome.dialogue.draft is not None
    env, draft = outcome.environment, outcome.task
    return {
        "id": env.id,
        "title": draft.title,
        "apps": env.apps,
        "user": env.user.model_dump(),
        "now": env.now,
        "intent": draft.intent,
        "history": [{"date": d.date, "turns": [{"role": t.role, "text": t.text} for t in d.turns]} for d in outcome.dialogue.draft.days],
        "split": "neo",
        "distractors": {"seed": 0},
        "details": [d.model_dump() for d in draft.details],
        "criteria": [c.model_dump() for c in draft.criteria],
        "reference": [s.model_dump(exclude_defaults=True) for s in draft.reference],
    }
