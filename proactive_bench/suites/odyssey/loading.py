"""Read ``<root>/odyssey/<task id>/task.yaml`` and turn a task into a one-session pbench episode.

Every problem names the file, the field and the reason (as the dataset loader
does). The episode's persona is the task's user, its one session opens with
the task intent plus the memory context of the run's setting, holds no hidden
intents, one rule checklist item per criterion (``c1..cN``, the ``checker``
predicate kind) and the reference steps, ``from_history`` where they draw on
details of the history.
"""

from __future__ import annotations

from pathlib import Path

from proactive_bench.dataset import (
    CheckerArgs,
    CheckerPredicate,
    ChecklistItem,
    DatasetError,
    Episode,
    LoadedEpisode,
    Persona,
    Problem,
    ReferenceStep,
    Session,
    SessionEntry,
    Trigger,
)
from proactive_bench.env import resolve_tool_names
from proactive_bench.suites.odyssey.checkers import describe, parse_checker_args
from proactive_bench.suites.odyssey.context import HistoryModels, OpeningContext, task_context
from proactive_bench.suites.odyssey.settings import MemorySetting
from proactive_bench.suites.odyssey.task import OdysseyTask
from proactive_bench.suites.task_files import TaskFolder, relative_to_root

SUITE_NAME = FOLDER = "odyssey"
CATEGORY = "odyssey"
APP_TOOLS: dict[str, tuple[str, ...]] = {
    "documents": ("documents",),
    "spreadsheets": ("spreadsheets",),
    "pdf": ("pdf",),
    "email": ("gmail",),
    "calendar": ("calendar",),
}
"""The tool groups each application brings; every task also gets the ``workspace`` tools."""
BASE_TOOLS = ("workspace",)
SEARCH_TOOLS = ("history",)


TASKS = TaskFolder(FOLDER, OdysseyTask)
task_names, task_file, read_task = TASKS.names, TASKS.file, TASKS.read


def task_tools(task: OdysseyTask, setting: MemorySetting) -> list[str]:
    """The tool names and groups a task offers: its apps', the workspace's, ``search_history`` under retrieval, its extras."""
    names = [*BASE_TOOLS, *(g for app in task.apps for g in APP_TOOLS[app])]
    if setting.kind == "rag":
        names += SEARCH_TOOLS
    return list(dict.fromkeys([*names, *task.tools]))


def task_session(task: OdysseyTask, context: OpeningContext, tools: list[str]) -> Session:
    """The task as one pbench session: the intent with its memory context, no hidden intents, a rule item per criterion."""
    checklist = []
    for n, criterion in enumerate(task.criteria, start=1):
        args = parse_checker_args(criterion.checker, criterion.args)
        checklist.append(
            ChecklistItem(
                id=f"c{n}",
                text=describe(criterion.checker, args),
                grader="rule",
                check=CheckerPredicate(checker=CheckerArgs(name=criterion.checker, args=criterion.args)),
            )
        )
    reference = [ReferenceStep(tool=step.tool, args=step.args, say=step.say, from_history=bool(step.details)) for step in task.reference]
    return Session(
        id=task.id,
        title=task.title,
        category=CATEGORY,
        trigger=Trigger(type="user", message=context.opening(task.intent)),
        now=task.now,
        tools=tools,
        intents=[],
        checklist=checklist,
        reference=reference,
    )


def task_episode(
    root: Path,
    task: OdysseyTask,
    setting: MemorySetting,
    models: HistoryModels = HistoryModels(),
) -> tuple[LoadedEpisode | None, list[Problem]]:
    """The task as a loaded one-session episode under the given memory setting."""
    rel = relative_to_root(task_file(root, task.id), root)
    tools = task_tools(task, setting)
    problems = []
    for name in tools:
        try:
            resolve_tool_names([name])
        except KeyError:
            field = "tools" if name in task.tools else "apps"
            problems.append(Problem(rel, field, f"unknown tool or tool group {name!r} (is the app's tool module installed?)"))
    offered = None if problems else {s.name for s in resolve_tool_names(tools)}  # which tools an unknown name meant is not known
    for n, step in enumerate(task.reference):
        if offered is not None and step.tool is not None and step.tool not in offered:
            problems.append(Problem(rel, f"reference[{n}].tool", f"{step.tool!r} is not among the tools the task offers"))
    try:
        context = task_context(task, setting, models)
    except ValueError as exc:
        problems.append(Problem(rel, "", f"memory {setting.label}: {exc}"))
    if problems:
        return None, problems
    session = task_session(task, context, tools)
    persona = Persona(id=task.id, name=task.user.name, role=task.user.role)
    episode = Episode(id=task.id, persona=task.id, title=task.title, sessions=[SessionEntry(id=task.id)])
    loaded = LoadedEpisode(
        episode,
        persona,
        [session],
        root / FOLDER / task.id,
        history=context.search,
        memory_tokens=context.tokens,
        suite=SUITE_NAME,
    )
    return loaded, []


def load_task(root: Path, task_id: str, setting: MemorySetting, models: HistoryModels = HistoryModels()) -> LoadedEpisode:
    """One task ready to run; DatasetError listing every problem."""
    root = root.resolve()
    task, problems = read_task(root, task_id)
    if task is None:
        raise DatasetError(problems)
    loaded, problems = task_episode(root, task, setting, models)
    if loaded is None:
        raise DatasetError(problems)
    return loaded
