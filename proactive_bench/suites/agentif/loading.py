"""Turn an AgentIF task into a one-session pbench episode.

The persona is the task's user; the session opens with the request, starts
from the attachments under ``workspace/``, holds the latent rules as hidden
intents (so the simulated user tracks them and Proc is reported; as in the
paper, the user never states one: no question earns it, and asked or bringing
it up they only point to the attachment holding it), one
checklist item per rubric item (``weight`` = its points; its polarity and
category stay in the task, read by the scoring), the follow-ups the user gives
after each deliverable, and the reference steps.
"""

from __future__ import annotations

from pathlib import Path

from proactive_bench.dataset import (
    ChecklistItem,
    DatasetError,
    Episode,
    FollowUp,
    HiddenIntent,
    LoadedEpisode,
    Persona,
    Problem,
    ReferenceStep,
    Session,
    SessionEntry,
    Trigger,
)
from proactive_bench.env import resolve_tool_names
from proactive_bench.suites.agentif.task import AgentIFTask, LatentRule
from proactive_bench.suites.task_files import TaskFolder, relative_to_root

SUITE_NAME = FOLDER = "agentif"
SESSION_CATEGORY = "agentif"
BASE_TOOLS = ("workspace",)
FILE_ITEMS = ("content", "form")
"""Item categories about the deliverable itself: their judge never sees the conversation (a claim is not evidence)."""
OFFICE_TOOLS = ("documents", "spreadsheets", "pdf")
"""The office tool groups every task gets where they are registered (the odyssey tools)."""
POINTERS = (
    "It's in {source} - do it the way it's done there.",
    "Have another look at {source}, it's all there.",
    "{source} shows how I want it.",
    "Go by {source}, that's how it's done.",
)
"""The user's words about a latent rule, asked or volunteering: a pointer to its source that does not state the rule.
A task's rules take them in turn, so a pointer is about one rule (the scripted baselines learn one rule from it)."""
UNSPOKEN = "(The user never puts this rule into words, asked or not: they only point to {source}.)"
"""Appended to the rule's text for the user simulator, so the LLM user conveys the pointer too, not the rule."""


TASKS = TaskFolder(FOLDER, AgentIFTask)
task_names, task_file, read_task = TASKS.names, TASKS.file, TASKS.read


def _registered(group: str) -> bool:
    try:
        resolve_tool_names([group])
    except KeyError:
        return False
    return True


def task_tools(task: AgentIFTask) -> list[str]:
    """The tool names and groups a task offers: the workspace's, the registered office groups, its extras."""
    return list(dict.fromkeys([*BASE_TOOLS, *(g for g in OFFICE_TOOLS if _registered(g)), *task.tools]))


def rule_intent(rule: LatentRule, n: int) -> HiddenIntent:
    """The task's ``n``-th latent rule as the hidden intent the user tracks: applied unasked it is completed; no question
    earns it (``askable: false``), and whatever the user says about it, answering or bringing it up, is :func:`pointer`."""
    return HiddenIntent(
        id=rule.id,
        text=f"{rule.text} {UNSPOKEN.format(source=rule.source)}",
        reveal=pointer(rule, n),
        ask=list(rule.ask),
        question=rule.question,
        evidence=rule.evidence,
        askable=False,
    )


def pointer(rule: LatentRule, n: int) -> str:
    """What the user says about the task's ``n``-th latent rule: where it is, never what it is."""
    return POINTERS[n % len(POINTERS)].format(source=rule.source)


def task_session(task: AgentIFTask, tools: list[str]) -> Session:
    """The task as one pbench session."""
    intents = [rule_intent(r, n) for n, r in enumerate(task.rules)]
    checklist = [
        ChecklistItem(
            id=i.id,
            text=i.text,
            grader=i.grader,
            check=i.check,
            weight=float(i.points),
            intent=i.rule,
            evidence=i.evidence.model_copy(update={"dialogue": False}) if i.category in FILE_ITEMS else i.evidence,
        )
        for i in task.rubric
    ]
    reference = [ReferenceStep(tool=s.tool, args=s.args, say=s.say, requires=s.rules, followup=s.followup) for s in task.reference]
    followups = [FollowUp(id=f.id, text=f.text, after=f.after) for f in task.followups]
    return Session(
        id=task.id,
        title=task.title,
        category=SESSION_CATEGORY,
        trigger=Trigger(type="user", message=task.request),
        now=task.now,
        tools=tools,
        files=task.attachments,
        intents=intents,
        checklist=checklist,
        reference=reference,
        followups=followups,
    )


def task_episode(root: Path, task: AgentIFTask) -> tuple[LoadedEpisode | None, list[Problem]]:
    """The task as a loaded one-session episode, or None and the problems that stop it (unknown tools)."""
    rel = relative_to_root(task_file(root, task.id), root)
    tools = task_tools(task)
    problems = [Problem(rel, "tools", f"unknown tool or tool group {name!r}") for name in task.tools if not _registered(name)]
    offered = {spec.name for spec in resolve_tool_names([t for t in tools if _registered(t)])}
    for n, step in enumerate(task.reference):
        if step.tool is not None and step.tool not in offered:
            problems.append(Problem(rel, f"reference[{n}].tool", f"{step.tool!r} is not among the tools the task offers"))
    if problems:
        return None, problems
    persona = Persona(id=task.id, name=task.user.name, role=task.user.role)
    episode = Episode(id=task.id, persona=task.id, title=task.title, sessions=[SessionEntry(id=task.id)])
    return LoadedEpisode(episode, persona, [task_session(task, tools)], root / FOLDER / task.id, suite=SUITE_NAME), []


def load_task(root: Path, task_id: str) -> LoadedEpisode:
    """One task ready to run; DatasetError listing every problem."""
    root = root.resolve()
    task, problems = read_task(root, task_id)
    if task is None:
        raise DatasetError(problems)
    loaded, problems = task_episode(root, task)
    if loaded is None:
        raise DatasetError(problems)
    return loaded
