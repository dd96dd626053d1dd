"""Odyssey tasks: the format's one-line errors, the conversion into a one-session episode, and validate's solvability checks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proactive_bench.dataset import DatasetError
from proactive_bench.suites import SUITES, SuiteContext, suite_settings_problem
from tests.helpers.cli import edit_yaml, run_cli
from tests.helpers.paths import ODYSSEY_MINI

EMAIL_TASK = "od_test_email_supplier"
MEETING_TASK = "od_test_vendor_meeting"
MEMO_TASK = "od_test_vendor_memo"
SUITE = SUITES.get("odyssey")


@pytest.fixture
def odyssey_copy(tmp_path: Path) -> Path:
    shutil.copytree(ODYSSEY_MINI, tmp_path / "od")
    return tmp_path / "od"


def task_yaml(root: Path, task: str = EMAIL_TASK) -> Path:
    return root / "odyssey" / task / "task.yaml"


def load_problems(root: Path, task: str = EMAIL_TASK) -> list[str]:
    with pytest.raises(DatasetError) as caught:
        SUITE.load(root, task, SuiteContext())
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.pop("intent"), "odyssey/od_test_email_supplier/task.yaml: intent: Field required"),
        (lambda d: d.update(apps=["email", "fax"]), "apps[1]: Input should be"),
        (lambda d: d.update(apps=["email", "pdf", "calendar", "documents"]), "apps: List should have at most 3 items"),
        (lambda d: d.update(history=d["history"][:4]), "history: List should have at least 5 items"),
        (lambda d: d["history"][2].update(date="2025-04-04"), "history[2].date: 2025-04-04 does not come after 2025-04-05"),
        (lambda d: d["criteria"].append({"checker": "file_smells_right", "args": {}}), "criteria[1]: unknown checker 'file_smells_right'"),
        (lambda d: d["criteria"][0]["args"].update(to="x"), "criteria[0]: email_sent: to: String should have at least 3 characters"),
        (lambda d: d["criteria"][0]["args"].update(bcc="a@b.example"), "criteria[0]: email_sent: bcc: unknown argument"),
        (lambda d: d["reference"][1].update(details=["d9"]), "task.yaml: reference[1].details: unknown detail ids ['d9']"),
        (lambda d: d["details"][0].update(cue="(unclosed"), "details[0].cue: invalid regular expression"),
        (lambda d: d.update(id="od_other"), "id: is 'od_other' but the folder is named 'od_test_email_supplier'"),
        (lambda d: d.update(colour="blue"), "colour: unknown field"),
        (
            lambda d: d["reference"].insert(0, {"tool": "calendar__create_event", "args": {}}),
            "reference[0].tool: 'calendar__create_event' is not among the tools the task offers",
        ),
    ],
)
def test_format_errors_name_file_field_and_reason(odyssey_copy: Path, change, expected: str) -> None:
    edit_yaml(task_yaml(odyssey_copy), change)
    problems = load_problems(odyssey_copy)
    assert any(expected in p for p in problems), problems
    assert all("\n" not in p for p in problems)


def test_a_broken_yaml_file_is_one_line(odyssey_copy: Path) -> None:
    task_yaml(odyssey_copy).write_text("id: [unclosed\n")
    assert load_problems(odyssey_copy)[0].startswith("odyssey/od_test_email_supplier/task.yaml: line ")


def test_unknown_task_names_the_known_ones(odyssey_copy: Path) -> None:
    assert load_problems(odyssey_copy, "od_nope") == [
        f"odyssey/od_nope/task.yaml: no such task; tasks here: {EMAIL_TASK}, {MEETING_TASK}, {MEMO_TASK}"
    ]


def test_a_task_is_one_session_with_the_intent_after_the_history() -> None:
    loaded = SUITE.load(ODYSSEY_MINI, MEETING_TASK, SuiteContext())
    (session,) = loaded.sessions
    assert loaded.suite == "odyssey" and loaded.persona.id == MEETING_TASK and loaded.persona.name == "Dana Whitfield"
    assert [e.id for e in loaded.episode.sessions] == [MEETING_TASK] and loaded.directory == (
        ODYSSEY_MINI / "odyssey" / MEETING_TASK
    ).resolve()
    message = session.trigger.message
    assert message.index("## 2025-03-06") < message.index("## 2025-03-13") < message.index("Task: Put the vendor review")
    assert "priya@larkspur.example" in message  # long-context: the whole history
    assert session.intents == [] and str(session.now) == "2025-03-14 09:00:00"
    assert [c.id for c in session.checklist] == ["c1", "c2", "c3"] and all(c.grader == "rule" for c in session.checklist)
    assert session.checklist[0].text == "the calendar has an event titled 'vendor review'"
    assert session.checklist[0].check.checker.name == "calendar_event"
    assert [s.from_history for s in session.reference] == [True, False, True, False]
    assert session.tools == ["workspace", "calendar", "gmail"]
    assert loaded.memory_tokens and loaded.memory_tokens > 100 and loaded.history is None


def test_memory_none_gives_the_intent_alone_and_rag_gives_retrieved_passages_and_the_search_tool() -> None:
    bare = SUITE.load(ODYSSEY_MINI, MEETING_TASK, SuiteContext.of({"memory": "none"}))
    assert bare.sessions[0].trigger.message.startswith("Put the vendor review") and bare.memory_tokens == 0
    rag = SUITE.load(ODYSSEY_MINI, MEETING_TASK, SuiteContext.of({"memory": "rag:raw-utterance", "top_k": 2}))
    message = rag.sessions[0].trigger.message
    assert message.startswith("Passages retrieved") and message.count("\n[2025-") + message.startswith("[") <= 2
    assert "history" in rag.sessions[0].tools and rag.history is not None
    assert "back office" in rag.history.search("back office", 1)[0][1]
    assert 0 < rag.memory_tokens < SUITE.load(ODYSSEY_MINI, MEETING_TASK, SuiteContext()).memory_tokens


def test_summary_settings_are_refused_without_a_summary_model() -> None:
    assert "needs --summary-model" in (suite_settings_problem("odyssey", {"memory": "rag:summary-chunk"}) or "")
    assert "only with a rag: memory setting" in (suite_settings_problem("odyssey", {"memory": "long-context", "top_k": 3}) or "")
    assert suite_settings_problem("pibench", {"memory": "none"}) == "--memory applies to the odyssey suite only, not personas"


def test_validate_reports_an_unsolvable_detail_and_a_leaking_intent(odyssey_copy: Path) -> None:
    def unsolvable(data: dict) -> None:
        data["details"][1]["cue"] = "40 boxes"  # the history never says it

    def leaking(data: dict) -> None:
        data["intent"] = "E-mail orders@borealmed.example the glove reorder with the quantity."

    edit_yaml(task_yaml(odyssey_copy), unsolvable)
    edit_yaml(task_yaml(odyssey_copy, MEETING_TASK), lambda d: d.update(intent="Book the review with priya@larkspur.example and tell her."))
    result = run_cli("validate", "--data", str(odyssey_copy), "--json")
    assert result.exit_code == 1
    reasons = {(p["file"], p["field"]): p["reason"] for p in json.loads(result.stdout)["problems"]}
    assert "cannot be found (unsolvable)" in reasons[(f"odyssey/{EMAIL_TASK}/task.yaml", "details[1].cue")]
    assert "leaks into the task instruction" in reasons[(f"odyssey/{MEETING_TASK}/task.yaml", "details[0].cue")]
    edit_yaml(task_yaml(odyssey_copy), leaking)
    result = run_cli("validate", "--data", str(odyssey_copy))
    assert "details[0].cue" in result.output and "leaks" in result.output


def test_validate_oracle_holds_reference_and_surface_to_the_bar(odyssey_copy: Path) -> None:
    result = run_cli("validate", "--data", str(ODYSSEY_MINI), "--oracle", "--json")
    assert result.exit_code == 0, result.output
    outcomes = {(o["persona"], o["model"]): o["ok"] for o in json.loads(result.stdout)["oracle"]}
    assert outcomes == {(t, m): True for t in (EMAIL_TASK, MEETING_TASK, MEMO_TASK) for m in ("scripted:reference", "scripted:surface")}
    # a reference step without its history marker: surface now solves the task, and the oracle says so
    edit_yaml(task_yaml(odyssey_copy), lambda d: [step.pop("details", None) for step in d["reference"]])
    result = run_cli("validate", "--data", str(odyssey_copy), "--oracle")
    assert result.exit_code == 1 and "oracle scripted:surface" in result.output and "passes every rule item" in result.output
