"""Runs enforce validation: episode, sweep, resume and replay refuse data `pbench validate` rejects.

Each data defect of issue 22 part 5 is a one-line error naming file, field and
reason, from `validate` and from a run alike, and no run row is created.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import yaml
from typer.testing import Result

from tests.helpers.cli import run_cli


def _edit(path: Path, fn) -> None:
    data = yaml.safe_load(path.read_text())
    fn(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _episode(data: Path, db: Path, *extra: str) -> Result:
    return run_cli("episode", "--data", str(data), "--persona", "mini", "--model", "scripted:reference", "--db", str(db), *extra)


def _runs_in(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
        return con.execute("select count(*) from run").fetchone()[0] if "run" in tables else 0


def assert_one_line_failure(result: Result, code: int | None = None) -> str:
    """The command failed cleanly: no traceback, its last line an ``error:`` line; returns the output on one line."""
    assert isinstance(result.exception, SystemExit), f"traceback: {result.exception!r}\n{result.output}"
    assert result.exit_code != 0 if code is None else result.exit_code == code, result.output
    assert result.output.strip().splitlines()[-1].startswith("error:"), result.output
    return " ".join(result.output.split())


def _break_reference(mini: Path) -> None:
    _edit(mini / "episodes/mini/sessions/a2.yaml", lambda d: d["reference"][1]["args"].update(old="# Nope\n"))


EXPECTED_BREAK = "episodes/mini/sessions/a2.yaml: reference[1]: edit_file failed: 'old' occurs 0 times in out/weekly.md"


def test_episode_refuses_what_validate_rejects_with_the_same_message(mini_copy: Path, tmp_path: Path) -> None:
    _break_reference(mini_copy)
    validate = run_cli("validate", "--data", str(mini_copy))
    assert validate.exit_code == 1 and EXPECTED_BREAK in " ".join(validate.output.split())
    result = _episode(mini_copy, tmp_path / "r.db")
    assert EXPECTED_BREAK in assert_one_line_failure(result, 1)
    assert _runs_in(tmp_path / "r.db") == 0


def test_no_validate_runs_it_anyway(mini_copy: Path, tmp_path: Path) -> None:
    _break_reference(mini_copy)
    result = _episode(mini_copy, tmp_path / "r.db", "--no-validate", "--json")
    assert result.exit_code == 0, result.output
    assert _runs_in(tmp_path / "r.db") == 1


def test_only_the_sessions_that_run_are_held_to_the_checks(mini_copy: Path, tmp_path: Path) -> None:
    _break_reference(mini_copy)  # a2 is broken; a3 does not depend on it
    assert _episode(mini_copy, tmp_path / "r.db", "--sessions", "a3").exit_code == 0
    assert _episode(mini_copy, tmp_path / "r.db", "--sessions", "a2").exit_code == 1


def test_sweep_refuses_invalid_data_before_creating_rows(mini_copy: Path, tmp_path: Path) -> None:
    _break_reference(mini_copy)
    result = run_cli("sweep", "--models", "scripted:reference", "--data", str(mini_copy), "--db", str(tmp_path / "s.db"))
    assert EXPECTED_BREAK in assert_one_line_failure(result, 1)
    assert not (tmp_path / "s.db").exists()


@pytest.mark.parametrize("command", ["resume", "replay"])
def test_resume_and_replay_refuse_data_broken_since_the_run(mini_copy: Path, tmp_path: Path, command: str) -> None:
    first = _episode(mini_copy, tmp_path / "r.db", "--json")
    assert first.exit_code == 0, first.output
    run_id = next(line for line in first.stdout.splitlines() if '"run_id"' in line).split('"')[3]
    if command == "resume":  # a finished run is not resumed at all: this one was interrupted
        from proactive_bench.store import Store

        store = Store(tmp_path / "r.db")
        store.update(store.run(run_id), status="interrupted")  # type: ignore[arg-type]
    _break_reference(mini_copy)
    result = run_cli(command, run_id, "--db", str(tmp_path / "r.db"))
    assert EXPECTED_BREAK in assert_one_line_failure(result, 1)
    assert _runs_in(tmp_path / "r.db") == 1


def test_resume_of_a_sweep_refuses_data_broken_since_it_was_created(mini_copy: Path, tmp_path: Path) -> None:
    from proactive_bench.campaign.sweep import SweepConfig, create_sweep
    from proactive_bench.store import Store

    db = tmp_path / "s.db"
    sweep, runs = create_sweep(Store(db), SweepConfig(models=["scripted:reference"], data=mini_copy), tmp_path)  # killed before it ran
    _break_reference(mini_copy)
    result = run_cli("resume", sweep.id, "--db", str(db))
    assert EXPECTED_BREAK in assert_one_line_failure(result, 1)
    assert [r.status for r in Store(db).runs(sweep.id)] == ["created"]


def test_a_passed_episode_is_not_checked_again_until_its_content_changes(mini_copy: Path, tmp_path: Path) -> None:
    from proactive_bench.validation.admission import VALIDATED_DIR

    assert _episode(mini_copy, tmp_path / "r.db").exit_code == 0
    markers = list((tmp_path / VALIDATED_DIR).glob("*.ok"))
    assert len(markers) == 1
    _break_reference(mini_copy)  # a new digest: checked again, and refused
    assert _episode(mini_copy, tmp_path / "r.db").exit_code == 1
    assert list((tmp_path / VALIDATED_DIR).glob("*.ok")) == markers


def test_an_unknown_tool_group_is_one_error_at_load_time(mini_copy: Path, tmp_path: Path) -> None:
    _edit(mini_copy / "episodes/mini/sessions/a1.yaml", lambda d: d.update(tools=["workspace", "teleport"]))
    expected = "episodes/mini/sessions/a1.yaml: tools: unknown tool or tool group 'teleport'"
    validate = run_cli("validate", "--data", str(mini_copy))
    assert validate.exit_code == 1
    assert [line for line in validate.output.splitlines() if line.startswith("error ")] == [f"error {expected}"]
    for extra in ((), ("--no-validate",)):
        result = _episode(mini_copy, tmp_path / "r.db", *extra)
        assert expected in assert_one_line_failure(result)
    assert _runs_in(tmp_path / "r.db") == 0


def test_a_bad_app_seed_is_one_line_with_or_without_validation(mini_copy: Path, tmp_path: Path) -> None:
    (mini_copy / "episodes/mini/apps").mkdir()
    (mini_copy / "episodes/mini/apps/mail.yaml").write_text("gmail_teleport:\n  - {id: 1}\n")
    validate = run_cli("validate", "--data", str(mini_copy))
    assert validate.exit_code == 1 and "episodes/mini/apps: mail.yaml: gmail_teleport: unknown table" in validate.output
    refused = _episode(mini_copy, tmp_path / "r.db")
    assert "mail.yaml: gmail_teleport: unknown table" in assert_one_line_failure(refused, 1)
    assert _runs_in(tmp_path / "r.db") == 0
    unchecked = _episode(mini_copy, tmp_path / "r.db", "--no-validate")
    assert "mail.yaml: gmail_teleport: unknown table" in assert_one_line_failure(unchecked, 2)


@pytest.mark.parametrize(
    ("session", "breakage", "field", "reason"),
    [
        (
            "a1",
            lambda d: d["intents"][0]["evidence"]["file_matches"].update(path="../../etc/passwd"),
            "intents[0].evidence.file_matches.path",
            "'../../etc/passwd' climbs out of the workspace with '..'",
        ),
        (
            "a1",
            lambda d: d["intents"][0].update(evidence={"file_exists": "/etc/hostname"}),
            "intents[0].evidence.file_exists",
            "'/etc/hostname' is an absolute path",
        ),
        (
            "a2",
            lambda d: d["checklist"][0].update(check={"file_exists": "out/../../../etc/passwd"}),
            "checklist[0].check.file_exists",
            "'out/../../../etc/passwd' climbs out of the workspace",
        ),
        (
            "a1",
            lambda d: d["checklist"][2]["evidence"].update(files=["/etc/shadow"]),
            "checklist[2].evidence.files[0]",
            "'/etc/shadow' is an absolute path",
        ),
        ("a1", lambda d: d.update(files=["../secrets.txt"]), "files[0]", "'../secrets.txt' climbs out of the workspace"),
    ],
)
def test_paths_out_of_the_workspace_are_refused_at_load_time(
    mini_copy: Path, tmp_path: Path, session: str, breakage, field: str, reason: str
) -> None:
    _edit(mini_copy / f"episodes/mini/sessions/{session}.yaml", breakage)
    expected = f"episodes/mini/sessions/{session}.yaml: {field}: {reason}"
    validate = run_cli("validate", "--data", str(mini_copy))
    assert validate.exit_code == 1 and expected in " ".join(validate.output.split())
    result = _episode(mini_copy, tmp_path / "r.db", "--no-validate")  # refused by the schema, whatever the flag
    assert expected in assert_one_line_failure(result)
    assert _runs_in(tmp_path / "r.db") == 0


def test_duplicate_yaml_keys_name_file_line_and_key(mini_copy: Path, tmp_path: Path) -> None:
    path = mini_copy / "episodes/mini/sessions/a3.yaml"
    path.write_text(path.read_text() + "title: A second title\n")
    line = len(path.read_text().splitlines())
    validate = run_cli("validate", "--data", str(mini_copy))
    expected = f"episodes/mini/sessions/a3.yaml: line {line}, column 1: invalid YAML: duplicate key 'title' (first on line 2)"
    assert validate.exit_code == 1 and expected in validate.output
    assert expected in assert_one_line_failure(_episode(mini_copy, tmp_path / "r.db", "--no-validate"))


def test_nested_duplicate_keys_are_refused_too(mini_copy: Path) -> None:
    path = mini_copy / "episodes/mini/sessions/a2.yaml"
    path.write_text(path.read_text().replace("trigger: {type: event,", "trigger: {type: event, type: user,"))
    result = run_cli("validate", "--data", str(mini_copy))
    assert result.exit_code == 1 and "duplicate key 'type'" in result.output


@pytest.mark.parametrize("persona", ["../mini/episodes/mini", "/etc", "mini/../mini"])
def test_a_persona_name_is_an_id_not_a_path(mini_copy: Path, tmp_path: Path, persona: str) -> None:
    result = run_cli(
        "episode", "--data", str(mini_copy), "--persona", persona, "--model", "scripted:reference", "--db", str(tmp_path / "r.db")
    )
    assert f"{persona!r} is not a persona id" in assert_one_line_failure(result, 2)


def test_an_episode_naming_a_persona_path_is_refused(mini_copy: Path) -> None:
    _edit(mini_copy / "episodes/mini/episode.yaml", lambda d: d.update(persona="../episodes/mini/episode"))
    result = run_cli("validate", "--data", str(mini_copy))
    assert result.exit_code == 1 and "episodes/mini/episode.yaml: persona: String should match pattern" in result.output
