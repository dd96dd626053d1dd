"""Trainee-Bench's shape (issue 38): the four domains, website monitoring, inter-task dependencies (a task announced in a
meeting; one colleague holding clues of several tasks), image clues an agent must look at, the paper's daily feedback, and
the statistics script's trainee section."""

from __future__ import annotations

import importlib.util
import io
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from PIL import Image

from proactive_bench.dataset import timed_rows_dir
from proactive_bench.env import ClockRates, ToolRecord
from proactive_bench.suites.trainee import TEMPLATES, compose_scenario, default_names, play
from proactive_bench.suites.trainee.colleagues import rules_colleagues
from proactive_bench.suites.trainee.compose import Scenario, Task
from proactive_bench.suites.trainee.day_plan import oracle_steps
from proactive_bench.suites.trainee.figures import obtained_at
from proactive_bench.suites.trainee.files import docx_bytes, office_files_forgotten, xlsx_bytes
from proactive_bench.suites.trainee.loading import WEB, TraineeSettings, feedback_note, load_scenario, materialize, page_file
from proactive_bench.suites.trainee.model import DOMAINS, Npc
from proactive_bench.suites.trainee.pictures import bar_chart, forget_pictures, pictures_forgotten
from proactive_bench.suites.trainee.validity import scenario_problems
from tests.helpers.paths import DATA, REPO
from tests.helpers.trainee_pictures import IMAGE_TEMPLATES, by_template


def _task(scenario: Scenario, template: str, day: int = 1) -> Task:
    return next(t for t in scenario.days[day - 1].tasks if t.template == template)


def _replace(scenario: Scenario, task: Task, **draft: object) -> Scenario:
    """The scenario's first day only, ``task``'s draft updated."""
    first = scenario.days[0]
    changed = task.__class__(**{**task.__dict__, "draft": task.draft.model_copy(update=draft)})
    day = first.__class__(1, first.company, tuple(changed if t is task else t for t in first.tasks))
    return scenario.__class__(scenario.name, scenario.seed, scenario.count, (day,), scenario.password)


# --- domains and the default benchmark --------------------------------------------------------------------------------


def test_every_template_declares_one_of_the_papers_four_domains_and_each_domain_has_templates() -> None:
    assert {t.domain for t in TEMPLATES.values()} == set(DOMAINS)
    assert len(default_names()) == 50 and default_names()[:3] == ["s1-n2", "s2-n3", "s3-n4"]


# --- website monitoring -----------------------------------------------------------------------------------------------


def test_a_monitoring_page_is_reached_with_web_fetch_and_the_oracle_reads_it(tmp_path: Path) -> None:
    scenario = compose_scenario("s2-n2", templates=["site_monitor", "order_dip"])
    task = _task(scenario, "site_monitor")
    ((url, html),) = task.draft.pages.items()
    materialize(scenario, "none", tmp_path)
    assert (tmp_path / WEB / page_file(url)).read_text() == html
    assert yaml.safe_load((tmp_path / WEB / "index.yaml").read_text()) == {url: {"file": page_file(url)}}
    steps = oracle_steps(scenario, scenario.days[0], ClockRates())
    assert ("web_fetch", {"url": url}) in [(s.tool, s.args) for s in steps]
    (played,) = play(scenario, "reference")
    assert played.figures.checkpoint_score == 1.0 and played.failed == ()
    (passive,) = play(scenario, "passive")
    assert passive.verdicts[f"{task.key}.c1"] and not passive.verdicts[f"{task.key}.c3"]


def test_the_maintainer_is_told_the_reading_as_the_monitoring_page_shows_it() -> None:
    for seed in range(1, 9):
        task = compose_scenario(f"s{seed}-n2", templates=["site_monitor"]).days[0].tasks[0]
        (html,) = task.draft.pages.values()
        report = next(s for s in task.draft.reference if s.needs == ("k1",))
        assert report.args["text"].split(": ")[1].split(" (alert")[0] in html  # the reading the maintainer is told is the page's


# --- a task announced during a meeting -----------------------------------------------------------------------------------


@pytest.mark.parametrize("template", ["meeting_action", "standup_priority"])
def test_a_task_announced_in_a_meeting_is_released_only_once_the_meeting_has_started(template: str) -> None:
    scenario = compose_scenario("s3-n2", templates=[template])
    task = scenario.days[0].tasks[0]
    (clue,) = task.draft.clues
    assert clue.from_minute == task.start_minute
    colleagues = rules_colleagues(scenario)
    start = scenario.days[0].company.day_start + timedelta(minutes=task.start_minute)
    early = colleagues.reply(clue.holder, clue.question, [], start - timedelta(minutes=1))
    on_time = colleagues.reply(clue.holder, clue.question, [], start)
    assert early.released == () and on_time.released == (task.clue_id(1, clue),)
    (played,) = play(scenario, "reference")
    assert played.figures.checkpoint_score == 1.0


def test_asking_for_the_announcement_before_the_meeting_gets_nothing_and_acting_on_it_is_a_guess() -> None:
    scenario = compose_scenario("s3-n2", templates=["meeting_action", "order_dip"])
    task = _task(scenario, "meeting_action")
    wait, join, ask, act = task.draft.reference
    (on_time,) = play(scenario, "reference")
    (early,) = play(_replace(scenario, task, reference=(ask, wait, join, act)), "reference")
    assert (on_time.figures.clues_asked, on_time.figures.guesses) == (2, 0)  # the announcement and order_dip's alert level
    assert (early.figures.clues_asked, early.figures.guesses) == (1, 2)  # c2 and c3 acted on without the announcement


# --- one colleague holding clues of several tasks -------------------------------------------------------------------------


def test_a_shared_colleague_holds_clues_of_two_tasks_and_releases_each_only_to_its_own_question(tmp_path: Path) -> None:
    scenario = compose_scenario("s4-n2", 2, templates=["leave_cover", "deploy_window"])
    leave, deploy = _task(scenario, "leave_cover"), _task(scenario, "deploy_window")
    (hr,) = {n.handle for n in leave.draft.npcs if n.shared} & {n.handle for n in deploy.draft.npcs if n.shared}
    held = [c for c in rules_colleagues(scenario).clues if c.holder == hr and c.id.startswith("d1.")]
    assert len(held) == 2
    colleagues = rules_colleagues(scenario)
    morning = scenario.days[0].company.day_start
    for task in (leave, deploy):
        clue = next(c for c in task.draft.clues if c.holder == hr)
        assert colleagues.reply(hr, clue.question, [], morning).released == (task.clue_id(1, clue),)
    assert colleagues.reply(hr, "Who covers for whom, and who runs the releases?", [], morning).released == ()
    assert [n.handle for n in scenario.days[0].npcs].count(hr) == 1
    assert scenario_problems(scenario) == []
    materialize(scenario, "none", tmp_path)  # a contact once: day 2 does not seed the shared colleague again
    contacts = [yaml.safe_load((timed_rows_dir(tmp_path, f"day{d}") / "rows.yaml").read_text())["chat_contact"] for d in (1, 2)]
    assert hr in {c["handle"] for c in contacts[0]} and hr not in {c["handle"] for c in contacts[1]}
    assert [p.figures.checkpoint_score for p in play(scenario, "reference")] == [1.0, 1.0]


def test_a_colleague_declared_twice_without_being_shared_is_found() -> None:
    scenario = compose_scenario("s4-n2", templates=["leave_cover", "deploy_window"])
    leave, deploy = _task(scenario, "leave_cover"), _task(scenario, "deploy_window")
    engineer = next(n for n in deploy.draft.npcs if not n.shared)
    twin = Npc(**{**engineer.model_dump(), "role": "Support Agent"})
    found = scenario_problems(_replace(scenario, leave, npcs=(*leave.draft.npcs, twin)))
    assert f"two colleagues share the handle {engineer.handle}" in found, found


# --- image clues ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("template", by_template(IMAGE_TEMPLATES))
def test_an_image_clue_is_a_picture_that_spells_nothing_and_the_oracle_looks_at_it(template: str) -> None:
    scenario = compose_scenario("s5-n2", templates=[template])
    task = scenario.days[0].tasks[0]
    (clue,) = [c for c in task.draft.clues if c.in_image]
    picture = task.draft.files[clue.holder.removeprefix("file:")]
    assert isinstance(picture, bytes) and Image.open(io.BytesIO(picture)).format == "PNG"
    assert clue.value.encode() not in picture
    steps = oracle_steps(scenario, scenario.days[0], ClockRates())
    assert ("view_image", {"path": clue.holder.removeprefix("file:")}) in [(s.tool, s.args) for s in steps]


def test_a_picture_is_drawn_once_for_the_same_data_and_anew_for_other_data() -> None:
    with pictures_forgotten():  # the pictures other tests drew are kept again after it, not drawn anew by the next
        forget_pictures()
        drawn = bar_chart("Orders", ["Mon", "Tue"], [3, 5], "orders")
        assert bar_chart("Orders", ["Mon", "Tue"], [3, 5], "orders") is drawn  # kept
        assert bar_chart("Orders", ("Mon", "Tue"), [3, 5], "orders") == drawn  # the same data spelled otherwise: the same bytes
        assert bar_chart("Orders", ["Mon", "Tue"], [3.0, 5.0], "orders") != drawn  # 3.0 equals 3 but is written "3.0"
        forget_pictures()
        again = bar_chart("Orders", ["Mon", "Tue"], [3, 5], "orders")
        assert again is not drawn and again == drawn
        with pytest.MonkeyPatch.context() as patched:  # undone before the block ends, which keeps the pictures kept before
            patched.setattr("proactive_bench.suites.trainee.pictures.PICTURES_KEPT", 1)  # the least recently used is dropped
            bar_chart("Orders", ["Mon", "Tue"], [4, 5], "orders")
            assert bar_chart("Orders", ["Mon", "Tue"], [3, 5], "orders") is not again


def test_pictures_forgotten_for_a_block_are_kept_again_after_it() -> None:
    kept = bar_chart("Orders", ["Mon", "Tue"], [6, 7], "orders")
    with pictures_forgotten():
        anew = bar_chart("Orders", ["Mon", "Tue"], [6, 7], "orders")
        assert anew is not kept and anew == kept
        drawn = bar_chart("Orders", ["Mon", "Tue"], [8, 9], "orders")
    assert bar_chart("Orders", ["Mon", "Tue"], [6, 7], "orders") is anew  # kept (as drawn last), not drawn a third time
    assert bar_chart("Orders", ["Mon", "Tue"], [8, 9], "orders") is drawn


def test_an_office_file_is_built_once_for_the_same_data_and_anew_within_a_forgetting_block() -> None:
    sheets = {"Orders": [["day", "count"], ["Mon", 3]]}
    built = xlsx_bytes(sheets)
    assert xlsx_bytes({"Orders": [["day", "count"], ["Mon", 3]]}) is built  # kept
    assert xlsx_bytes({"Orders": [["day", "count"], ["Mon", 4]]}) != built
    assert xlsx_bytes({"Orders": [["day", "count"], ["Mon", True]]}) != xlsx_bytes(
        {"Orders": [["day", "count"], ["Mon", 1]]}
    )  # equal, written otherwise
    document = docx_bytes("Notes", ["one", "two"])
    with office_files_forgotten():
        anew = xlsx_bytes(sheets)
        assert anew is not built and anew == built
        assert docx_bytes("Notes", ["one", "two"]) == document
    assert xlsx_bytes(sheets) is anew  # kept (as built last)


def test_a_picture_read_as_text_is_not_looked_at_and_a_picture_that_spells_its_clue_is_found() -> None:
    scenario = compose_scenario("s5-n2", templates=["order_dip"])
    task = scenario.days[0].tasks[0]
    (clue,) = [c for c in task.draft.clues if c.in_image]
    path = clue.holder.removeprefix("file:")
    read = ToolRecord("read_file", {"path": path}, {"response": "\x89PNG..."}, True, seq=0)
    looked = ToolRecord("view_image", {"path": path}, {"response": {"path": path}}, True, seq=1)
    cid = task.clue_id(1, clue)
    assert cid not in obtained_at(scenario.days[0], [read], [])
    assert obtained_at(scenario.days[0], [read, looked], [])[cid].seq == 1
    spelled = _replace(scenario, task, files={**task.draft.files, path: b"\x89PNG" + clue.value.encode()})
    assert any("is written in its picture's bytes" in p for p in scenario_problems(spelled))


def test_a_guess_without_looking_at_the_picture_fails_and_counts_as_a_guess() -> None:
    scenario = compose_scenario("s6-n2", templates=["kiosk_siting"])
    (guessed,) = play(scenario, "guess")
    assert not all(guessed.verdicts.values()) and guessed.figures.guesses == guessed.figures.guessable > 0


def _blind(scenario: Scenario, task: Task) -> Scenario:
    """``task`` played by an agent that does everything the oracle does (asks every colleague, reads every other file, fetches
    every page) but never looks at a picture: where a step needs a picture's clue it acts on the template's guess."""
    drawn = {c.id for c in task.draft.clues if c.in_image}
    steps = []
    for step in task.draft.reference:
        if step.ask in drawn:
            continue
        if drawn & set(step.needs):
            if step.guess is not None:
                steps.append(step.model_copy(update={"args": step.guess}))
            continue
        steps.append(step)
    return _replace(scenario, task, reference=tuple(steps))


@pytest.mark.parametrize("template", by_template(IMAGE_TEMPLATES))
def test_an_agent_that_does_everything_but_look_at_the_picture_fails_what_the_picture_holds(template: str) -> None:
    """The cheapest cheat on an image clue: everything else read and asked, the picture's figure guessed from its file name
    and the task's texts. Each checkpoint that needs the picture fails, on every seed, and no picture's name or other text
    spells its clue (validate would say so); view_image returns no caption, only the picture's size. Paired checkpoints
    (every hot rack named / no cool rack named) may let a guess meet one of the two, never the task."""
    for seed in range(1, 6):
        scenario = compose_scenario(f"s{seed}-n2", templates=[template])
        assert scenario_problems(scenario) == [], (seed, scenario_problems(scenario))
        task = scenario.days[0].tasks[0]
        drawn = {c.id for c in task.draft.clues if c.in_image}
        (played,) = play(_blind(scenario, task), "reference")
        assert not any(r.startswith("view_image") for r in played.failed)
        needing = [c.id for c in task.draft.checkpoints if drawn & set(c.needs)]
        assert needing, template
        missed = [c for c in needing if not played.verdicts[f"{task.key}.{c}"]]
        assert missed, (seed, "every checkpoint that needs the picture passed without looking at it")
        assert played.figures.guesses >= len(missed)  # and acting without the picture counts as guessing


def test_a_picture_named_after_what_it_shows_is_a_leak() -> None:
    scenario = compose_scenario("s5-n2", templates=["rack_temperature"])
    task = scenario.days[0].tasks[0]
    (clue,) = [c for c in task.draft.clues if c.in_image]
    path = clue.holder.removeprefix("file:")
    named = f"{path.rsplit('/', 1)[0]}/{clue.value}.txt"
    leaky = _replace(scenario, task, files={**task.draft.files, named: "see the picture"})
    assert any(f"clue {clue.id}'s value {clue.value!r} shows without asking" in p for p in scenario_problems(leaky))


# --- guesses on a clue read from a file --------------------------------------------------------------------------------


def test_a_report_sent_in_chat_before_the_manual_is_read_is_a_guess() -> None:
    """report_filing's only needed clue is in a file: the chat message naming the report, sent before the manual was read,
    is judged on the chat rows sent before the read (cut at the first chat message after it) and counts as a guess."""
    scenario = compose_scenario("s8-n2", templates=["report_filing"])
    task = scenario.days[0].tasks[0]
    ask_lead, read_manual, write, tell = task.draft.reference
    assert read_manual.ask == "k1" and task.draft.clues[0].in_file and tell.tool == "chat__send_message"
    (early,) = play(_replace(scenario, task, reference=(ask_lead, tell, read_manual, write)), "reference")
    assert early.figures.checkpoint_score == 1.0  # the message named the right file: it passes, but it was a guess
    assert len(scenario.days[0].tasks) == 2 and all(t.template == "report_filing" for t in scenario.days[0].tasks)
    assert (early.figures.guessable, early.figures.guesses) == (4, 1)  # this task's c3 guessed; c1 (write_file) came after the read


def test_reading_the_manual_before_telling_the_lead_is_no_guess_though_the_lead_was_asked_first() -> None:
    """The reference asks the lead where the manual is (a chat message to the same colleague) before reading it: that
    question is not the report's message, and the message sent after the read is cut away."""
    scenario = compose_scenario("s8-n2", templates=["report_filing"])
    (played,) = play(scenario, "reference")
    assert played.figures.checkpoint_score == 1.0
    assert (played.figures.guessable, played.figures.guesses) == (4, 0)  # two report_filing tasks, c1 and c3 each


# --- daily feedback ---------------------------------------------------------------------------------------------------


def test_day_two_opens_with_each_missed_checkpoint_and_the_mentors_advice() -> None:
    scenario = compose_scenario("s7-n2", 2, templates=["site_monitor", "receipt_claim"])
    note = feedback_note(scenario)
    day1 = scenario.days[0]
    missed = {f"{t.key}.{c.id}": c.id != "c2" for t in day1.tasks for c in t.draft.checkpoints}
    text = note(load_scenario("s7-n2", TraineeSettings(days=2)).sessions[1], [missed])
    assert text is not None
    for task in day1.tasks:
        c2 = next(c for c in task.draft.checkpoints if c.id == "c2")
        assert f"- {task.key} ({task.draft.title}): not done: {c2.text}. {c2.feedback}" in text
    assert text.count("not done:") == len(day1.tasks)


# --- the statistics script --------------------------------------------------------------------------------------------


def _stats_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("suite_stats", REPO / "scripts" / "suite_stats.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    """The trainee section's figures, computed once (it composes every template over three seeds)."""
    return _stats_script().trainee_stats(DATA)


def test_the_stats_script_counts_domains_dependencies_images_and_web_from_what_templates_draw(
    figures: dict[str, Any], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stats = _stats_script()
    monkeypatch.setattr(stats, "SECTIONS", {"trainee": (lambda root: figures, stats.trainee_lines)})
    assert figures["templates"] == len(TEMPLATES) and sum(figures["by_domain"].values()) == len(TEMPLATES)
    assert set(figures["by_domain"]) == set(DOMAINS) and all(figures["by_domain"].values())
    assert {"site_monitor", "meeting_action", "standup_priority", "leave_cover"} <= set(figures["with_dependencies"])
    assert "transaction_audit" not in figures["with_dependencies"]
    assert set(IMAGE_TEMPLATES) <= set(figures["with_image_clues"]) and "meeting_attend" not in figures["with_image_clues"]
    assert {"site_monitor", "careers_page", "price_watch", "backup_check"} <= set(figures["with_web_pages"])
    assert "transaction_audit" not in figures["with_web_pages"]
    assert figures["default_scenarios"] == 50 and figures["tasks_per_scenario"] == {2: 10, 3: 10, 4: 10, 5: 10, 6: 10}
    assert stats.main(["--suite", "trainee"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Trainee-Bench\nmeta-task templates: 46 (paper 181)\n") and "with image clues: " in printed
    with pytest.raises(SystemExit) as unknown:
        stats.main(["--suite", "nosuch"])
    assert unknown.value.code == 2


def test_the_stats_script_tells_a_feature_from_its_absence() -> None:
    stats = _stats_script()
    draft = compose_scenario("s2-n2", templates=["transaction_audit"]).days[0].tasks[0].draft
    assert not stats.has_dependency(draft) and not stats.has_image_clue(draft)
    shared = draft.model_copy(update={"npcs": (draft.npcs[0].model_copy(update={"shared": True}), *draft.npcs[1:])})
    announced = draft.model_copy(update={"clues": (draft.clues[0].model_copy(update={"from_minute": 60}),)})
    assert stats.has_dependency(shared) and stats.has_dependency(announced)
    bystander = draft.model_copy(update={"npcs": (*draft.npcs[:1], draft.npcs[1].model_copy(update={"shared": True}))})
    assert not stats.has_dependency(bystander)  # a shared colleague who holds none of the task's clues links nothing


def test_the_suite_has_the_papers_shape_issue_38s_acceptance_figures(figures: dict[str, Any]) -> None:
    """Issue 38, item 2: at least 45 templates over the four domains, 10 with inter-task dependencies, 8 with image clues,
    website monitoring among them, 50 default scenarios."""
    assert figures["templates"] >= 45 and len([d for d, n in figures["by_domain"].items() if n]) == 4
    assert len(figures["with_dependencies"]) >= 10 and len(figures["with_image_clues"]) >= 8 and figures["with_web_pages"]
    assert figures["default_scenarios"] == 50
