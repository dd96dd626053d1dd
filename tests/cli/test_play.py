"""``pbench play``: a person (piped stdin) in the user's seat, labels stored beside the rules user's, and in the agent's seat."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from proactive_bench.store import (
    IntentEvent,
    LLMCall,
    MessageRow,
    PersonLabel,
    Store,
    ToolCallRow,
)
from proactive_bench.testing.stub_server import StubServer
from tests.helpers.cli import PBENCH, run_cli
from tests.helpers.paths import MINI
from tests.helpers.stub_models import FakeUserModel

# Session a1 of the mini dataset against scripted:passive (it writes the summary without units or mean, asks nothing).
# Turn 1: the rules user sees no completion and no question, so it volunteers the first open intent:
#   units provided, mean pending. The person labels both pending and reveals units (#1).
# Turn 2: the person labels units provided, mean pending, and reveals mean (#2); the rules user (same view:
#   both still open) gives the labels stored below. Then the input ends at turn 3.
TWO_TURNS = "n\nn\nWhich units do you mean? #1\np\nn\n#2\n"


def play_user(tmp_path: Path, stdin: str, *extra: str) -> object:
    return run_cli(
        "play",
        "--as",
        "user",
        "--persona",
        "mini",
        "--agent",
        "scripted:passive",
        "--sessions",
        "a1",
        "--data",
        str(MINI),
        "--db",
        str(tmp_path / "r.db"),
        *extra,
        stdin=stdin,
    )


def test_person_and_simulator_labels_are_stored_side_by_side(tmp_path: Path) -> None:
    result = play_user(tmp_path, TWO_TURNS)
    assert result.exit_code == 0, result.output
    assert "input ended" in result.output
    store = Store(tmp_path / "r.db")
    run = store.resolve("latest")
    (session_run,) = store.session_runs(run.id)
    pairs = sorted((r.turn, r.intent_id, r.person, r.simulator, r.simulator_name) for r in store.rows(PersonLabel, session_run.id))
    assert pairs[:2] == [(1, "mean", "pending", "pending", "rules"), (1, "units", "pending", "provided", "rules")]
    assert [(t, i, p) for t, i, p, _, _ in pairs[2:]] == [(2, "mean", "pending"), (2, "units", "provided")]
    # the person's decision drives the session: their labels are the intent events, their reply the user message
    events = [(e.turn, e.intent_id, e.status, e.decided_by) for e in store.rows(IntentEvent, session_run.id)]
    assert events == [(2, "units", "provided", "person")]
    said = [m.content for m in store.rows(MessageRow, session_run.id) if m.role == "user"]
    assert "Which units do you mean? Please give the values in mg/L." in said
    assert "I need the mean in there too." in said


def test_agreement_reports_kappa_as_computed_by_hand(tmp_path: Path) -> None:
    assert play_user(tmp_path, TWO_TURNS).exit_code == 0
    result = run_cli("results", "latest", "--agreement", "--json", "--db", str(tmp_path / "r.db"))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    store = Store(tmp_path / "r.db")
    (session_run,) = store.session_runs(store.resolve("latest").id)
    pairs = [(r.person, r.simulator) for r in store.rows(PersonLabel, session_run.id)]
    assert len(pairs) == report["items"] == 4
    # by hand from the stored pairs: p_o = agreeing / n; p_e = sum over labels of person share x simulator share
    n = len(pairs)
    p_o = sum(p == s for p, s in pairs) / n
    labels = {label for pair in pairs for label in pair}
    p_e = sum(sum(p == k for p, _ in pairs) * sum(s == k for _, s in pairs) for k in labels) / n**2
    assert report["kappa"] == pytest.approx((p_o - p_e) / (1 - p_e))
    assert report["confusion"]["pending"]["provided"] == sum(pair == ("pending", "provided") for pair in pairs)
    table = run_cli("results", "latest", "--agreement", "--db", str(tmp_path / "r.db"))
    assert table.exit_code == 0 and "Cohen's κ" in table.stdout and "Confusion" in table.stdout


def test_malformed_input_is_asked_again(tmp_path: Path) -> None:
    stdin = "maybe\nn\nn\n#7\n\nsome reply #1\n"
    result = play_user(tmp_path, stdin)
    assert result.exit_code == 0, result.output
    assert "type c, i, p or n" in result.output
    assert "#7: no intent with a reveal sentence has that number (1-2)" in result.output
    assert "intents are still pending: type a reply" in result.output
    store = Store(tmp_path / "r.db")
    (session_run,) = store.session_runs(store.resolve("latest").id)
    said = [m.content for m in store.rows(MessageRow, session_run.id) if m.role == "user"]
    assert "some reply Please give the values in mg/L." in said


def test_end_of_input_ends_cleanly(tmp_path: Path) -> None:
    result = play_user(tmp_path, "")
    assert result.exit_code == 0, result.output
    assert "input ended: the person at the terminal stopped playing; sessions a1 stopped there" in result.output
    assert "Traceback" not in result.output
    store = Store(tmp_path / "r.db")
    (session_run,) = store.session_runs(store.resolve("latest").id)
    assert store.rows(PersonLabel, session_run.id) == []
    result = run_cli("results", "latest", "--agreement", "--db", str(tmp_path / "r.db"))
    assert result.exit_code == 2 and "has no person labels" in result.output


def test_user_seat_needs_the_agent(tmp_path: Path) -> None:
    result = run_cli("play", "--as", "user", "--persona", "mini", "--data", str(MINI), "--db", str(tmp_path / "r.db"))
    assert result.exit_code == 2 and "--as user needs --agent" in result.output
    result = run_cli("play", "--as", "judge", "--persona", "mini", "--data", str(MINI), "--db", str(tmp_path / "r.db"))
    assert result.exit_code == 2 and "--as must be agent or user" in result.output


def test_a_person_in_the_agents_seat_is_scored_like_any_agent(tmp_path: Path) -> None:
    lines = [
        "/tools",
        '/tool read_file {"path": "notes/batch.csv"}',
        "/tool read_file {bad",
        "/tool read_file " + "[" * 100_000,
        "/frob",
        "Which units should I report the values in?",
        '/tool write_file {"path": "out/summary.md", "content": "# Batch summary\\n\\nValues in mg/L; the mean is 4.65.\\n"}',
        "/reply The summary is in out/summary.md.",
    ]
    stdin = "".join(f"{line}\n" for line in lines)
    result = run_cli("play", "--persona", "mini", "--sessions", "a1", "--data", str(MINI), "--db", str(tmp_path / "r.db"), stdin=stdin)
    assert result.exit_code == 0, result.output
    assert "read_file: Read a file" in result.output
    assert "are not JSON" in result.output and "not understood: '/frob'" in result.output
    assert "are not JSON (JSON nested too deep to read)" in result.output
    store = Store(tmp_path / "r.db")
    run = store.resolve("latest")
    assert run.model == "person"
    (session_run,) = store.session_runs(run.id)
    assert session_run.status == "completed"
    calls = [(c.tool_name, c.ok) for c in store.rows(ToolCallRow, session_run.id)]
    assert calls == [("read_file", True), ("write_file", True)]
    statuses = {e.intent_id: e.status for e in store.rows(IntentEvent, session_run.id)}
    assert statuses == {"units": "inferred", "mean": "completed"}


def test_a_person_typing_bytes_that_are_not_utf8_in_the_c_locale_is_saved_with_the_replacement_character(tmp_path: Path) -> None:
    """In the C locale Python reads stdin as UTF-8, bytes that are not as lone surrogates, which no stored text holds:
    the reply is kept with U+FFFD in their place, and the session is saved."""
    done = subprocess.run(
        [*PBENCH, "play", "--persona", "mini", "--sessions", "a1", "--data", str(MINI), "--db", str(tmp_path / "r.db")],
        input=b"/reply The summary \xff is in out/summary.md.\n",
        capture_output=True,
        env={**os.environ, "LC_ALL": "C", "PYTHONUTF8": ""},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    store = Store(tmp_path / "r.db")
    (session_run,) = store.session_runs(store.resolve("latest").id)
    said = [(m.role, m.content) for m in store.rows(MessageRow, session_run.id)]
    assert ("agent", "The summary \ufffd is in out/summary.md.") in said, said


def test_a_person_agent_whose_input_ends_stops_every_session(tmp_path: Path) -> None:
    result = run_cli(
        "play", "--persona", "mini", "--sessions", "a1,a3", "--data", str(MINI), "--db", str(tmp_path / "r.db"), stdin="/tools\n"
    )
    assert result.exit_code == 0, result.output
    assert "sessions a1, a3 stopped there" in result.output


def test_the_llm_user_labels_beside_the_person_when_configured(tmp_path: Path) -> None:
    with StubServer(FakeUserModel()) as server:
        result = play_user(tmp_path, TWO_TURNS, "--user-model", "openai:stub-user", "--base-url", server.base_url)
    assert result.exit_code == 0, result.output
    store = Store(tmp_path / "r.db")
    (session_run,) = store.session_runs(store.resolve("latest").id)
    rows = store.rows(PersonLabel, session_run.id)
    assert len(rows) == 4 and {r.simulator_name for r in rows} == {"llm"}
    # turn 1: passive wrote neither mg/L nor a mean and asked nothing; the model user volunteers one intent
    assert sorted(r.simulator for r in rows if r.turn == 1) == ["pending", "provided"]
    assert any("completion_stage" in c.purpose for c in store.rows(LLMCall, session_run.id))
    assert [e.decided_by for e in store.rows(IntentEvent, session_run.id)] == ["person"]  # the model never drives the session


A1_PLAYED = "n\nn\nWhich units do you mean? #1\np\nn\n#2\np\n\n"
"""Session a1 against scripted:reference played to its end (units revealed, then mean, then an empty reply ends it); then a3 begins."""


A1_LABELS = [(1, "mean", "pending"), (1, "units", "pending"), (2, "mean", "pending"), (2, "units", "provided"), (3, "mean", "provided")]


def _labels_by_session(db: Path) -> dict[str, list[tuple[int, str, str]]]:
    store = Store(db)
    return {
        sr.session_id: sorted((r.turn, r.intent_id, r.person) for r in store.rows(PersonLabel, sr.id))
        for sr in store.session_runs(store.resolve("latest").id)
    }


def test_a_person_who_stops_mid_episode_keeps_the_finished_sessions_labels(tmp_path: Path) -> None:
    result = play_user(tmp_path, A1_PLAYED, "--agent", "scripted:reference", "--sessions", "a1,a3")
    assert result.exit_code == 0, result.output
    assert "sessions a3 stopped there" in result.output
    labels = _labels_by_session(tmp_path / "r.db")
    assert labels["a1"] == A1_LABELS
    assert labels["a3"] == []  # its one turn was never labelled


def test_labels_are_saved_with_each_session_so_an_interrupted_play_keeps_them(tmp_path: Path) -> None:
    """pbench play in a child process, stopped with SIGINT (Ctrl-C) while the person is asked about the second session."""
    db = tmp_path / "r.db"
    args = [
        "play",
        "--as",
        "user",
        "--persona",
        "mini",
        "--agent",
        "scripted:reference",
        "--sessions",
        "a1,a3",
        "--data",
        str(MINI),
        "--db",
        str(db),
    ]
    child = subprocess.Popen([*PBENCH, *args], stdin=subprocess.PIPE, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert child.stdin is not None and child.stderr is not None
    child.stdin.write(A1_PLAYED)
    child.stdin.flush()
    seen = ""
    deadline = time.monotonic() + 60
    while "--- session a3" not in seen and time.monotonic() < deadline:
        seen += child.stderr.readline()
    assert "--- session a3" in seen, seen
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    rest = child.communicate(timeout=60)[1]
    assert child.returncode != 0 and "interrupted" in rest, rest
    labels = _labels_by_session(db)
    assert labels["a1"] == A1_LABELS
    assert "a3" not in labels  # the unfinished session left nothing behind
