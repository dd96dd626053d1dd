"""What ``pbench validate --suite trainee`` checks: each template over many seeds, and the scenarios that run.

Per template and seed (a two-task scenario of that template, two days), and
per scenario of the default benchmark (or of a ``--tasks`` list), composed as
it runs (its tasks together on one timeline, two days):
it instantiates and composes; no clue's value shows in what the agent sees
without asking; each NPC clue's question is admissible, matches its own cues
and no other clue of the same holder; names and paths are unique; the oracle
scores 1.0 and none of its tool calls fails (its timeline agrees with the
run's clock); the passive and guessing baselines fail a checkpoint that needs a
clue; the laundry-list canvasser obtains no clue.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from proactive_bench.dataset import Problem
from proactive_bench.suites.trainee.compose import Scenario, compose_scenario, default_names
from proactive_bench.suites.trainee.play import play
from proactive_bench.suites.trainee.template import TEMPLATES
from proactive_bench.user import screen_questions

VALIDATE_SEEDS = range(1, 6)
"""Seeds per template `pbench validate` plays (each: a two-task, two-day scenario, oracle and three baselines: ~0.6 s CPU)."""


def visible_texts(scenario: Scenario) -> list[str]:
    """What the agent sees without asking: objectives, the hints' method, personas, files (a clue's own file excepted)."""
    out: list[str] = []
    for day in scenario.days:
        for task in day.tasks:
            hidden = {c.holder.removeprefix("file:") for c in task.draft.clues if c.in_file}
            out += [task.draft.objective, task.draft.hints.method, *(n.persona for n in task.draft.npcs)]
            out += [v if isinstance(v, str) else v.decode("latin-1") for p, v in task.draft.files.items() if p not in hidden]
    return out


def scenario_problems(scenario: Scenario) -> list[str]:
    """Leaks, untargetable clues and duplicate names of a composed scenario."""
    found = []
    texts = [t.casefold() for t in visible_texts(scenario)]
    for day in scenario.days:
        for task in day.tasks:
            where = f"day {day.day} {task.key}"
            for clue in task.draft.clues:
                if any(clue.value.casefold() in t for t in texts):
                    found.append(f"{where}: clue {clue.id}'s value {clue.value!r} shows without asking")
                if clue.in_file:
                    continue
                if screen_questions(clue.question).admissible != [clue.question]:
                    found.append(f"{where}: clue {clue.id}'s question is not one admissible targeted question")
                if not any(re.search(p, clue.question, re.IGNORECASE) for p in clue.ask):
                    found.append(f"{where}: clue {clue.id}'s question matches none of its ask cues")
                others = [c for c in task.draft.clues if c.holder == clue.holder and c.id != clue.id and not c.in_file]
                if any(re.search(p, clue.question, re.IGNORECASE) for c in others for p in c.ask):
                    found.append(f"{where}: clue {clue.id}'s question also matches another clue of {clue.holder}")
    npcs = [n for day in scenario.days for n in day.npcs]
    if len({n.handle for n in npcs}) != len(npcs):
        found.append("two colleagues share a handle")
    paths = [(t.folder, p) for day in scenario.days for t in day.tasks for p in t.draft.files]
    if len({p for _, p in paths}) != len(paths) or any(not p.startswith(folder) for folder, p in paths):
        found.append("files are not unique or not under their task's folder")
    return found


def baseline_problems(scenario: Scenario) -> list[str]:
    """The oracle scores 1.0; passive and guessing fail a clue checkpoint; the canvasser obtains nothing."""
    found = []
    for n, day in enumerate(play(scenario, "reference"), start=1):
        if day.figures.checkpoint_score != 1.0:
            found.append(f"day {n}: the oracle misses {sorted(k for k, v in day.verdicts.items() if not v)}")
        if day.failed:  # its timeline and the run's clock disagree (a wait after its time), or a step is wrong
            found.append(f"day {n}: the oracle's call {day.failed[0]}" + (f" (and {len(day.failed) - 1} more failed)" if len(day.failed) > 1 else ""))
    needing = [{f"{t.key}.{c.id}" for t in d.tasks for c in t.draft.checkpoints if c.needs} for d in scenario.days]
    for mode in ("passive", "guess"):
        for n, day in enumerate(play(scenario, mode), start=1):
            if all(day.verdicts[i] for i in needing[n - 1]):
                found.append(f"day {n}: the {mode} baseline passes every checkpoint that needs a clue")
    for n, day in enumerate(play(scenario, "canvass"), start=1):
        if day.figures.clues_asked:
            found.append(f"day {n}: a laundry list to every colleague obtained {day.figures.clues_asked} clue(s)")
    return found


def templates_problems(seeds: int = len(VALIDATE_SEEDS)) -> list[Problem]:
    """Every template's problems over seeds 1..``seeds`` (``pbench validate --suite trainee``)."""
    return [p for name in sorted(TEMPLATES) for p in template_problems(name, range(1, seeds + 1))]


def template_problems(template: str, seeds: range = VALIDATE_SEEDS) -> list[Problem]:
    """Every problem of one template over the seeds (file ``trainee/<template>``, field ``seed N``)."""
    return [Problem(f"trainee/{template}", f"seed {seed}", reason)
            for seed in seeds for reason in _problems_of(lambda: compose_scenario(f"s{seed}-n2", 2, templates=[template]))]


def scenarios_problems(names: list[str] | None = None) -> list[Problem]:
    """Every problem of the named scenarios as they run, composed over both days (default: the default benchmark);
    file ``trainee/<name>``, field ``scenario``."""
    return [Problem(f"trainee/{name}", "scenario", reason)
            for name in (default_names() if names is None else names) for reason in _problems_of(lambda: compose_scenario(name, 2))]


def _problems_of(compose: Callable[[], Scenario]) -> list[str]:
    try:
        scenario = compose()
        return scenario_problems(scenario) + baseline_problems(scenario)
    except (ValueError, RuntimeError) as exc:  # a bad name, a draft that does not validate, a timeline that cannot be kept
        return [str(exc).splitlines()[0]]
