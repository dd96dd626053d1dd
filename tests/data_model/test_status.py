"""The status enums keep the stored words: databases and JSON written before them read the same."""

from __future__ import annotations

import json
from pathlib import Path

from proactive_bench.data_model.status import (
    FINAL_OUTCOMES,
    PARTIAL_RUN_STATUSES,
    IntentStatus,
    RunStatus,
    SessionOutcome,
    SweepStatus,
)
from proactive_bench.store import Run, SessionRun, Store, Sweep


def test_each_enum_spells_the_stored_words() -> None:
    assert [s.value for s in IntentStatus] == ["completed", "inferred", "provided"]
    assert [s.value for s in SessionOutcome] == ["running", "completed", "truncated", "error"]
    assert [s.value for s in RunStatus] == ["created", "running", "finished", "stopped", "interrupted", "failed"]
    assert [s.value for s in SweepStatus] == ["running", "finished", "stopped", "interrupted", "partial"]
    assert {"completed", "truncated", "error"} == FINAL_OUTCOMES
    assert {"created", "running", "stopped", "interrupted", "failed"} == PARTIAL_RUN_STATUSES


def test_the_session_outcome_is_its_own_type_though_it_shares_a_word() -> None:
    assert SessionOutcome.COMPLETED == IntentStatus.COMPLETED == "completed"  # the same stored word ...
    assert type(SessionOutcome.COMPLETED) is not type(IntentStatus.COMPLETED)  # ... for two different facts
    assert SessionOutcome.RUNNING not in FINAL_OUTCOMES


def test_the_store_defaults_are_the_enums_words(tmp_path: Path) -> None:
    """The store sits below data_model and spells the words itself: they must not drift apart."""
    run = Run(persona="p", model="m", user_backend="rules", data_root=".", workspace=".")
    assert run.status == RunStatus.CREATED
    assert Sweep().status == SweepStatus.RUNNING
    assert SessionRun(run_id="r", session_id="s", position=1).status == SessionOutcome.RUNNING
    store = Store(tmp_path / "r.db")
    store.add(run)
    store.save_session(SessionRun(run_id=run.id, session_id="s", position=1, status=SessionOutcome.COMPLETED), [], {})
    again = store.run(run.id)
    assert again is not None and again.status == RunStatus.RUNNING  # the first saved session starts the run
    store.update(again, status=RunStatus.INTERRUPTED)
    store.save_session(SessionRun(run_id=run.id, session_id="s2", position=2, status=SessionOutcome.COMPLETED), [], {})
    assert store.run(run.id).status == RunStatus.RUNNING  # type: ignore[union-attr]  # ... and so does the first one saved on resume
    saved, _ = store.session_runs(run.id)
    assert type(saved.status) is str and saved.status == "completed"  # an enum goes in as its plain word


def test_json_and_text_show_the_word() -> None:
    assert json.dumps({SessionOutcome.ERROR: RunStatus.STOPPED}) == '{"error": "stopped"}'
    assert f"{IntentStatus.INFERRED}" == str(IntentStatus.INFERRED) == "inferred"
