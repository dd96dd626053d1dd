"""A LangGraph prebuilt ReAct agent outside pbench (examples/agents/langgraph_mcp.py, a ``cmd:`` agent) on the stub
model server, its tools converted from the session's MCP world by examples/agents/mcp_langchain.py (the official
``mcp`` client SDK; ``langchain-mcp-adapters`` requires ``mcp<2``): its calls are the session's evidence, recorded
exactly as the same calls of pbench's in-process react agent on the same model answers."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.testing.stub_server import (
    Reply,
    StubServer,
    text_reply,
    tool_call_reply,
)
from tests.helpers.admitted import admit_unchanged
from tests.helpers.cli import run_cli
from tests.helpers.paths import DATA, REPO
from tests.helpers.reference_replay import exported

AGENT = f"cmd:{sys.executable} {REPO / 'examples' / 'agents' / 'langgraph_mcp.py'}"
PHARMACIST = ["--data", str(DATA), "--persona", "pharmacist", "--sessions", "s01_vanco_auc_review"]
REVIEW = "# Vancomycin AUC review\n\nLevels read; dosing unchanged pending the next trough.\n"
CALLS = [
    ("list_dir", {"path": "data"}),
    ("write_file", {"path": "reports/vanco_auc_review.md", "content": REVIEW}),
    ("read_file", {"path": "../../etc/passwd"}),  # refused by the workspace jail: a failed call, recorded as one
]


def model(body: dict[str, Any]) -> Reply:
    """One call per model answer, in order, on each user turn; then a reply."""
    messages = body["messages"]
    since_user = len(messages) - max(i for i, m in enumerate(messages) if m["role"] == "user") - 1
    made = sum(1 for m in messages[len(messages) - since_user :] if m["role"] == "tool")
    if made < len(CALLS):
        return tool_call_reply([CALLS[made]])
    return text_reply("The review is in reports/vanco_auc_review.md.")


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Any:
    with StubServer(model) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-not-a-key")
        monkeypatch.setenv("LANGGRAPH_MODEL", "stub")
        yield server


def play(tmp_path: Path, *agent: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    db = tmp_path / "r.db"
    ran = run_cli("episode", "--json", *PHARMACIST, *agent, "--db", str(db))
    assert ran.exit_code == 0, ran.output
    result = json.loads(ran.stdout)
    return result, exported(db, result["run_id"], tmp_path / "export.jsonl")


def transcript(record: dict[str, Any]) -> list[tuple[str, str, list[tuple[str, Any]]]]:
    """Each message's role, text and tool calls (name, arguments): everything but the calls' ids."""
    return [
        (
            m["role"],
            m["content"] or "",
            [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in m.get("tool_calls") or []],
        )
        for m in record["messages"]
    ]


def test_a_react_graph_over_mcp_leaves_the_evidence_of_the_same_calls_in_process(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, stub: StubServer
) -> None:
    for folder in ("mcp", "react"):  # the subject is the graph over MCP, not the data's checks
        admit_unchanged(tmp_path / folder, DATA, ["pharmacist"], tmp_path_factory)
    outside, [over_mcp] = play(tmp_path / "mcp", "--agent", AGENT, "--agent-option", "env=OPENAI_BASE_URL,OPENAI_API_KEY,LANGGRAPH_MODEL")
    inside, [in_process] = play(tmp_path / "react", "--agent", "react", "--model", "openai:stub", "--base-url", stub.base_url)

    assert [s["status"] for s in outside["sessions"]] == ["completed"], outside
    made = [
        (c["function"]["name"], json.loads(c["function"]["arguments"])) for m in over_mcp["messages"] for c in m.get("tool_calls") or []
    ]
    assert made[:3] == CALLS  # the graph's calls reached pbench, in order, on the first turn
    workspace = tmp_path / "mcp" / "workspaces" / outside["run_id"]
    assert [p.read_text() for p in workspace.rglob("vanco_auc_review.md")] == [REVIEW]
    results = [json.loads(m["content"]) for m in over_mcp["messages"] if m["role"] == "tool"]
    assert "levels/" in results[0]["response"] and "error" in results[2]  # the jail refused the third: a failed call
    assert transcript(over_mcp) == transcript(in_process)  # the same calls, results, turns and replies as in process
    assert (over_mcp["proc"], over_mcp["comp"]) == (in_process["proc"], in_process["comp"])
