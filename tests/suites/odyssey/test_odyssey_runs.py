"""Odyssey tasks run through the ordinary engine: episode, sweep over memory settings, results, replay."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from proactive_bench.store import Store
from proactive_bench.testing import StubServer, prompt_text, text_reply
from tests.helpers.cli import run_cli
from tests.helpers.paths import ODYSSEY_MINI

TASKS = ("od_test_email_supplier", "od_test_vendor_meeting", "od_test_vendor_memo")


def run_json(*args: str) -> dict:
    result = run_cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_reference_passes_every_task_and_the_intent_alone_passes_none(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    reference = run_json("episode", "--suite", "odyssey", "--model", "scripted:reference", "--data", str(ODYSSEY_MINI), "--db", db)
    (groups,) = reference["pass_rate"]["groups"]
    assert groups["overall"] == 1.0 and groups["1-app"] == groups["2-app"] == groups["3-app"] == 1.0
    assert {row["task"] for row in reference["pass_rate"]["tasks"]} == set(TASKS) and reference["main"] == []
    surface = run_json("episode", "--suite", "odyssey", "--model", "scripted:surface", "--data", str(ODYSSEY_MINI), "--db", db)
    assert surface["pass_rate"]["groups"][0]["overall"] == 0.0
    assert all(row["errored"] == 0 and row["grader_errors"] == 0 for row in surface["pass_rate"]["tasks"])
    for script in ("scripted:passive", "scripted:asker"):  # they cannot read the history either: only told the intent
        told = run_json("episode", "--suite", "odyssey", "--model", script, "--data", str(ODYSSEY_MINI), "--db", str(tmp_path / "other.db"))
        assert told["pass_rate"]["groups"][0]["overall"] == 0.0, script
    store = Store(Path(db))
    runs = [store.run(row["run_id"]) for summary in (reference, surface) for row in summary["runs"]]
    assert len(runs) == 6 and {r.persona for r in runs} == set(TASKS)
    assert all(r.config["suite"] == "odyssey" and r.config["memory_tokens"] > 100 for r in runs)


def test_one_task_by_name_and_the_pibench_options_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    one = run_json(
        "episode", "--suite", "odyssey", "--task", TASKS[1], "--model", "scripted:reference", "--data", str(ODYSSEY_MINI), "--db", db
    )
    assert [row["task"] for row in one["pass_rate"]["tasks"]] == [TASKS[1]]
    wrong = run_cli(
        "episode", "--suite", "odyssey", "--persona", "x", "--model", "scripted:reference", "--data", str(ODYSSEY_MINI), "--db", db
    )
    assert wrong.exit_code == 2 and "--task" in wrong.output
    unknown = run_cli(
        "episode", "--suite", "odyssey", "--task", "od_nope", "--model", "scripted:reference", "--data", str(ODYSSEY_MINI), "--db", db
    )
    assert unknown.exit_code == 2 and "no such task" in unknown.output
    memory_on_pibench = run_cli("episode", "--persona", "x", "--memory", "none", "--model", "scripted:reference", "--db", db)
    assert memory_on_pibench.exit_code == 2 and "--memory applies to the odyssey suite only, not personas" in memory_on_pibench.output


def test_sweep_over_memory_settings_gives_the_memory_table(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    summary = run_json(
        "sweep",
        "--suite",
        "odyssey",
        "--models",
        "scripted:reference,scripted:surface",
        "--memory",
        "long-context,rag:raw-session,none",
        "--top-k",
        "1,3",
        "--data",
        str(ODYSSEY_MINI),
        "--db",
        db,
    )
    rows = {(r["model"], r["memory"], r["top_k"]): r for r in summary["pass_rate"]["memory"]}
    assert set(rows) == {
        (m, s, k)
        for m in ("scripted:reference", "scripted:surface")
        for s, k in (("long-context", None), ("rag:raw-session", 1), ("rag:raw-session", 3), ("none", None))
    }
    assert all(r["pass_rate"] == (1.0 if m == "scripted:reference" else 0.0) and r["tasks"] == 3 for (m, _, _), r in rows.items())
    tokens = {(s, k): rows[("scripted:reference", s, k)]["context_tokens"] for _, s, k in rows}
    assert tokens[("none", None)] == 0 < tokens[("rag:raw-session", 1)] < tokens[("rag:raw-session", 3)] <= tokens[("long-context", None)]
    sweep_id = summary["runs"][0]["sweep_id"]
    table = run_cli("results", sweep_id, "--db", db)
    assert "Odyssey memory settings" in table.output and "rag:raw-session" in table.output
    rows_csv = list(csv.DictReader(io.StringIO(run_cli("results", sweep_id, "--db", db, "--format", "csv").stdout)))
    assert len(rows_csv) == 24 and {r["task"] for r in rows_csv} == set(TASKS)
    report = tmp_path / "report.html"
    assert run_cli("report", sweep_id, "--db", db, "--out", str(report)).exit_code == 0
    html = report.read_text()
    assert 'id="odyssey"' in html and "Memory settings: pass rate" in html and "od_test_vendor_meeting" in html


def test_an_odyssey_run_replays_from_its_record(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    summary = run_json(
        "episode",
        "--suite",
        "odyssey",
        "--task",
        TASKS[0],
        "--memory",
        "rag:raw-utterance",
        "--top-k",
        "2",
        "--model",
        "scripted:reference",
        "--data",
        str(ODYSSEY_MINI),
        "--db",
        db,
    )
    (row,) = summary["runs"]
    replayed = run_json("replay", row["run_id"], "--db", db)
    assert replayed["persona"] == TASKS[0] and replayed["sessions"][0]["status"] == "completed"
    replay_run = Store(Path(db)).run(replayed["run_id"])
    assert replay_run is not None and replay_run.config["suite_settings"] == {"memory": "rag:raw-utterance", "top_k": 2}


def summary_responder(body: dict) -> dict:
    """A 'summary' that repeats every user line of the window, so the details survive (a real model would condense them)."""
    lines = re.findall(r"^user: (.+)$", prompt_text(body), re.MULTILINE)
    return text_reply(" ".join(lines))


def test_long_context_against_summary_chunks_with_a_summary_model_on_the_stub_server(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    with StubServer(summary_responder) as server:
        summary = run_json(
            "sweep",
            "--suite",
            "odyssey",
            "--models",
            "scripted:reference,scripted:surface",
            "--memory",
            "long-context,rag:summary-chunk",
            "--top-k",
            "2",
            "--summary-model",
            "openai:summ",
            "--base-url",
            server.base_url,
            "--data",
            str(ODYSSEY_MINI),
            "--db",
            db,
        )
        made = len(server.requests)
    assert made == 9  # 5 days in windows of 2 = 3 chunks per task, made once for both models' runs
    rows = {(r["model"], r["memory"], r["top_k"]): r for r in summary["pass_rate"]["memory"]}
    assert rows[("scripted:reference", "rag:summary-chunk", 2)]["pass_rate"] == 1.0
    assert rows[("scripted:surface", "rag:summary-chunk", 2)]["pass_rate"] == 0.0
    chunk_tokens = rows[("scripted:reference", "rag:summary-chunk", 2)]["context_tokens"]
    assert 0 < chunk_tokens < rows[("scripted:reference", "long-context", None)]["context_tokens"]
    refused = run_cli(
        "sweep",
        "--suite",
        "odyssey",
        "--models",
        "scripted:reference",
        "--memory",
        "rag:summary-session",
        "--data",
        str(ODYSSEY_MINI),
        "--db",
        db,
    )
    assert refused.exit_code == 2 and "needs --summary-model" in refused.output


def test_the_react_agent_reads_the_whole_history_in_its_first_request(tmp_path: Path) -> None:
    with StubServer(lambda body: text_reply("I have not done anything.")) as server:
        summary = run_json(
            "episode",
            "--suite",
            "odyssey",
            "--task",
            TASKS[1],
            "--model",
            "openai:stub-model",
            "--base-url",
            server.base_url,
            "--data",
            str(ODYSSEY_MINI),
            "--db",
            str(tmp_path / "r.db"),
        )
        first = prompt_text(server.requests[0])
    assert all(f"## 2025-03-{day}" in first for day in ("06", "07", "10", "11", "13")) and "Task: Put the vendor review" in first
    assert "18th from 10:00 to 10:45" in first and "condensed" not in first
    (row,) = summary["pass_rate"]["tasks"]
    assert row["passed"] == 0 and row["errored"] == 0  # it did nothing: a fail, not an error
