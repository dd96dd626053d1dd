"""Every trainee template over many seeds keeps the rules of the spec (suites/trainee/validity.py), and the checks can fail.

A new template is picked up from ``TEMPLATES``.

Templates 7-14 (:data:`TEMPLATES_7_14`) have more: more seeds instantiate
deterministically; on further seeds the oracle passes every checkpoint while
the passive agent fails every checkpoint that needs a clue and the guessing
agent most of them; composed with every other template the names stay unique;
and the cheapest stuffing adversary of each stuffable check (booking every
slot, naming every room, paging everybody, writing every candidate term,
mailing every candidate total) fails it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from proactive_bench.env import read_as_text
from proactive_bench.suites.trainee import MODES, TEMPLATES, Scenario, compose_scenario, play
from proactive_bench.suites.trainee.compose import Task
from proactive_bench.suites.trainee.day_plan import PlannedStep
from proactive_bench.suites.trainee.files import office_files_forgotten
from proactive_bench.suites.trainee.model import Clue, TaskDraft
from proactive_bench.suites.trainee.offline_play import play_modes
from proactive_bench.suites.trainee.pictures import pictures_forgotten
from proactive_bench.suites.trainee.templates.contract_fill import CAPS
from proactive_bench.suites.trainee.validity import baseline_problems, scenario_problems, template_problems
from tests.helpers.trainee_pictures import by_template


@pytest.mark.parametrize("template", by_template(sorted(TEMPLATES)))
def test_template_keeps_the_rules_over_seeds(template: str) -> None:
    """Seeds 2-6 here; seed 1 of every template is checked by ``validate --suite trainee --seeds 1``
    (tests/suites/trainee/test_trainee_runs.py), which finds no problem in any template: playing it again here
    would repeat the same computation (a template and seed is ~1 s of CPU, a sixth of this test)."""
    assert template_problems(template, range(2, 7)) == []


@pytest.mark.parametrize("template", by_template(sorted(TEMPLATES)))
def test_same_seed_same_scenario_and_seeds_vary(template: str) -> None:
    def first(seed: int) -> dict:
        return compose_scenario(f"s{seed}-n2", templates=[template]).days[0].tasks[0].draft.model_dump()

    drafts = {seed: first(seed) for seed in range(1, 13)}
    with pictures_forgotten(), office_files_forgotten():  # the other templates' kept files are kept again after it
        assert first(3) == drafts[3]  # composed again, from nothing kept (its pictures drawn and office files built anew)
    assert len({repr(d) for d in drafts.values()}) >= 10


def test_leave_cover_on_seeds_whose_tickets_first_gave_the_colleague_away_none_open() -> None:
    """Seeds 11, 27 and 51 drew a single open ticket of the colleague on leave, which the fix-up giving them a closed one
    then closed: composing failed (IndexError). The rules hold on the first of them."""
    for seed in (11, 27, 51):
        compose_scenario(f"s{seed}-n2", templates=["leave_cover"])
    assert template_problems("leave_cover", [11]) == []


def test_a_template_that_raises_is_a_problem_of_its_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A template's own bug (here an IndexError) is reported for the template and seed; validation goes on."""

    def broken(ctx: object) -> TaskDraft:
        raise IndexError("list index out of range")

    monkeypatch.setattr(TEMPLATES["leave_cover"], "instantiate", broken)
    problems = template_problems("leave_cover", range(1, 3))
    assert [(p.file, p.field, p.reason) for p in problems] == [
        ("trainee/leave_cover", f"seed {seed}", "IndexError: list index out of range") for seed in (1, 2)
    ]


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


def test_modes_played_together_play_as_each_alone() -> None:
    """Modes of one scenario share its folder and seeded day 1 (and its first snapshot), never each other's state."""
    scenario = compose_scenario("s2-n2", 2)
    together = play_modes(scenario, tuple(reversed(MODES)))
    assert together == {mode: play(scenario, mode) for mode in MODES}
    assert together["reference"][0].verdicts != together["passive"][0].verdicts


def _with_draft(scenario: Scenario, draft: TaskDraft) -> Scenario:
    """The scenario's first day only, its first task's draft replaced."""
    first = scenario.days[0]
    task = first.tasks[0].__class__(**{**first.tasks[0].__dict__, "draft": draft})
    day = first.__class__(1, first.company, (task, *first.tasks[1:]))
    return scenario.__class__(scenario.name, scenario.seed, scenario.count, (day,), scenario.password)


@pytest.mark.parametrize(
    ("subject", "question", "expected"),
    [
        ((r"\b(policy|threshold)\b",), "What is the approval policy threshold?", "targeted by a generic question"),
        ((r"\bZanzibar\b",), "What is the approval policy threshold for Zanzibar payments?", "named nowhere the agent sees"),
        ((r"\bclaims?\b",), "What is the approval threshold for payment claims?", "also names task t2"),
        ((r"\bpayments?\b",), "What is the approval policy threshold?", "does not both name its subject"),
    ],
)
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


# Templates 7-14: further seeds, the baselines, composition, and the stuffing adversaries.
TEMPLATES_7_14 = (
    "price_backfill",
    "campaign_split",
    "workshop_booking",
    "incident_drill",
    "contract_fill",
    "expense_review",
    "launch_notice",
    "stock_reorder",
)
PLAY = importlib.import_module("proactive_bench.suites.trainee.offline_play")
"""The player module (the package exports its ``play`` function under the same name)."""
ORACLE_STEPS = PLAY.oracle_steps
Transform = Callable[[list[PlannedStep]], list[PlannedStep]]


def _draft(template: str, seed: int, tmp: Path) -> dict:
    """The first task's draft, its generated office files as their text (their zip bytes carry the build time)."""
    draft = compose_scenario(f"s{seed}-n2", templates=[template]).days[0].tasks[0].draft.model_dump()
    for path, content in draft["files"].items():
        if isinstance(content, bytes):
            written = tmp / Path(path).name
            written.write_bytes(content)
            draft["files"][path] = read_as_text(written)
    return draft


def _needing(scenario: Scenario) -> set[str]:
    return {f"{t.key}.{c.id}" for t in scenario.days[0].tasks for c in t.draft.checkpoints if c.needs}


def test_the_templates_are_registered_with_a_mix_of_difficulties_and_apps() -> None:
    assert set(TEMPLATES_7_14) <= set(TEMPLATES)
    assert {TEMPLATES[t].difficulty for t in TEMPLATES_7_14} == {"easy", "hard"}
    assert {a for t in TEMPLATES_7_14 for a in TEMPLATES[t].apps} == {"chat", "email", "calendar", "files", "spreadsheets", "documents"}
    fixed = [t for t in TEMPLATES_7_14 if compose_scenario("s5-n2", templates=[t]).days[0].tasks[0].fixed]
    assert fixed == ["incident_drill"]


@pytest.mark.parametrize("template", TEMPLATES_7_14)
def test_many_seeds_instantiate_the_same_way_and_vary(template: str, tmp_path: Path) -> None:
    drafts = [_draft(template, seed, tmp_path) for seed in range(20, 50)]
    assert drafts[:5] == [_draft(template, seed, tmp_path) for seed in range(20, 25)]
    assert len({repr(d) for d in drafts}) == len(drafts)
    assert len({d["objective"] for d in drafts} | {repr(d["clues"]) for d in drafts}) >= 10


@pytest.mark.parametrize("template", TEMPLATES_7_14)
def test_the_oracle_passes_and_the_baselines_fail_on_further_seeds(template: str) -> None:
    for seed in (31, 47):
        scenario = compose_scenario(f"s{seed}-n2", templates=[template])
        needing = _needing(scenario)
        played = play_modes(scenario, ("reference", "passive", "guess"))  # as each played alone (test_modes_played_together_...)
        [oracle] = played["reference"]
        assert all(oracle.verdicts.values()), oracle.verdicts
        [passive] = played["passive"]
        assert not any(passive.verdicts[i] for i in needing), passive.verdicts
        [guess] = played["guess"]
        assert sum(guess.verdicts[i] for i in needing) <= len(needing) // 2, guess.verdicts


def test_names_stay_unique_composed_with_every_other_template() -> None:
    seen: set[str] = set()
    for seed in range(1, 31):  # six tasks on one day, five on each of two days (s16-n6 over two days exhausts T1's name pool)
        for scenario in (compose_scenario(f"s{seed}-n6"), compose_scenario(f"s{seed}-n5", 2)):
            assert scenario_problems(scenario) == [], scenario.name
            seen |= {t.template for t in scenario.days[0].tasks}
    assert set(TEMPLATES_7_14) <= seen


def _played_with(monkeypatch: pytest.MonkeyPatch, scenario: Scenario, transform: Transform) -> dict[str, bool]:
    monkeypatch.setattr(PLAY, "oracle_steps", lambda *a, **k: transform(ORACLE_STEPS(*a, **k)))
    [day] = play(scenario, "reference")
    return day.verdicts


def _rewrite(tool: str, change: Callable[[dict], dict | list[dict]]) -> Transform:
    """Replace every oracle call of ``tool`` by the call(s) ``change`` makes of its args."""

    def transform(steps: list[PlannedStep]) -> list[PlannedStep]:
        out: list[PlannedStep] = []
        for step in steps:
            if step.tool != tool:
                out.append(step)
                continue
            changed = change(dict(step.args))
            out += [replace(step, args=a) for a in (changed if isinstance(changed, list) else [changed])]
        return out

    return transform


def _task(scenario: Scenario) -> Task:
    return scenario.days[0].tasks[0]


def test_booking_every_slot_or_naming_every_room_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = compose_scenario("s8-n2", templates=["workshop_booking"])
    rooms = _task(scenario).draft.checkpoints[1].check["all"]
    every_room = ", ".join(c["not"]["checker"]["args"]["location"] for c in rooms[1:]) + ", " + rooms[0]["checker"]["args"]["location"]

    def twice(args: dict) -> list[dict]:  # the right slot never starts after 15:30
        return [args, {**args, "start": args["start"][:11] + "16:00", "end": args["start"][:11] + "17:30"}]

    verdicts = _played_with(monkeypatch, scenario, _rewrite("calendar__create_event", twice))
    assert not verdicts["t1.c1"] and verdicts["t1.c2"]
    verdicts = _played_with(monkeypatch, scenario, _rewrite("calendar__create_event", lambda a: {**a, "location": every_room}))
    assert verdicts["t1.c1"] and not verdicts["t1.c2"]


def test_paging_everybody_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = compose_scenario("s9-n2", templates=["incident_drill"])
    handles = [n.handle for n in _task(scenario).draft.npcs]
    page = _rewrite("chat__send_message", lambda a: [{**a, "to": h} for h in handles] if a["text"].startswith("Drill") else a)
    verdicts = _played_with(monkeypatch, scenario, page)
    assert not verdicts["t1.c1"] and verdicts["t1.c2"]


def test_writing_every_candidate_term_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = compose_scenario("s10-n2", templates=["contract_fill"])

    def stuffed(args: dict) -> dict:
        first, second = args["replace"]
        return {**args, "replace": [{**first, "new": " or ".join(CAPS)}, second]}

    verdicts = _played_with(monkeypatch, scenario, _rewrite("docx_edit", stuffed))
    assert not verdicts["t1.c1"] and verdicts["t1.c2"]


def test_mailing_every_candidate_total_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = compose_scenario("s11-n2", templates=["expense_review"])
    c2 = _task(scenario).draft.checkpoints[1].check["all"]
    candidates = [c2[0]["checker"]["args"]["body_contains"][0], *(c["not"]["checker"]["args"]["body_contains"][0] for c in c2[1:])]
    verdicts = _played_with(
        monkeypatch, scenario, _rewrite("gmail__send_email", lambda a: {**a, "body": "Total: " + " or ".join(candidates)})
    )
    assert verdicts["t1.c1"] and not verdicts["t1.c2"]


def test_the_drill_page_counts_only_soon_after_the_alert(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = compose_scenario("s12-n2", templates=["incident_drill"])
    at = _task(scenario).draft.timing.at_minute
    assert at is not None

    def late(steps: list[PlannedStep]) -> list[PlannedStep]:
        waits = [s for s in steps if s.tool == "clock__wait_until"]
        hour, minute = divmod(9 * 60 + at + 25, 60)
        return [replace(s, args={"until": f"{hour:02d}:{minute:02d}"}) if s in waits else s for s in steps]

    verdicts = _played_with(monkeypatch, scenario, late)
    assert not verdicts["t1.c1"] and verdicts["t1.c2"] and not verdicts["t1.c3"]


def test_reporting_the_drill_before_the_alert_is_not_answering_it(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = compose_scenario("s12-n2", templates=["incident_drill"])

    def early(steps: list[PlannedStep]) -> list[PlannedStep]:
        mail = [s for s in steps if s.tool == "gmail__send_email" and s.task == "t1"]
        rest = [s for s in steps if s not in mail]
        return [rest[0], *mail, *rest[1:]]  # right after logging in, long before the alert

    verdicts = _played_with(monkeypatch, scenario, early)
    assert verdicts["t1.c1"] and verdicts["t1.c2"] and not verdicts["t1.c3"]
