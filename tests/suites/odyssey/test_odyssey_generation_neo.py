"""``pbench generate odyssey-neo``: a task and its 5-day history from an environment, against the stub server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from docx import Document

from proactive_bench.suites.odyssey.generation_neo import day_dates, spread, surf
from proactive_bench.suites.odyssey.task import Detail, OdysseyTask
from proactive_bench.testing import StubServer, prompt_text, structured_reply
from tests.helpers.cli import run_cli

ENV = {
    "id": "od_neo_allotment_letter",
    "user": {"name": "Marek Nowak", "role": "Secretary of a community allotment society."},
    "now": "2026-05-15T10:00:00",
    "apps": ["documents", "email"],
}
PLAN = {
    "surf": ["documents: the plot list", "email: the council's message"],
    "task": "A letter to plot holders.",
    "dialogue": "Day by day.",
}
DETAILS = [
    {"id": "d1", "text": "The letter is saved as letters/water_letter.docx.", "cue": "water_letter"},
    {"id": "d2", "text": "The water is switched off on Saturday 23 May.", "cue": "23 May"},
    {"id": "d3", "text": "Questions go to Ilse Brandt.", "cue": "Ilse Brandt"},
]
TASK = {
    "title": "Water shut-off letter",
    "description": "Write letters/water_letter.docx telling plot holders the water is off on 23 May; questions to Ilse Brandt.",
    "intent": "Could you write the letter to the plot holders about the water now?",
    "subtasks": ["Write the letter."],
    "details": DETAILS,
    "criteria": [
        {"checker": "file_contains", "args": {"path": "letters/water_letter.docx", "text": "23 May"}},
        {"checker": "file_contains", "args": {"path": "letters/water_letter.docx", "text": "Ilse Brandt"}},
    ],
    "reference": [
        {
            "tool": "docx_create",
            "args": {
                "path": "letters/water_letter.docx",
                "blocks": [{"type": "paragraph", "text": "Water off on 23 May; ask Ilse Brandt."}],
            },
            "details": ["d1", "d2", "d3"],
        },
        {"say": "The letter is in letters/water_letter.docx."},
    ],
}
SMALL_TALK = "The broad beans are finally up and the weather has been kind this week, so the site is busy every evening."


def day(memory: str) -> dict[str, Any]:
    """One day: the memory pieces named in the prompt's memory block said by the user, then plenty of small talk."""
    turns = [{"role": "user", "text": f"For the records: {memory}"}, {"role": "assistant", "text": "Noted."}]
    turns += [{"role": "user" if n % 2 == 0 else "assistant", "text": f"{SMALL_TALK} ({n})"} for n in range(12)]
    return {"turns": turns}


def verdict(passed: bool) -> dict[str, Any]:
    return {
        "realism": passed,
        "alignment": True,
        "coherence": True,
        "details_present": True,
        "missing_details": [],
        "passed": passed,
        "feedback": "",
    }


def scripted(task: Callable[[int], dict[str, Any]], verdicts: Callable[[int], dict[str, Any]]) -> Callable[[dict[str, Any]], Any]:
    """Answers by prompt: the plan, ``task(n)`` for the n-th task request, a day stating its memory block, ``verdicts(n)``."""
    counts = {"task": 0, "verifier": 0}

    def answer(body: dict[str, Any]) -> Any:
        text = prompt_text(body)
        if "You are the orchestrator" in text:
            return structured_reply(body, PLAN)
        if "You write one office task" in text:
            counts["task"] += 1
            return structured_reply(body, task(counts["task"]))
        if "You write one day" in text:
            block = text.split("Memory pieces to state today", 1)[1].split("## Earlier days", 1)[0]
            said = " ".join(line.split(": ", 1)[1] for line in block.splitlines() if line.startswith("- d"))
            return structured_reply(body, day(said or "nothing new today."))
        counts["verifier"] += 1
        return structured_reply(body, verdicts(counts["verifier"]))

    return answer


@pytest.fixture
def environment(tmp_path: Path) -> Path:
    folder = tmp_path / "env"
    (folder / "workspace" / "plots").mkdir(parents=True)
    (folder / "apps").mkdir()
    (folder / "environment.yaml").write_text(yaml.safe_dump(ENV))
    doc = Document()
    doc.add_paragraph("Plot 14: Kowalczyk. Plot 15: Adeyemi.")
    doc.save(str(folder / "workspace" / "plots" / "plot_list.docx"))
    (folder / "apps" / "gmail.yaml").write_text("gmail_thread:\n  - {id: 1, subject: Mains repair on Allotment Lane}\n")
    (folder / "apps" / "calendar.yaml").write_text("calendar_event: []\n")
    return folder


def generate(server: StubServer, environment: Path, out: Path, *more: str) -> Any:
    args = ("generate", "odyssey-neo", "--from", str(environment), "--model", "openai:gen", "--base-url", server.base_url)
    return run_cli(*args, "--out", str(out), *more)


def test_surfers_read_their_apps_part_of_the_environment(environment: Path) -> None:
    notes = surf(environment, ["documents", "email"])
    assert [(n.app, n.source) for n in notes] == [("documents", "plots/plot_list.docx"), ("email", "apps/gmail.yaml")]
    assert "Plot 14: Kowalczyk" in notes[0].text and "Mains repair" in notes[1].text  # the docx's text, not its bytes
    assert [n.source for n in surf(environment, ["calendar"])] == ["apps/calendar.yaml"]


def test_memory_is_spread_in_order_over_five_weekdays_before_the_task() -> None:
    details = [Detail(id=f"d{n}", text=f"fact {n}", cue=f"fact {n}") for n in range(7)]
    days = spread(details)
    assert len(days) == 5 and [d.id for day in days for d in day] == [d.id for d in details] and all(days)
    dates = day_dates(datetime(2026, 5, 18, 9))  # a Monday
    assert [d.isoformat() for d in dates] == ["2026-05-11", "2026-05-12", "2026-05-13", "2026-05-14", "2026-05-15"]


def test_a_neo_task_is_generated_in_four_phases_and_loads_as_a_neo_task(environment: Path, tmp_path: Path) -> None:
    leaky = {**TASK, "intent": "Write the letter about the water going off on 23 May."}
    answer = scripted(lambda n: leaky if n == 1 else TASK, lambda n: verdict(True))
    out = tmp_path / "gen"
    with StubServer(answer) as server:
        result = generate(server, environment, out)
        prompts = [prompt_text(body) for body in server.requests]
    assert result.exit_code == 0, result.output
    task_prompts = [p for p in prompts if "You write one office task" in p]
    assert len(task_prompts) == 2 and "detail d2: its cue /23 May/ matches the intent" in task_prompts[1]
    assert "Plot 14: Kowalczyk" in task_prompts[0] and "file_contains {path, text, mode?, absent?}" in task_prompts[0]
    day_prompts = [p for p in prompts if "You write one day" in p]
    assert len(day_prompts) == 5 and "For the records: The letter is saved" in day_prompts[1]  # day 2 sees day 1
    data = yaml.safe_load((out / "task.yaml").read_text())
    task = OdysseyTask.model_validate(data)
    assert task.split == "neo" and len(task.history) == 5 and task.distractors is not None
    assert len(task.days()) == 5 and sum(len(d.turns) for d in task.days()) >= 120
    assert all(d.found_in(task.history_text()) and not d.found_in(task.intent) for d in task.details)
    assert (out / "workspace" / "plots" / "plot_list.docx").is_file() and (out / "apps" / "gmail.yaml").is_file()
    report = yaml.safe_load((out / "generation.yaml").read_text())
    assert report["status"] == "approved" and report["generator"] == "homeragents-neo"
    assert [r["problems"] != [] for r in report["task_rounds"]] == [True, False]
    assert report["surfed"] == ["documents: plots/plot_list.docx", "email: apps/gmail.yaml"]
    assert report["planner"]["prompt_hash"] and report["verifier"]["prompt_hash"]


def test_a_rejected_history_writes_only_the_report(environment: Path, tmp_path: Path) -> None:
    out = tmp_path / "gen"
    with StubServer(scripted(lambda n: TASK, lambda n: verdict(False))) as server:
        result = generate(server, environment, out, "--max-rounds", "2")
    assert result.exit_code == 1 and "no task written" in result.output
    assert not (out / "task.yaml").exists() and not (out / "workspace").exists()
    report = yaml.safe_load((out / "generation.yaml").read_text())
    assert report["status"] == "rejected" and len(report["rounds"]) == 2 and len(report["last_attempt"]["days"]) == 5


def test_a_task_that_keeps_leaking_is_rejected_before_any_dialogue(environment: Path, tmp_path: Path) -> None:
    leaky = {**TASK, "intent": "Write the letter for Ilse Brandt."}
    with StubServer(scripted(lambda n: leaky, lambda n: verdict(True))) as server:
        result = generate(server, environment, tmp_path / "gen", "--max-rounds", "2")
        assert not [b for b in server.requests if "You write one day" in prompt_text(b)]
    assert result.exit_code == 1 and "no task without problems after 2 round(s)" in result.output


def test_an_environment_without_its_file_is_one_line(tmp_path: Path) -> None:
    result = run_cli("generate", "odyssey-neo", "--from", str(tmp_path), "--model", "openai:gen")
    assert result.exit_code == 2 and "no environment.yaml" in result.output
