"""`pbench validate` passes on good data and names file, field and reason on broken copies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conftest import REPO, run_cli


def _edit(path: Path, fn) -> None:  # noqa: ANN001
    data = yaml.safe_load(path.read_text())
    fn(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def test_mini_dataset_validates(mini_copy: Path) -> None:
    result = run_cli("validate", "--data", str(mini_copy), "--strict")
    assert result.exit_code == 0, result.output
    assert "ok: 1 episode(s), 0 warning(s)" in result.output


@pytest.mark.skipif(not (REPO / "episodes" / "pharmacist").is_dir(), reason="shipped data not present")
def test_shipped_dataset_validates() -> None:
    result = run_cli("validate", "--stats")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("session", "breakage", "expected"),
    [
        ("a1", lambda d: d["trigger"].update(message=d["trigger"]["message"] + " Please give the values in mg/L."),
         "episodes/mini/sessions/a1.yaml: intents[0]: the intent is stated in the initial request"),
        ("a1", lambda d: d["intents"][1].update(ask=["\\bzzz\\b"]),
         "episodes/mini/sessions/a1.yaml: intents[1].ask: no ask regex matches the intent's own example question"),
        ("a1", lambda d: d["intents"][1].update(ask=["mean", "preferences"]),
         "episodes/mini/sessions/a1.yaml: intents[1].ask: an ask regex matches the generic question 'Do you have any other preferences?'"),
        ("a1", lambda d: d["checklist"][1]["check"].update(python="graders.mini.checks:nope"),
         "episodes/mini/sessions/a1.yaml: checklist[1].check: 'graders.mini.checks:nope': graders/mini/checks.py has no function 'nope'"),
        ("a2", lambda d: d["checklist"][0].update(check={"file_exists": "out/missing.md"}),
         "episodes/mini/sessions/a2.yaml: checklist[0].check: 'out/missing.md' matches no seed file and no file a reference solution writes"),
        ("a3", lambda d: d.update(checklist=[]),
         "episodes/mini/sessions/a3.yaml: checklist: a session needs at least one checklist item"),
        ("a3", lambda d: d.update(intents=[], reference=[d["reference"][0]], checklist=d["checklist"][:1]),
         "episodes/mini/sessions/a3.yaml: intents: a session needs at least one hidden intent"),
        ("a1", lambda d: d["intents"][0].update(evidence={"file_exists": "notes/batch.csv"}),
         "episodes/mini/sessions/a1.yaml: intents[0].evidence: already holds before the session starts (seed plus earlier reference solutions)"),
        ("a2", lambda d: d["intents"][0].update(evidence={"file_matches": {"path": "out/summary.md", "pattern": "mg/L"}}),
         "episodes/mini/sessions/a2.yaml: intents[0].evidence: already holds before the session starts"),
        ("a2", lambda d: d["reference"].pop(1),
         "episodes/mini/sessions/a2.yaml: intents[0].evidence: the reference solution does not satisfy it"),
        ("a2", lambda d: d["reference"][1]["args"].update(old="# Nope\n"),
         "episodes/mini/sessions/a2.yaml: reference[1]: edit_file failed: 'old' occurs 0 times in out/weekly.md"),
        ("a3", lambda d: d["checklist"].append({"id": "c9", "text": "t", "grader": "rule", "check": {"python": "graders.mini.checks:explode"}}),
         "episodes/mini/sessions/a3.yaml: checklist[2].check: cannot be evaluated: RuntimeError('grader bug')"),
        ("a3", lambda d: d.update(tools=["workspace", "teleport"]),
         "episodes/mini/sessions/a3.yaml: tools: unknown tool or tool group 'teleport'"),
    ],
)
def test_broken_copy_fails_precisely(mini_copy: Path, session: str, breakage, expected: str) -> None:  # noqa: ANN001
    _edit(mini_copy / f"episodes/mini/sessions/{session}.yaml", breakage)
    result = run_cli("validate", "--data", str(mini_copy))
    assert result.exit_code == 1
    assert expected in " ".join(result.output.split())


def test_schema_errors_are_reported_without_traceback(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a2.yaml", lambda d: d["trigger"].update(type="telepathy"))
    result = run_cli("validate", "--data", str(mini_copy))
    assert result.exit_code == 1
    assert "episodes/mini/sessions/a2.yaml: trigger.type: Input should be 'user' or 'event'" in result.output
    assert "Traceback" not in result.output


def test_schema_command_prints_json_schema() -> None:
    result = run_cli("schema")
    schema = json.loads(result.stdout)
    assert {"Persona", "Episode", "Session", "HiddenIntent", "ChecklistItem"} <= set(schema["$defs"])


def test_rules_user_refuses_unannotated_intents_up_front(mini_copy: Path, tmp_path: Path) -> None:
    session = mini_copy / "episodes" / "mini" / "sessions" / "a3.yaml"
    text = session.read_text().replace('    ask: ["memory", "remember"]\n', "")
    session.write_text(text)
    result = run_cli("episode", "--data", str(mini_copy), "--persona", "mini", "--model", "scripted:passive", "--db", str(tmp_path / "x.db"))
    assert result.exit_code == 2
    assert "a3/memo" in result.output and "--user llm" in result.output


def test_a_loose_ask_cue_is_reported_with_an_off_target_question(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", lambda d: d["intents"][1].update(ask=["\\bmean\\b", "\\bcopy\\b"]))
    result = run_cli("validate", "--data", str(mini_copy))
    assert result.exit_code == 0, result.output
    line = next(l for l in result.output.splitlines() if "intents[1].ask[1]" in l)
    assert line.startswith("warning episodes/mini/sessions/a1.yaml: intents[1].ask[1]: fires on ")
    assert "off-target question(s), e.g. 'Should I copy" in line and "not about mean" in line
    assert "intents[1].ask[0]" not in result.output  # the focused cue is not reported


def test_evidence_a_keyword_stuffed_file_satisfies_is_reported(mini_copy: Path) -> None:
    """A bare search for a word of the request in a file the agent writes anyway proves nothing."""
    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", lambda d: d["intents"][1].update(evidence={"file_matches": {"path": "out/summary.md", "pattern": "batch"}}))
    result = run_cli("validate", "--data", str(mini_copy))
    assert (
        "warning episodes/mini/sessions/a1.yaml: intents[1].evidence: holds on files stuffed with the request's and the workspace's words"
        in result.output
    )
    assert "intents[0].evidence" not in result.output  # mg/L is written by the work, not found in the inputs
