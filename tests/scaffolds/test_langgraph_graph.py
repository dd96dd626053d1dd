"""A compiled LangGraph graph as the agent under test: the prebuilt ReAct agent on a stub model server (loopback),
given pbench's tools as LangChain tools, plays mini sessions through ``pbench episode``; faults are one line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.scaffolds.defaults import DEFAULT_MAX_TOOL_CALLS
from proactive_bench.store import Store, ToolCallRow
from proactive_bench.testing.stub_server import (
    Reply,
    StubServer,
    text_reply,
    tool_call_reply,
)
from tests.helpers.cli import run_cli
from tests.helpers.paths import HELPERS, MINI, REPO
from tests.helpers.reference_replay import agent_side, exported

EXAMPLE = REPO / "examples" / "agents" / "langgraph_react.py"
REPLAY = REPO / "examples" / "agents" / "langgraph_reference.py"
PHARMACIST = ["--data", str(REPO / "pbench_data"), "--persona", "pharmacist", "--sessions", "1,18"]  # s18: a turn of 96 calls
GRAPHS = HELPERS / "langgraph_agents.py"
SUMMARY = "# Batch summary\nmean 4.65 mg/L\n"


def react_model(body: dict[str, Any]) -> Reply:
    """Writes the summary on a turn's first model call, then answers."""
    if body["messages"][-1]["role"] == "tool":
        return text_reply("Done: the summary is in out/summary.md, in mg/L with the mean.")
    return tool_call_reply([("write_file", {"path": "out/summary.md", "content": SUMMARY})])


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Any:
    with StubServer(react_model) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-not-a-key")
        yield server


def play(tmp_path: Path, model: str, sessions: str = "a1,a2") -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """``pbench episode --json`` on mini sessions, then ``pbench export``: the exit code, the JSON, the records."""
    db = tmp_path / "r.db"
    ran = run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--sessions", sessions, "--agent", model, "--db", str(db))
    assert ran.exit_code in (0, 1), ran.output
    result = json.loads(ran.stdout)
    return ran.exit_code, result, exported(db, result["run_id"], tmp_path / "export.jsonl")


def assistant_turns(record: dict[str, Any]) -> list[tuple[list[str], str]]:
    return [([c["function"]["name"] for c in m["tool_calls"]], m["content"] or "") for m in record["messages"] if m["role"] == "assistant"]


@pytest.mark.parametrize("model", [f"{EXAMPLE}:agent", f"{GRAPHS}:uncheckpointed"], ids=["checkpointer", "no-checkpointer"])
def test_a_react_graph_s_tool_calls_are_evidence_and_its_replies_reach_the_user(tmp_path: Path, stub: StubServer, model: str) -> None:
    code, result, records = play(tmp_path, model)
    assert code == 0 and [s["status"] for s in result["sessions"]] == ["completed", "completed"], result
    a1 = records[0]
    turns = assistant_turns(a1)
    assert turns[0][0] == ["write_file"], turns  # the call, recorded by pbench's toolbox
    assert any("Done: the summary is in out/summary.md" in text for _, text in turns), turns  # the reply reached the user
    assert result["sessions"][0]["completed"] == 2  # the file the graph's tool call wrote is graded as evidence
    workspace = tmp_path / "workspaces" / result["run_id"]
    assert (workspace / "out" / "summary.md").read_text() == SUMMARY
    requests = [json.dumps(b["messages"]) for b in stub.requests]
    assert all("write_file" in json.dumps(b.get("tools", [])) for b in stub.requests)  # pbench's tools were bound
    a2 = [r for r in requests if "weekly batch note" in r]
    assert a2 and not any("summarise notes/batch.csv" in r for r in a2)  # a fresh thread (or message list) per session
    assert "Environment event" in a2[0]  # a2 opens on an event, marked as such
    second = [m["content"] for m in records[1]["messages"] if m["role"] == "user"][1]  # the rules user's answer in a2
    later = [r for r in a2 if second in r]
    assert later and "weekly batch note" in later[0] and "wrote 31 characters" in later[0]  # the turn continues the session


def test_a_graph_that_raises_ends_its_session_with_a_one_line_error(tmp_path: Path, stub: StubServer) -> None:
    code, result, _ = play(tmp_path, f"{GRAPHS}:raising", sessions="a1")
    session = result["sessions"][0]
    assert code == 1 and session["status"] == "error", session
    assert "graph node failed on 1 message(s)" in session["error"] and "\n" not in session["error"], session["error"]


@pytest.mark.parametrize(
    ("attr", "expected"),
    [
        ("counting", "the LangGraph graph has no 'messages' state key (its keys: count)"),
    ],
)
def test_a_graph_without_messages_is_a_one_line_load_error(tmp_path: Path, attr: str, expected: str) -> None:
    ran = run_cli("episode", "--data", str(MINI), "--persona", "mini", "--agent", f"{GRAPHS}:{attr}", "--db", str(tmp_path / "r.db"))
    assert ran.exit_code == 2 and expected in ran.output, ran.output
    assert "Traceback" not in ran.output and not (tmp_path / "r.db").exists()


def test_a_graph_factory_returning_something_else_ends_each_session_with_a_one_line_error(tmp_path: Path, stub: StubServer) -> None:
    code, result, _ = play(tmp_path, f"{GRAPHS}:not_a_graph", sessions="a1")
    session = result["sessions"][0]
    assert code == 1 and session["status"] == "error"
    assert "the graph factory returned str, not a compiled LangGraph graph" in session["error"] and "\n" not in session["error"]


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the graph, not the data's checks
def test_the_replay_graph_gives_the_in_process_reference_figures_and_tool_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/agents/langgraph_reference.py (the prebuilt ReAct graph on a model replaying scripted:reference), on a
    session whose longest turn makes 96 tool calls: the graph's own recursion limit, not pbench, bounds a turn."""
    ran = run_cli("episode", "--json", *PHARMACIST, "--agent", "scripted:reference", "--db", str(tmp_path / "ref.db"))
    assert ran.exit_code == 0, ran.output
    reference = exported(tmp_path / "ref.db", json.loads(ran.stdout)["run_id"], tmp_path / "reference.jsonl")
    monkeypatch.setenv("PBENCH_RECORDING", str(tmp_path / "reference.jsonl"))
    ran = run_cli("episode", "--json", *PHARMACIST, "--agent", f"{REPLAY}:agent", "--db", str(tmp_path / "r.db"))
    assert ran.exit_code == 0, ran.output
    result = json.loads(ran.stdout)
    assert (result["proc"], result["comp"]) == (1.0, 1.0)
    replayed = exported(tmp_path / "r.db", result["run_id"], tmp_path / "replayed.jsonl")
    assert [r["session_id"] for r in replayed] == [r["session_id"] for r in reference]
    for ours, theirs in zip(replayed, reference, strict=True):
        assert (ours["status"], ours["proc"], ours["comp"]) == (theirs["status"], theirs["proc"], theirs["comp"])
        assert agent_side(ours) == agent_side(theirs) and agent_side(ours)[0][0], ours["session_id"]  # the same calls, in order


FLOOD = tool_call_reply([("list_dir", {"path": "."})] * 600)
"""A model answering with 600 tool calls at once (a strange server, or a model gone wrong)."""


def flooding_model(body: dict[str, Any]) -> Reply:
    """600 tool calls on a turn's first model call, then an answer."""
    return text_reply("done") if body["messages"][-1]["role"] == "tool" else FLOOD


def test_a_graph_s_tool_calls_in_one_turn_are_capped_and_the_rest_refused_unrun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The prebuilt ReAct graph runs every call of an answer at once: past DEFAULT_MAX_TOOL_CALLS they are refused, unrun and
    unrecorded, every call id still answered, and the turn goes on."""
    with StubServer(flooding_model) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-not-a-key")
        code, result, _ = play(tmp_path, f"{GRAPHS}:uncheckpointed", "a1")
        answered = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert code == 0 and result["sessions"][0]["status"] == "completed", result
    store = Store(str(tmp_path / "r.db"))
    (session,) = store.session_runs(result["run_id"])
    per_turn = Counter(row.turn for row in store.rows(ToolCallRow, session.id))
    assert len(per_turn) == session.turns and set(per_turn.values()) == {DEFAULT_MAX_TOOL_CALLS}  # each turn has its own
    assert len(answered) == 600 and sum("tool calls are spent" in m["content"] for m in answered) == 100
