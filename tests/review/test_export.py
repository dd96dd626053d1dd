"""``pbench export``: one chat-format record per session, loadable by the ``datasets`` library."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI


def test_export_writes_one_chat_record_per_session_that_datasets_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "r.db"
    ran = run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:reference", "--db", str(db))
    assert ran.exit_code == 0, ran.output
    run_id = json.loads(ran.stdout)["run_id"]
    out = tmp_path / "sessions.jsonl"
    result = run_cli("export", run_id, "--out", str(out), "--db", str(db))
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["session_id"] for r in records] == ["a1", "a2", "a3"] and {r["run_id"] for r in records} == {run_id}
    first = records[0]
    assert first["messages"][0]["role"] == "user" and first["proc"] == 1.0 and first["comp"] == 1.0
    calls = [m for m in first["messages"] if m["tool_calls"]]
    assert calls, "the reference solution's tool calls are exported"
    call = calls[0]["tool_calls"][0]
    answer = first["messages"][first["messages"].index(calls[0]) + 1]
    assert answer["role"] == "tool" and answer["tool_call_id"] == call["id"] and json.loads(call["function"]["arguments"]) is not None
    assert first["messages"][-1]["role"] == "assistant" and first["messages"][-1]["content"]
    assert all(i["status"] == "completed" for r in records for i in r["intents"]) and all(
        g["status"] == "pass" for r in records for g in r["grades"] if g["grader"] == "rule"
    )
    streamed = run_cli("export", run_id, "--db", str(db))
    assert streamed.stdout == out.read_text()

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    loaded = datasets.load_dataset("json", data_files=str(out), split="train", cache_dir=str(tmp_path / "cache"))
    assert loaded.num_rows == 3 and loaded[0]["session_id"] == "a1"
    assert loaded[0]["messages"][0]["role"] == "user" and loaded[0]["grades"][0]["item_id"] == first["grades"][0]["item_id"]


def test_export_refuses_an_unknown_format_and_id(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    assert run_cli("export", "nope", "--db", str(db), "--format", "csv").exit_code == 2
    assert run_cli("export", "nope", "--db", str(db)).exit_code == 2
