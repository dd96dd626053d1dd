"""One scenario day as pbench material: the opening message, the checklist, the app rows, the files and the oracle's timeline.

The oracle's steps are laid out on the simulated clock: the e-mail login first,
the fixed (time-critical) tasks' preparation next, then the flexible tasks in
arrival order, switching to a fixed task's block (wait until its start, act)
as soon as the next step would leave no room for the block's first step by its
start (a ``clock__wait_until`` called after its time fails). Each action costs a step
(the clock's step rate, before it) and its call (the call rate): a scripted
agent's every tool call is a step (``ToolBox.steps``). A template whose oracle
cannot meet its own deadlines or start times is refused (:class:`TimelineError`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from proactive_bench.dataset import ChecklistItem, ReferenceStep
from proactive_bench.env import ClockRates
from proactive_bench.suites.trainee.compose import Scenario, ScenarioDay, Task
from proactive_bench.suites.trainee.model import Step

DAY_TOOLS = ["workspace", "memory", "chat", "clock", "gmail", "calendar", "spreadsheets", "documents", "images", "web"]
"""The tools every scenario day offers (the simulated office; ``web``: the company's sites, ``images``: looking at pictures)."""
INTERN_ACCOUNT_ID = 1


class TimelineError(ValueError):
    """A scenario whose oracle cannot keep its deadlines or start times (a template bug)."""


@dataclass(frozen=True)
class PlannedStep:
    """One oracle step on the day's timeline, with what the baselines need to vary it."""

    task: str
    tool: str
    args: dict[str, Any]
    asks: str | None = None
    """The scenario clue id this step asks for (a question to its holder, or reading its file)."""
    needs: tuple[str, ...] = ()
    """Scenario clue ids the step uses."""
    guess: dict[str, Any] | None = None


@dataclass
class _Timeline:
    rates: ClockRates
    now: float = 0.0
    steps: list[PlannedStep] = field(default_factory=list)

    def emit(self, step: PlannedStep, deadline: int | None = None) -> None:
        """One action: a step (the clock's step rate, before it) and its tool call (the call rate, after it)."""
        self.now += self.rates.per_step_minutes
        if deadline is not None and self.now > deadline:
            raise TimelineError(
                f"task {step.task}: the oracle's {step.tool} would run at minute {self.now:.0f}, after its deadline {deadline}"
            )
        self.steps.append(step)
        self.now += self.rates.per_call_minutes


def hinted(task: Task, hints: str) -> str:
    """The task's objective with the guidance the hint setting gives."""
    parts = {
        "none": [],
        "data": [task.draft.hints.data],
        "method": [task.draft.hints.method],
        "both": [task.draft.hints.data, task.draft.hints.method],
    }[hints]
    guidance = " ".join(p for p in parts if p)
    return f"{task.draft.objective} Guidance: {guidance}" if guidance else task.draft.objective


def opening(scenario: Scenario, day: ScenarioDay, hints: str) -> str:
    """The mentor's message that opens the day (the session's trigger)."""
    intern = day.company.intern
    colleagues = "\n".join(f"- {n.handle}: {n.name}, {n.role} ({n.department})" for n in day.npcs)
    assigned = []
    for task in day.tasks:
        if task.fixed:
            assigned.append(f"- {task.key} (time-critical, at {day.minute(task.start_minute)}): {hinted(task, hints)}")
        elif task.arrival_minute == 0:
            assigned.append(f"- {task.key} (due {day.minute(task.deadline_minute)}): {hinted(task, hints)}")
    return (
        f"Welcome to {day.company.name}, {intern.name}. I'm your mentor for your internship. It is {day.company.day.isoformat()}, "
        f"{day.minute(0)}; the working day ends at {day.minute(8 * 60)}.\n"
        f"Your e-mail account is {intern.email} (password {scenario.password}; log in with gmail__login).\n"
        f"Colleagues you can reach with chat__send_message (handle: name, role, department):\n{colleagues}\n"
        f"Your tasks so far:\n" + "\n".join(assigned) + "\n"
        "More tasks may arrive during the day; they and other announcements come as [notice] lines after your tool results. "
        "clock__now tells the time. Workspace files are under the folders the tasks name. "
        "The day ends with your final reply, so finish your work first."
    )


def checklist(day: ScenarioDay) -> list[ChecklistItem]:
    """Every task's checkpoints as rule items ``t<N>.c<M>``."""
    return [
        ChecklistItem.model_validate(
            {"id": f"{t.key}.{c.id}", "text": f"{t.key} ({t.draft.title}): {c.text}", "grader": "rule", "check": c.check}
        )
        for t in day.tasks
        for c in t.draft.checkpoints
    ]


def notices(scenario: Scenario, day: ScenarioDay, hints: str) -> list[dict[str, Any]]:
    """The day's ``clock_notice`` rows: tasks that arrive later, time-critical tasks that start, deadlines that pass."""
    rows: list[dict[str, Any]] = []

    def at(minute: int) -> str:
        return (day.company.day_start + timedelta(minutes=minute)).isoformat(timespec="minutes")

    for task in day.tasks:
        if task.fixed:
            rows.append({"at": at(task.start_minute), "text": f"{task.key} starts now ({task.draft.title}): {hinted(task, hints)}"})
        elif task.arrival_minute > 0:
            rows.append(
                {
                    "at": at(task.arrival_minute),
                    "text": f"New task {task.key} (due {day.minute(task.deadline_minute)}): {hinted(task, hints)}",
                }
            )
        if task.draft.timing.due_minutes is not None:
            rows.append({"at": at(task.deadline_minute), "text": f"The deadline of {task.key} ({task.draft.title}) has passed."})
    return rows


def app_rows(scenario: Scenario, day: ScenarioDay, hints: str) -> dict[str, list[dict[str, Any]]]:
    """The day's app seed rows: the intern's mail account (day 1), colleagues, the templates' rows, the notices."""
    rows: dict[str, list[dict[str, Any]]] = {}
    if day.day == 1:
        intern = day.company.intern
        rows["gmail_account"] = [{"id": INTERN_ACCOUNT_ID, "name": intern.name, "email": intern.email, "password": scenario.password}]
    known = {n.handle for earlier in scenario.days[: day.day - 1] for n in earlier.npcs}  # a shared colleague is a contact already
    rows["chat_contact"] = [
        {"handle": n.handle, "name": n.name, "role": n.role, "department": n.department, "email": n.email}
        for n in day.npcs
        if n.handle not in known
    ]
    for task in day.tasks:
        for table, task_rows in task.draft.rows.items():
            rows.setdefault(table, []).extend(task_rows)
    rows["clock_notice"] = notices(scenario, day, hints)
    return rows


def files(day: ScenarioDay) -> dict[str, bytes | str]:
    return {path: content for task in day.tasks for path, content in task.draft.files.items()}


def pages(scenario: Scenario) -> dict[str, str]:
    """Every day's web pages by URL (the scenario's offline web: ``web_fetch`` reaches them)."""
    return {url: html for day in scenario.days for task in day.tasks for url, html in task.draft.pages.items()}


def _planned(day: ScenarioDay, task: Task, step: Step) -> PlannedStep:
    needs = tuple(task.clue_id(day.day, k) for k in step.needs)
    if step.ask is not None:
        clue = next(c for c in task.draft.clues if c.id == step.ask)
        if clue.in_file:
            reader = "view_image" if clue.in_image else "read_file"
            return PlannedStep(task.key, reader, {"path": clue.holder.removeprefix("file:")}, asks=task.clue_id(day.day, clue))
        return PlannedStep(task.key, "chat__send_message", {"to": clue.holder, "text": clue.question}, asks=task.clue_id(day.day, clue))
    if step.wait_until_minute is not None:
        return PlannedStep(task.key, "clock__wait_until", {"until": day.minute(step.wait_until_minute)})
    assert step.tool is not None  # a say step never reaches here
    return PlannedStep(task.key, step.tool, dict(step.args), needs=needs, guess=step.guess)


def oracle_steps(scenario: Scenario, day: ScenarioDay, rates: ClockRates) -> list[PlannedStep]:
    """The oracle's tool calls of the day in timeline order (see the module docstring); TimelineError when it cannot be on time."""
    line = _Timeline(rates)
    if day.day == 1:
        intern = day.company.intern
        line.emit(PlannedStep("-", "gmail__login", {"username": intern.email, "password": scenario.password}))
    prepared: list[tuple[Task, Step]] = []
    blocks: list[tuple[int, Task, list[Step]]] = []
    flexible: list[tuple[Task, Step]] = []
    for task in day.tasks:
        acting = [s for s in task.draft.reference if s.say is None]
        if task.fixed:
            cut = next((n for n, s in enumerate(acting) if s.wait_until_minute is not None), 0)
            prepared += [(task, s) for s in acting[:cut]]
            blocks.append((task.start_minute, task, acting[cut:]))
        else:
            flexible += [(task, s) for s in acting]
    blocks.sort(key=lambda b: b[0])
    action = rates.per_step_minutes + rates.per_call_minutes
    for task, step in [*prepared, *flexible]:
        while (
            blocks and line.now + action + rates.per_step_minutes > blocks[0][0]
        ):  # after this step, the block's first step must still come by its start
            _run_block(line, day, blocks.pop(0))
        line.emit(_planned(day, task, step), None if task.fixed else task.deadline_minute)
    for block in blocks:
        _run_block(line, day, block)
    return line.steps


def _run_block(line: _Timeline, day: ScenarioDay, block: tuple[int, Task, list[Step]]) -> None:
    start, task, steps = block
    first = line.now + line.rates.per_step_minutes
    if first > start:
        raise TimelineError(
            f"task {task.key}: the oracle's first step for {task.draft.title} would come at minute {first:g}, after its start {start}"
        )
    for step in steps:
        if step.wait_until_minute is not None:
            line.emit(_planned(day, task, step))
            line.now = max(line.now, step.wait_until_minute + line.rates.per_call_minutes)
        else:
            line.emit(_planned(day, task, step))


def reference(steps: list[PlannedStep]) -> list[ReferenceStep]:
    """The oracle's steps as the session's reference: asking and clue-using steps are marked ``from_history`` (``scripted:surface`` skips them);
    a clue-using step carries its guess (``scripted:guess`` acts on it)."""
    return [
        ReferenceStep(tool=s.tool, args=s.args, from_history=bool(s.asks or s.needs), guess=s.guess if s.needs else None) for s in steps
    ]
