"""What ``pbench validate --suite trainee`` checks: each template over many seeds, and the scenarios that run.

Per template and seed (a two-task scenario of that template, two days), and
per scenario of the default benchmark (or of a ``--tasks`` list), composed as
it runs (its tasks together on one timeline, two days):
it instantiates and composes; no clue's value shows in what the agent sees
without asking; each NPC clue's question is admissible, matches its own cues
and no other clue of the same holder; names and paths are unique; the oracle
scores 1.0, none of its tool calls fails (its timeline agrees with the run's
clock) and no checkpoint counts it as guessing; the passive and guessing
baselines fail a checkpoint that needs a clue; the laundry-list canvasser and the four keyword questions to every
colleague obtain no clue. Each NPC clue is targeted only by questions about it
(:func:`targeting_problems`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from proactive_bench.dataset import Problem
from proactive_bench.suites.trainee.colleagues import held_clues
from proactive_bench.suites.trainee.compose import Scenario, Task, compose_scenario, default_names
from proactive_bench.suites.trainee.model import Npc
from proactive_bench.suites.trainee.offline_play import CANVASS_PADDING, KEYWORD_QUESTIONS, MODES, play_modes
from proactive_bench.suites.trainee.template import TEMPLATES
from proactive_bench.user import screen_questions

GENERIC_QUESTIONS: tuple[str, ...] = (
    *KEYWORD_QUESTIONS,
    *CANVASS_PADDING,
    "What is the budget for this?",
    "How much can we spend?",
    "What is the deadline for this task?",
    "When is it due?",
    "What is the check-in code?",
    "What is the approval threshold?",
    "Which rule applies here?",
    "What is the limit on expense claims?",
    "How many people are coming?",
    "How many items should I order?",
    "What is the current price?",
    "What does it cost now?",
    "On what date does it launch?",
    "When does the release go live?",
    "Which channels should we drop?",
    "What liability cap applies?",
    "What notice period was agreed?",
    "How should I fill the missing values?",
    "Which dates are you available?",
    "What severity should I file?",
    "What is the supplier lead time?",
    "What quantity should each order cover?",
    "Where is the reporting manual?",
    "Where can I find the filing rules?",
    "When is the sponsor free tomorrow?",
    "What is the per-head budget?",
    "How do we reimburse expense claims?",
)
"""Workplace questions that name no task's subject, each admissible alone: each kind of fact a clue holds, asked bare.
No clue may be targeted by one (``validate`` checks every composed scenario)."""
VALIDATE_SEEDS = range(1, 6)
"""Seeds per template `pbench validate` plays (each: a two-task, two-day scenario, oracle and three baselines: ~0.6 s CPU)."""


def visible_texts(scenario: Scenario) -> list[str]:
    """What the agent sees without asking: objectives, the hints' method, personas, files (a clue's own file excepted)."""
    return [text for day in scenario.days for task in day.tasks for text in task_visible_texts(task)]


def task_visible_texts(task: Task) -> list[str]:
    """What the agent sees of one task without asking: its objective, method hint, personas, files and web pages, and the
    files' names and the pages' addresses (a listing shows them: a picture named after what it shows needs no looking)."""
    hidden = {c.holder.removeprefix("file:") for c in task.draft.clues if c.in_file}
    files = [v if isinstance(v, str) else v.decode("latin-1") for p, v in task.draft.files.items() if p not in hidden]
    return [
        task.draft.objective,
        task.draft.hints.method,
        *(n.persona for n in task.draft.npcs),
        *files,
        *task.draft.files,
        *task.draft.pages.values(),
        *task.draft.pages,
    ]


def scenario_problems(scenario: Scenario) -> list[str]:
    """Leaks, untargetable or unspecific clues and duplicate names of a composed scenario."""
    found = []
    texts = [t.casefold() for t in visible_texts(scenario)]
    for day in scenario.days:
        for task in day.tasks:
            where = f"day {day.day} {task.key}"
            for clue in task.draft.clues:
                if any(clue.value.casefold() in t for t in texts):
                    found.append(f"{where}: clue {clue.id}'s value {clue.value!r} shows without asking")
                if clue.in_image and _image_spells(task, clue.holder.removeprefix("file:"), clue.value):
                    found.append(f"{where}: clue {clue.id}'s value {clue.value!r} is written in its picture's bytes (it must be drawn)")
                if not clue.in_file and screen_questions(clue.question).admissible != [clue.question]:
                    found.append(f"{where}: clue {clue.id}'s question is not one admissible targeted question")
    found += targeting_problems(scenario)
    declared: dict[str, list[Npc]] = {}
    for npc in (n for day in scenario.days for t in day.tasks for n in t.draft.npcs):
        declared.setdefault(npc.handle, []).append(npc)
    for handle, npcs in declared.items():  # only a shared colleague is declared twice, and then the same way
        if len(npcs) > 1 and not all(n.shared and n == npcs[0] for n in npcs):
            found.append(f"two colleagues share the handle {handle}")
    paths = [(t.folder, p) for day in scenario.days for t in day.tasks for p in t.draft.files]
    if len({p for _, p in paths}) != len(paths) or any(not p.startswith(folder) for folder, p in paths):
        found.append("files are not unique or not under their task's folder")
    return found


def _image_spells(task: Task, path: str, value: str) -> bool:
    """Whether a picture's bytes hold the value as text (metadata, an embedded label): then reading it as text finds it."""
    content = task.draft.files[path]
    raw = content if isinstance(content, str) else content.decode("latin-1")
    return value.casefold() in raw.casefold()


def targeting_problems(scenario: Scenario) -> list[str]:
    """Each NPC clue is targeted by its own question (its subject named, its kind of fact asked), and by nothing that is not
    about it: no other clue's question of the day, no generic question (:data:`GENERIC_QUESTIONS`); its subject is named
    where the agent can see it (the task's objective, method hint, personas, files) and in no other task's objective that day."""
    found = []
    held = {c.id: c for c in held_clues(scenario)}
    for day in scenario.days:
        asked = [(task, held[task.clue_id(day.day, c)], c.question) for task in day.tasks for c in task.draft.clues if not c.in_file]
        for task in day.tasks:
            seen = task_visible_texts(task)
            others = [
                t for t in day.tasks if t.template != task.template
            ]  # a day holds a template once (the template check composes it twice)
            for clue in (c for c in task.draft.clues if not c.in_file):
                where, mine = f"day {day.day} {task.key}: clue {clue.id}", held[task.clue_id(day.day, clue)]
                if not mine.targeted_by(clue.question):
                    found.append(f"{where}'s question does not both name its subject and match an ask cue")
                if not any(mine.names_subject(t) for t in seen):
                    found.append(f"{where}'s subject is named nowhere the agent sees without asking")
                if other := next((t.key for t in others if mine.names_subject(t.draft.objective)), None):
                    found.append(f"{where}'s subject also names task {other}: it does not tell its task apart")
                for asker, theirs, question in asked:  # another task's question, or another clue's of the same colleague
                    same_colleague = asker is task and theirs.holder == mine.holder and theirs.id != mine.id
                    if (asker.template != task.template or same_colleague) and mine.targeted_by(question):
                        found.append(f"{where} is also targeted by the question of {theirs.id}: {question!r}")
                if generic := next((q for q in GENERIC_QUESTIONS if mine.targeted_by(q)), None):
                    found.append(f"{where} is targeted by a generic question: {generic!r}")
    return found


def baseline_problems(scenario: Scenario) -> list[str]:
    """The oracle scores 1.0 and guesses nothing; passive and guessing fail a clue checkpoint; the canvasser and the keyword asker obtain nothing."""
    found = []
    played = play_modes(scenario, MODES)
    for n, day in enumerate(played["reference"], start=1):
        if day.figures.checkpoint_score != 1.0:
            found.append(f"day {n}: the oracle misses {sorted(k for k, v in day.verdicts.items() if not v)}")
        if day.figures.guesses:  # an attempt so loose that the oracle's question or earlier work already meets it
            found.append(f"day {n}: the oracle counts as guessing {day.figures.guesses} checkpoint(s)")
        if day.failed:  # its timeline and the run's clock disagree (a wait after its time), or a step is wrong
            found.append(
                f"day {n}: the oracle's call {day.failed[0]}" + (f" (and {len(day.failed) - 1} more failed)" if len(day.failed) > 1 else "")
            )
    needing = [{f"{t.key}.{c.id}" for t in d.tasks for c in t.draft.checkpoints if c.needs} for d in scenario.days]
    for mode in ("passive", "guess"):
        for n, day in enumerate(played[mode], start=1):
            if all(day.verdicts[i] for i in needing[n - 1]):
                found.append(f"day {n}: the {mode} baseline passes every checkpoint that needs a clue")
    for mode, what in (("canvass", "a laundry list"), ("keywords", "four keyword questions")):
        for n, day in enumerate(played[mode], start=1):
            if day.figures.clues_asked:
                found.append(f"day {n}: {what} to every colleague obtained {day.figures.clues_asked} clue(s)")
    return found


def templates_problems(seeds: int = len(VALIDATE_SEEDS)) -> list[Problem]:
    """Every template's problems over seeds 1..``seeds`` (``pbench validate --suite trainee``)."""
    return [p for name in sorted(TEMPLATES) for p in template_problems(name, range(1, seeds + 1))]


def template_problems(template: str, seeds: range = VALIDATE_SEEDS) -> list[Problem]:
    """Every problem of one template over the seeds (file ``trainee/<template>``, field ``seed N``)."""
    return [
        Problem(f"trainee/{template}", f"seed {seed}", reason)
        for seed in seeds
        for reason in _problems_of(partial(compose_scenario, f"s{seed}-n2", 2, templates=[template]))
    ]


def scenarios_problems(names: list[str] | None = None) -> list[Problem]:
    """Every problem of the named scenarios as they run, composed over both days (default: the default benchmark);
    file ``trainee/<name>``, field ``scenario``."""
    return [
        Problem(f"trainee/{name}", "scenario", reason)
        for name in (default_names() if names is None else names)
        for reason in _problems_of(partial(compose_scenario, name, 2))
    ]


def _problems_of(compose: Callable[[], Scenario]) -> list[str]:
    try:
        scenario = compose()
        return scenario_problems(scenario) + baseline_problems(scenario)
    except (ValueError, RuntimeError) as exc:  # a bad name, a draft that does not validate, a timeline that cannot be kept
        return [str(exc).splitlines()[0]]
    except Exception as exc:  # a template's own bug: a problem of that template and seed, not the end of the validation
        return [f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'raised while composing'}"]
