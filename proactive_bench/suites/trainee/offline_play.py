"""Play a scenario's oracle or a baseline straight through the tools, offline, and score it (``pbench validate``, tests).

Runs on a real temporary workspace and app database with the rules
colleagues and the virtual clock, through a real :class:`~proactive_bench.env.ToolBox`;
no model, no session graph. Modes (the baselines of docs/metrics.md, "Trainee"):

- ``reference``: the oracle; it reads the clues (asks each holder its targeted question) and scores 1.0;
- ``passive``: does only what needs no clue and never asks;
- ``guess``: never asks; where a step needs a clue it acts on the template's plausible guess;
- ``canvass`` (adversarial): sends every colleague one laundry list holding every targeted question of the day
  (padded past the survey limit), then guesses; it must obtain no clue;
- ``keywords`` (adversarial): sends every colleague the same four keyword questions (:data:`KEYWORD_QUESTIONS`: budget
  or cost, code, policy or threshold, date or deadline, how many), then guesses; it must obtain no more than ``canvass``.

In runs, the same baselines are the agents ``scripted:reference``, ``scripted:passive``, ``scripted:guess`` and
``scripted:canvass`` (``scaffolds/scripted.py``, replaying the session's reference and its guesses). Each day's
files appear when the day starts, as in a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from proactive_bench.data_model import Evidence
from proactive_bench.dataset import Session, evaluate, start_session, timed_files_dir, timed_rows_dir
from proactive_bench.env import (
    AppStore,
    ClockRates,
    Memory,
    SteadyWorkspace,
    ToolBox,
    ToolEnv,
    ToolSpec,
    VirtualClock,
    Workspace,
    resolve_tool_names,
    scratch_directory,
)
from proactive_bench.suites.trainee import checkers as _checkers  # noqa: F401  (adds the trainee checkers the checklists name)
from proactive_bench.suites.trainee.colleagues import RulesColleagues, rules_colleagues
from proactive_bench.suites.trainee.compose import Scenario
from proactive_bench.suites.trainee.day_plan import DAY_TOOLS, PlannedStep, oracle_steps
from proactive_bench.suites.trainee.figures import DayFigures, day_figures, no_python
from proactive_bench.suites.trainee.loading import WEB, TraineeSettings, day_session, materialize

Mode = Literal["reference", "passive", "guess", "canvass", "keywords"]
MODES: tuple[str, ...] = ("reference", "passive", "guess", "canvass", "keywords")
CANVASS_PADDING = (
    "What is the approval policy threshold?",
    "What is the meeting check-in code?",
    "Where is the shared folder password?",
    "What is the event budget limit?",
    "Which report format do you expect?",
)
"""Workplace questions a canvassing agent adds so that its list is long whatever the scenario."""
KEYWORD_QUESTIONS = (
    "What is the budget or cost?",
    "What is the code, policy or threshold?",
    "What is the date or deadline?",
    "How many people or items?",
)
"""Four keyword questions, each admissible alone and within the survey limit together: the same message to every colleague,
whatever the scenario (a fishing net of the kinds of fact a task withholds, naming none of them)."""


def laundry_list(scenario: Scenario, day: int) -> str:
    """One message holding every targeted question of the day's clues, padded with workplace questions (a survey)."""
    questions = [c.question for t in scenario.days[day - 1].tasks for c in t.draft.clues if not c.in_file]
    return " ".join([*questions, *CANVASS_PADDING])


@dataclass(frozen=True)
class PlayedDay:
    verdicts: dict[str, bool]
    figures: DayFigures
    calls: int
    failed: tuple[str, ...] = ()
    """The day's tool calls that failed, as ``tool: error`` (the oracle's must all succeed)."""


def _steps(steps: list[PlannedStep], mode: str) -> list[tuple[str, dict]]:
    chosen: list[tuple[str, dict]] = []
    for step in steps:
        if step.asks is not None and mode != "reference":
            continue
        if step.needs and mode != "reference":
            if mode == "passive" or step.guess is None:
                continue
            chosen.append((step.tool, step.guess))
            continue
        chosen.append((step.tool, step.args))
    return chosen


def play(scenario: Scenario, mode: str, rates: ClockRates = ClockRates(), hints: str = "none") -> list[PlayedDay]:
    """Every day of the scenario played in ``mode``; the checklist verdicts and figures of each."""
    return play_modes(scenario, (mode,), rates, hints)[mode]


def play_modes(
    scenario: Scenario, modes: tuple[str, ...], rates: ClockRates = ClockRates(), hints: str = "none"
) -> dict[str, list[PlayedDay]]:
    """Every day of the scenario played in each of ``modes``, each mode on its own workspace and app database: the
    scenario's folder, its day sessions and the oracle's timeline are made once, and every mode starts day 1 from the
    same seeded app database (copied in) and its snapshot; the day's tools are resolved and the colleagues built once."""
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {unknown[0]!r}")
    settings = TraineeSettings(days=len(scenario.days), hints=hints, rates=rates)
    with scratch_directory("pbench-trainee-play-") as tmp:  # a throwaway world, in memory where possible
        folder = Path(tmp)
        materialize(scenario, hints, folder)
        plan = _Plan(
            folder,
            [day_session(scenario, day.day, settings) for day in scenario.days],
            [oracle_steps(scenario, day, rates) for day in scenario.days],
            resolve_tool_names(DAY_TOOLS),
            rules_colleagues(scenario),
        )
        return {mode: _play(scenario, mode, rates, plan, folder / "runs" / mode) for mode in modes}


@dataclass
class _Plan:
    """What every mode of one scenario shares: its folder, its day sessions, the oracle's steps of each day, the day's
    tools, the colleagues (they keep no state: a thread is read from each mode's own apps), and the apps' state when day 1
    starts (taken by the first mode played)."""

    folder: Path
    sessions: list[Session]
    steps: list[list[PlannedStep]]
    tools: list[ToolSpec]
    colleagues: RulesColleagues
    first_start: dict[str, list[dict[str, Any]]] | None = None


def _play(scenario: Scenario, mode: str, rates: ClockRates, plan: _Plan, root: Path) -> list[PlayedDay]:
    """One mode's days: day 1 starts from the seeded image of its timed rows (as :func:`start_session` seeds them)."""
    folder = plan.folder
    apps = AppStore.seeded(timed_rows_dir(folder, plan.sessions[0].id))
    workspace = Workspace(root / "run")  # each day's files appear when it starts
    env = ToolEnv(workspace, Memory(), apps, web_root=folder / WEB, colleagues=plan.colleagues, clock=VirtualClock(apps, rates))
    played = []
    for day, session, steps in zip(scenario.days, plan.sessions, plan.steps, strict=True):
        if day.day == 1:  # its rows are in the seeded image: the clock moves and the files appear
            assert session.now is not None  # a day session starts at the day's start
            apps.set_clock(session.now)
            workspace.place(timed_files_dir(folder, session.id))
            if plan.first_start is None:
                plan.first_start = apps.snapshot()
            at_start = plan.first_start
        else:
            start_session(apps, workspace, folder, session)
            at_start = apps.snapshot()
        box = ToolBox(env, list(plan.tools))
        if mode in ("canvass", "keywords"):
            text = laundry_list(scenario, day.day) if mode == "canvass" else " ".join(KEYWORD_QUESTIONS)
            for npc in day.npcs:
                box.call("chat__send_message", {"to": npc.handle, "text": text})
        for tool, args in _steps(steps, mode):
            box.call(tool, args)
        seen = SteadyWorkspace(workspace)  # the day's end, walked once for its whole checklist
        evidence = Evidence([], box.records, seen, env.memory, no_python, apps=apps, apps_at_start=at_start)
        verdicts = {item.id: evaluate(item.check, evidence) for item in session.checklist if item.check is not None}
        failed = tuple(f"{r.tool_name}: {r.result.get('error')}" for r in box.records if not r.ok)
        played.append(PlayedDay(verdicts, day_figures(day, verdicts, box.records, apps), len(box.records), failed))
    return played
