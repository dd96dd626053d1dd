"""Everything of a run lands in SQLite: messages, tool calls, intent events, grades, snapshots."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError

from proactive_bench.store import (
    Grade,
    IntentEvent,
    LLMCall,
    MessageRow,
    Run,
    SessionRun,
    Snapshot,
    Store,
    ToolCallRow,
    pending_row,
)
from tests.helpers.cli import run_episode_json, run_python
from tests.helpers.paths import MINI


def test_passive_run_is_fully_recorded(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    out = run_episode_json("--persona", "mini", "--model", "scripted:passive", "--data", str(MINI), "--db", str(db))
    store = Store(db)
    run = store.run(out["run_id"])
    assert run is not None and run.status == "finished" and run.model == "scripted:passive"
    sruns = store.session_runs(run.id)
    assert [s.session_id for s in sruns] == ["a1", "a2", "a3"]
    a1 = sruns[0]
    roles = [m.role for m in store.rows(MessageRow, a1.id)]
    assert roles == ["user", "agent", "user", "agent", "user", "agent"]
    events = store.rows(IntentEvent, a1.id)
    assert {(e.intent_id, e.status, e.decided_by) for e in events} == {("units", "provided", "rules"), ("mean", "provided", "rules")}
    calls = store.rows(ToolCallRow, a1.id)
    assert [c.tool_name for c in calls] == ["read_file", "write_file", "edit_file", "edit_file"]
    assert all(c.ok for c in calls) and calls[1].call["path"] == "out/summary.md"
    grades = {g.item_id: (g.score, g.error) for g in store.rows(Grade, a1.id)}
    assert grades == {"c1": (1, None), "c2": (1, None), "c3": (None, None)}
    kinds = {s.kind for s in store.rows(Snapshot, a1.id)}
    assert kinds == {"workspace", "memory", "apps", "burden", "apps_start"}
    a2 = sruns[1]
    assert store.rows(MessageRow, a2.id)[0].role == "event"
    workspace = store.snapshot(a1.id, "workspace")  # the first snapshot is whole, later ones are deltas
    assert workspace is not None and "mg/L" in workspace["out/summary.md"]["text"]
    assert store.latest_snapshot(run.id, "memory") == {"meetings": "prefers morning meetings"}


def test_errored_grader_is_recorded_not_passed(tmp_path: Path, mini_copy: Path) -> None:
    session_file = mini_copy / "episodes/mini/sessions/a3.yaml"
    session_file.write_text(
        session_file.read_text().replace(
            "checklist:\n", 'checklist:\n  - {id: c3, text: Broken, grader: rule, check: {python: "graders.mini.checks:explode"}}\n'
        )
    )
    out = run_episode_json(
        "--persona",
        "mini",
        "--model",
        "scripted:reference",
        "--data",
        str(mini_copy),
        "--db",
        str(tmp_path / "g.db"),
        "--sessions",
        "a3",
        "--no-validate",
    )
    (a3,) = out["sessions"]
    assert a3["comp_basis"] == {"graders": ["rule"], "graded_items": 2, "ungraded_items": 0, "errored_items": 1}
    grades = {g.item_id: g for g in Store(tmp_path / "g.db").rows(Grade, Store(tmp_path / "g.db").session_runs(out["run_id"])[0].id)}
    assert grades["c3"].score is None and "grader bug" in (grades["c3"].error or "")


def test_workspace_persists_across_sessions(tmp_path: Path) -> None:
    out = run_episode_json("--persona", "mini", "--model", "scripted:reference", "--data", str(MINI), "--db", str(tmp_path / "w.db"))
    workspace = Path(Store(tmp_path / "w.db").run(out["run_id"]).workspace)
    assert (workspace / "out/summary.md").is_file() and (workspace / "out/weekly.md").is_file()
    assert (workspace / "notes/batch.csv").is_file()


def test_a_session_is_saved_with_its_rows_and_pending_rows_take_the_models_defaults(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    run = Run(persona="p", model="m", user_backend="rules", data_root=".", workspace=".")
    store.add(run)
    session_run = SessionRun(run_id=run.id, session_id="a1", position=1, status="completed")
    call = pending_row(LLMCall, run_id=run.id, role="agent", purpose="reply", model="m", method="text", ok=True, attempt=1, latency_ms=5.0)
    store.save_session(session_run, [pending_row(MessageRow, turn=0, role="user", content="hi"), call], {})
    assert session_run.id is not None and [s.status for s in store.session_runs(run.id)] == ["completed"]
    (saved,) = store.llm_calls(run.id)
    assert saved.session_run_id == session_run.id and saved.cached is False and saved.created is not None
    assert [m.content for m in store.rows(MessageRow, session_run.id)] == ["hi"]
    with pytest.raises(TypeError, match="no columns"):
        pending_row(MessageRow, turn=0, role="user", content="x", mood="happy")


def test_a_session_run_given_as_a_pending_row_is_stored_as_its_object_would_be(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    run = Run(persona="p", model="m", user_backend="rules", data_root=".", workspace=".")
    store.add(run)
    when = datetime(2026, 1, 2, 3, 4, 5, 6789, tzinfo=UTC)
    columns = {
        "run_id": run.id,
        "position": 1,
        "status": "completed",
        "turns": 3,
        "steps": 4,
        "error": "e",
        "started": when,
        "finished": when,
    }
    store.save_session(SessionRun(session_id="a1", **columns), [], {})  # type: ignore[arg-type]  # the columns' values, each of its type
    store.save_session(pending_row(SessionRun, session_id="a2", **columns), [], {})
    first, second = store.session_runs(run.id)
    assert (second.id, second.session_id) == (first.id + 1, "a2")
    assert replace(second, id=first.id, session_id="a1") == first
    with pytest.raises(TypeError, match="a session run's row, not MessageRow's"):
        store.save_session(pending_row(MessageRow, turn=0, role="user", content="x"), [], {})


def test_update_sets_the_columns_of_a_stored_row_and_refuses_a_missing_one(tmp_path: Path) -> None:
    store = Store(tmp_path / "u.db")
    run = Run(persona="mini", model="scripted:passive", user_backend="rules", data_root="data", workspace="ws")
    store.add(run)
    store.update(run, status="failed", config={"failure": "no such model"})
    stored = store.run(run.id)
    assert run.status == "failed" and stored is not None
    assert (stored.status, stored.config, stored.model) == ("failed", {"failure": "no such model"}, "scripted:passive")
    with pytest.raises(LookupError, match="is not in"):
        store.update(Run(persona="mini", model="m", user_backend="rules", data_root="data", workspace="ws"), status="failed")
    other = Run(persona="mini", model="other", user_backend="rules", data_root="data", workspace="ws")
    store.add(other)
    store.update(other, model="changed")  # the statement made once for the table sets only the columns given, of that row
    assert [(r.model, r.status) for r in (store.run(run.id), store.run(other.id)) if r] == [
        ("scripted:passive", "failed"),
        ("changed", "created"),
    ]
    with pytest.raises(TypeError, match=r"run has no columns \['nosuch'\]"):
        store.update(run, nosuch=1)


def test_add_inserts_parents_first_and_sets_generated_keys(tmp_path: Path) -> None:
    """Rows given child first go in parents first (SQLite enforces the foreign key), in one transaction; a generated key
    is set on its row, a given one kept; a refused row leaves none of the others."""
    store = Store(tmp_path / "a.db")
    run = Run(id="r-given", persona="mini", model="m", user_backend="rules", data_root="data", workspace="ws")
    first, second = (SessionRun(run_id=run.id, session_id=s, position=n) for n, s in enumerate(("s1", "s2"), start=1))
    store.add(first, second, run)
    assert run.id == "r-given" and first.id is not None and second.id == first.id + 1
    assert [(r.session_id, r.id) for r in store.session_runs(run.id)] == [("s1", first.id), ("s2", second.id)]
    orphan = SessionRun(run_id="no-such-run", session_id="s9", position=1)
    other = Run(id="r-other", persona="mini", model="m", user_backend="rules", data_root="data", workspace="ws")
    with pytest.raises(IntegrityError):
        store.add(other, orphan)
    assert store.run("r-other") is None


BUILT_TABLES = """
import sys
from sqlmodel import SQLModel
from proactive_bench.cli import app
from proactive_bench.store import tables
try:
    app(sys.argv[1:], prog_name="pbench")
except SystemExit as done:
    assert done.code in (0, 1), done.code
print(sorted(c.__name__ for c in vars(tables).values() if isinstance(c, type) and issubclass(c, SQLModel) and c is not SQLModel and c.__pydantic_complete__))
"""


def test_a_scripted_episode_builds_no_results_table_validator(tmp_path: Path) -> None:
    """The results tables' pydantic validators and serializers are built on first use (``defer_build``): the store writes
    and reads rows through SQLAlchemy, so a run's process never builds them (~15 % of importing the tables)."""
    args = ["episode", "--data", str(MINI), "--persona", "mini", "--model", "scripted:reference", "--db", str(tmp_path / "r.db")]
    out = run_python(BUILT_TABLES.replace("sys.argv[1:]", repr(args)))
    assert out.splitlines()[-1] == "[]", out[-2000:]
    run = Run(persona="p", model="m", user_backend="rules", data_root="d", workspace="w", config={"k": 1})
    assert run.model_dump(exclude={"id", "created"}) == {  # built when first used, the same fields and values
        "persona": "p",
        "model": "m",
        "agent": None,
        "user_backend": "rules",
        "judge_model": None,
        "data_root": "d",
        "workspace": "w",
        "status": "created",
        "config": {"k": 1},
        "units": [],
        "sweep_id": None,
    }
