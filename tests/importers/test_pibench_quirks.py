"""Known quirks of π-Bench's source data: the import repairs or reports them, validates its output, and baselines say what they need."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from proactive_bench.dataset.loading import load_dataset
from proactive_bench.testing.stub_server import StubServer
from tests.helpers.cli import run_cli
from tests.importers.test_pibench_import import PIBENCH_MINI, FakeModels

TASKS = Path("data") / "researcher" / "tasks"


def edit_task(source: Path, task: str, change: callable) -> None:  # type: ignore[valid-type]
    path = source / TASKS / task / "task.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")


@pytest.fixture()
def source(tmp_path: Path) -> Path:
    copy = tmp_path / "pibench"
    shutil.copytree(PIBENCH_MINI, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_quirks_are_repaired_with_a_report_line_and_the_output_validates(source: Path, tmp_path: Path) -> None:
    def repeat_request(data: dict) -> None:
        data["intent"]["hidden_intent"].append({"content": data["intent"]["initial_input"].strip()})

    edit_task(source, "researcher_task_020", lambda d: d["trigger"].update(type="Environment"))
    edit_task(source, "researcher_task_006", repeat_request)
    edit_task(source, "researcher_task_014", lambda d: d.update(task_type="val"))
    edit_task(source, "researcher_task_006", lambda d: d["metadata"].update(category="k"))  # a release that gives the category
    edit_task(source, "researcher_task_008", lambda d: d.update(category="Research"))  # not one of A-R
    out = tmp_path / "out"
    result = run_cli("import", "pibench", str(source), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "validate: ok" in result.output
    dataset = load_dataset(out)
    sessions = {s.id: s for s in dataset.episodes["researcher"].sessions}
    assert sessions["researcher_task_020"].trigger.type == "event"  # an environment push, not a user message
    original = yaml.safe_load((PIBENCH_MINI / TASKS / "researcher_task_006" / "task.yaml").read_text(encoding="utf-8"))
    assert len(sessions["researcher_task_006"].intents) == len(original["intent"]["hidden_intent"])  # the repeat is left out
    report = (out / "IMPORT_REPORT.md").read_text(encoding="utf-8")
    assert "repeats the initial request word for word; left out" in report
    assert "unknown task type 'val'" in report
    assert [sessions[t].category for t in ("researcher_task_006", "researcher_task_008", "researcher_task_014")] == [
        "K",
        "unavailable",
        "unavailable",
    ]
    assert "'Research' is not one of the paper's categories A-R" in report
    assert "π-Bench hidden intents" in report and "| total |" in report


def test_an_output_that_validate_rejects_fails_the_import(source: Path, tmp_path: Path) -> None:
    def only_the_request(data: dict) -> None:
        data["intent"]["hidden_intent"] = [{"content": data["intent"]["initial_input"].strip()}]

    edit_task(source, "researcher_task_006", only_the_request)  # nothing else to keep: the session stays and validate says why
    result = run_cli("import", "pibench", str(source), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "`pbench validate` rejects it" in result.output and "stated in the initial request" in result.output
    assert "Run it with" not in result.output


def test_baselines_that_need_a_reference_solution_refuse_imported_data_and_passive_runs(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("import", "pibench", str(source), "--out", str(out)).exit_code == 0
    common = [
        "--data",
        str(out),
        "--persona",
        "researcher",
        "--user",
        "llm",
        "--user-model",
        "openai:stub-user",
        "--db",
        str(tmp_path / "r.db"),
    ]
    refused = run_cli("episode", *common, "--model", "scripted:reference")
    assert refused.exit_code == 2 and "baselines that work without one: scripted:passive" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    with StubServer(FakeModels()) as server:
        passive = run_cli(
            "episode", "--json", *common, "--model", "scripted:passive", "--sessions", "researcher_task_006", "--base-url", server.base_url
        )
    assert passive.exit_code == 0, passive.output
    (session,) = json.loads(passive.stdout)["sessions"]
    assert session["status"] == "completed" and session["proc"] == 0.0
