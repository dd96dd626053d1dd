"""Timed app events: rows that appear when their session starts, and event triggers rendered from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proactive_bench.dataset.loading import load_episode, load_episode_partly
from proactive_bench.store import MessageRow, Store
from tests.helpers.cli import edit_yaml as _edit, run_cli, run_episode_json
from tests.helpers.paths import EXAMPLE

S2 = "episodes/lab_manager/sessions/s2_pfa_backorder.yaml"


def test_a_session_two_email_is_absent_in_session_one(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    out = run_episode_json("--data", str(EXAMPLE), "--persona", "lab_manager", "--model", "scripted:reference", "--db", str(db))
    store = Store(db)
    runs = {sr.session_id: sr for sr in store.session_runs(out["run_id"])}
    mail = {sid: [e["id"] for e in store.snapshot(sr.id, "apps").get("gmail_email", [])] for sid, sr in runs.items()}  # type: ignore[union-attr]
    assert 2001 not in mail["s1_week12_order"]
    assert 2001 in mail["s2_pfa_backorder"] and 2001 in mail["s3_week13_order"]
    opening = store.rows(MessageRow, runs["s2_pfa_backorder"].id)[0]
    assert opening.role == "event" and "Paraformaldehyde 4% is backordered until 2 April" in opening.content


def test_the_trigger_is_rendered_from_the_row_written_once() -> None:
    session = load_episode(EXAMPLE, "lab_manager").session("s2_pfa_backorder")
    message = session.trigger.message
    assert message.startswith(
        "New e-mail from ChemDirect Orders <orders@chemdirect.example>\nSubject: Backorder: paraformaldehyde 4% (order W12)"
    )
    assert "concentrate (1 pack of 10 ampoules)" in message
    assert "10 ampoules" not in (EXAMPLE / S2).read_text()  # the text lives only in the app row


def test_without_a_template_every_column_is_listed(example_copy: Path) -> None:
    _edit(example_copy / S2, lambda d: d["trigger"].pop("message"))
    message = load_episode(example_copy, "lab_manager").session("s2_pfa_backorder").trigger.message
    assert "sender_email: orders@chemdirect.example" in message and "subject: Backorder" in message


@pytest.mark.parametrize(
    ("breakage", "expected"),
    [
        (lambda t: t["row"].update(id=9999), "trigger.row: no gmail_email row with id 9999 in apps/s2_pfa_backorder/*.yaml"),
        (lambda t: t["row"].update(table="gmail_pigeon"), "trigger.row: unknown app table 'gmail_pigeon'"),
        (lambda t: t.update(message="From {colour}"), "trigger.row: the row of gmail_email has no column 'colour'"),
        (lambda t: t.update(message="From {sender_name"), "trigger.row: the message is not a valid template"),
        (lambda t: t.update(message="From {sender_name:>{width}}"), "trigger.row: the message is not a valid template"),
        (
            lambda t: t.update(message="From {sender_name.__class__}"),
            "trigger.row: the row of gmail_email has no column 'sender_name.__class__'",
        ),
        (lambda t: t.update(type="user"), "trigger: 'row' goes with type: event"),
    ],
)
def test_bad_trigger_rows_are_one_line_load_errors(example_copy: Path, breakage, expected: str) -> None:
    _edit(example_copy / S2, lambda d: breakage(d["trigger"]))
    loaded, problems = load_episode_partly(example_copy, "lab_manager")
    assert loaded is not None and len(problems) == 1 and str(problems[0]).startswith(f"{S2}: {expected}")
    result = run_cli("validate", "--data", str(example_copy))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert expected in " ".join(result.output.split())


def test_a_timed_row_that_clashes_with_the_seed_is_named_by_its_session(example_copy: Path) -> None:
    clash = example_copy / "episodes/lab_manager/apps/s2_pfa_backorder/clash.yaml"
    clash.write_text("gmail_account:\n  - {id: 1, name: Someone, email: someone@example.org, password: pw}\n")
    result = run_cli("validate", "--data", str(example_copy))
    assert result.exit_code == 1
    assert "error episodes/lab_manager/apps/s2_pfa_backorder: clash.yaml: gmail_account[0]: UNIQUE constraint failed" in " ".join(
        result.output.split()
    )
    assert "s3_week13_order.yaml: reference: not replayed: it depends on s2_pfa_backorder" in " ".join(result.output.split())


def test_rows_added_count_from_the_session_start_in_runs_and_rescoring(tmp_path: Path) -> None:
    """s2's "exactly one new task" item: passes for the reference, in the run and when re-graded from the store."""
    db = tmp_path / "runs.db"
    out = run_episode_json("--data", str(EXAMPLE), "--persona", "lab_manager", "--model", "scripted:reference", "--db", str(db))
    again = run_cli("rescore", out["run_id"], "--db", str(db), "--json")
    assert again.exit_code == 0, again.output
    for result in (out, json.loads(again.stdout)):
        s2 = next(s for s in result["sessions"] if s["session_id"] == "s2_pfa_backorder")
        assert s2["comp"] == 1.0
