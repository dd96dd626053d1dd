"""Every trainee template over many seeds keeps the rules of the spec (suites/trainee/validity.py), and the checks can fail.

A new template is picked up from ``TEMPLATES``.
"""

from __future__ import annotations

import pytest

from proactive_bench.suites.trainee import TEMPLATES, Scenario, compose_scenario
from proactive_bench.suites.trainee.model import Clue, TaskDraft
from proactive_bench.suites.trainee.validity import baseline_problems, scenario_problems, template_problems


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_template_keeps_the_rules_over_seeds(template: str) -> None:
    assert template_problems(template, range(1, 7)) == []


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_same_seed_same_scenario_and_seeds_vary(template: str) -> None:
    def first(seed: int) -> dict:
        return compose_scenario(f"s{seed}-n2", templates=[template]).days[0].tasks[0].draft.model_dump()

    assert first(3) == first(3)
    assert len({repr(first(s)) for s in range(1, 13)}) >= 10


def test_a_leaked_clue_and_an_untargetable_question_are_found() -> None:
    scenario = compose_scenario("s2-n2", templates=["transaction_audit"])
    task = scenario.days[0].tasks[0]
    clue = task.draft.clues[0]
    leaky = task.draft.model_copy(update={"objective": task.draft.objective + f" ({clue.value})"})
    vague = Clue(**{**clue.model_dump(), "question": "Anything else?"})
    broken = task.draft.model_copy(update={"clues": (vague,)})
    for draft, expected in ((leaky, "shows without asking"), (broken, "not one admissible")):
        changed = scenario.days[0].tasks[0].__class__(**{**task.__dict__, "draft": draft})
        day = scenario.days[0].__class__(1, scenario.days[0].company, (changed, *scenario.days[0].tasks[1:]))
        found = scenario_problems(scenario.__class__(scenario.name, scenario.seed, scenario.count, (day,), scenario.password))
        assert any(expected in f for f in found), found


def test_an_oracle_that_skips_a_step_is_found() -> None:
    scenario = compose_scenario("s4-n2", templates=["meeting_attend"])
    task = scenario.days[0].tasks[0]
    skipped = task.draft.model_copy(update={"reference": task.draft.reference[:-1]})
    changed = task.__class__(**{**task.__dict__, "draft": skipped})
    day = scenario.days[0].__class__(1, scenario.days[0].company, (changed, *scenario.days[0].tasks[1:]))
    found = baseline_problems(scenario.__class__(scenario.name, scenario.seed, scenario.count, (day,), scenario.password))
    assert any("the oracle misses" in f for f in found), found


def _with_draft(scenario: Scenario, draft: TaskDraft) -> Scenario:
    """The scenario's first day only, its first task's draft replaced."""
    first = scenario.days[0]
    task = first.tasks[0].__class__(**{**first.tasks[0].__dict__, "draft": draft})
    day = first.__class__(1, first.company, (task, *first.tasks[1:]))
    return scenario.__class__(scenario.name, scenario.seed, scenario.count, (day,), scenario.password)


@pytest.mark.parametrize(("subject", "question", "expected"), [
    ((r"\b(policy|threshold)\b",), "What is the approval policy threshold?", "targeted by a generic question"),
    ((r"\bZanzibar\b",), "What is the approval policy threshold for Zanzibar payments?", "named nowhere the agent sees"),
    ((r"\bclaims?\b",), "What is the approval threshold for payment claims?", "also names task t2"),
    ((r"\bpayments?\b",), "What is the approval policy threshold?", "does not both name its subject"),
])
def test_a_clue_subject_that_is_not_specific_is_found(subject: tuple[str, ...], question: str, expected: str) -> None:
    scenario = compose_scenario("s2-n2", templates=["transaction_audit", "expense_review"])
    task = next(t for t in scenario.days[0].tasks if t.template == "transaction_audit")
    assert task.key == "t1"
    clue = Clue(**{**task.draft.clues[0].model_dump(), "subject": subject, "question": question})
    planted = _with_draft(scenario, task.draft.model_copy(update={"clues": (clue,)}))
    found = scenario_problems(planted)
    assert any(expected in f for f in found), found
    assert scenario_problems(_with_draft(scenario, task.draft)) == []


def test_a_subject_that_a_keyword_question_names_lets_the_keyword_asker_in_and_is_found() -> None:
    scenario = compose_scenario("s2-n2", templates=["transaction_audit", "expense_review"])
    task = scenario.days[0].tasks[0]
    loose = Clue(**{**task.draft.clues[0].model_dump(), "subject": (r"\b(policy|threshold)\b",)})
    found = baseline_problems(_with_draft(scenario, task.draft.model_copy(update={"clues": (loose,)})))
    assert "day 1: four keyword questions to every colleague obtained 1 clue(s)" in found, found
