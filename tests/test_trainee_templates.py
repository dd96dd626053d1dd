"""Every trainee template over many seeds: deterministic, leak-free, unique names, the oracle scores 1.0, the baselines do not.

A new template is picked up from ``TEMPLATES``; the rules it must keep are
those of /work/trainee-spec.md ("Rules every template keeps").
"""

from __future__ import annotations

import re

import pytest

from proactive_bench.suites.trainee import TEMPLATES, compose_scenario, play
from proactive_bench.suites.trainee.compose import Scenario
from proactive_bench.user import screen_questions

SEEDS = range(1, 9)


def _scenario(template: str, seed: int, days: int = 1) -> Scenario:
    return compose_scenario(f"s{seed}-n2", days, templates=[template])


def _texts(scenario: Scenario) -> list[str]:
    """Everything the agent sees without asking: objectives, hints' method, personas, files (clue files excepted)."""
    out = []
    for day in scenario.days:
        for task in day.tasks:
            hidden = {c.holder.removeprefix("file:") for c in task.draft.clues if c.in_file}
            out += [task.draft.objective, task.draft.hints.method, *(n.persona for n in task.draft.npcs)]
            out += [v if isinstance(v, str) else v.decode("latin-1") for p, v in task.draft.files.items() if p not in hidden]
    return out


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_same_seed_same_scenario_and_seeds_vary(template: str) -> None:
    assert _scenario(template, 3).days[0].tasks[0].draft.model_dump() == _scenario(template, 3).days[0].tasks[0].draft.model_dump()
    drafts = {repr(_scenario(template, s).days[0].tasks[0].draft.model_dump()) for s in range(1, 13)}
    assert len(drafts) >= 10


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_clues_are_targetable_and_do_not_leak(template: str) -> None:
    for seed in SEEDS:
        scenario = _scenario(template, seed, days=2)
        texts = _texts(scenario)
        for day in scenario.days:
            for task in day.tasks:
                for clue in task.draft.clues:
                    assert not any(clue.value.casefold() in t.casefold() for t in texts), (seed, task.key, clue.id)
                    if clue.in_file:
                        continue
                    assert screen_questions(clue.question).admissible == [clue.question]
                    assert any(re.search(p, clue.question, re.I) for p in clue.ask)
                    same_holder = [c for c in task.draft.clues if c.holder == clue.holder and c.id != clue.id]
                    assert not any(re.search(p, clue.question, re.I) for c in same_holder for p in c.ask)


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_names_are_unique_across_the_scenario(template: str) -> None:
    scenario = _scenario(template, 5, days=2)
    npcs = [n for day in scenario.days for n in day.npcs]
    assert len({n.handle for n in npcs}) == len(npcs)
    assert len({n.name.split()[0] for n in npcs}) == len(npcs)
    paths = [p for day in scenario.days for t in day.tasks for p in t.draft.files]
    assert len(set(paths)) == len(paths)
    assert all(p.startswith(t.folder) for day in scenario.days for t in day.tasks for p in t.draft.files)


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_oracle_scores_one_and_baselines_fail_a_clue_checkpoint(template: str) -> None:
    for seed in SEEDS:
        scenario = _scenario(template, seed)
        needing = {f"{t.key}.{c.id}" for t in scenario.days[0].tasks for c in t.draft.checkpoints if c.needs}
        oracle = play(scenario, "reference")[0]
        assert oracle.figures.checkpoint_score == 1.0, (seed, oracle.verdicts)
        for mode in ("passive", "guess"):
            day = play(scenario, mode)[0]
            assert any(not day.verdicts[i] for i in needing), (seed, mode, day.verdicts)
            assert day.figures.checkpoint_score < 1.0


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_a_laundry_list_to_every_colleague_releases_nothing(template: str) -> None:
    for seed in SEEDS:
        day = play(_scenario(template, seed), "canvass")[0]
        assert day.figures.clues_asked == 0
        assert day.figures.messages >= len(_scenario(template, seed).days[0].npcs)
