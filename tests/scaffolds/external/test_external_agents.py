"""External agents (``cmd:COMMAND``, ``http:URL``): the message protocol, a process per session, faults ending only
their session as ``error`` with a one-line reason, and isolation (pbench's keys and endpoints never reach the agent).

The ``cmd:`` agents are tests/helpers/external_agent.py in its modes; the ``http:`` agent is a server on a loopback thread.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import httpx2
import pytest

from proactive_bench import load_results
from proactive_bench.env import Memory, Workspace
from proactive_bench.scaffolds import SessionContext
from proactive_bench.scaffolds.external import (
    KEPT,
    MAX_LINE_BYTES,
    SESSION_VARIABLES,
    CommandAgent,
    ExternalAgentError,
    ExternalSettings,
    HttpAgent,
    McpEndpoint,
)
from proactive_bench.store import Store, ToolCallRow
from tests.helpers.admitted import admit_unchanged
from tests.helpers.bodies import BOMB_INFLATED, gzip_bomb
from tests.helpers.cli import PBENCH, run_cli
from tests.helpers.paths import DATA, HELPERS, MINI, REPO
from tests.helpers.reference_replay import (
    EXAMPLES,
    Recording,
    assert_replays_reference,
    example_service,
    median_round_trip_ms,
    record_reference,
)
from tests.helpers.session_contexts import mini_context

AGENT = HELPERS / "external_agent.py"
SESSIONS = ["a1", "a2", "a3"]
TRIGGERS = {"a1": "Can you summarise notes/batch.csv for me?"}


def cmd(mode: str) -> str:
    return f"cmd:{sys.executable} {AGENT} {mode}"


def play(tmp_path: Path, model: str, *extra: str) -> dict[str, Any]:
    """``pbench episode --json`` on the mini persona; the JSON, with ``workspace`` (the run's folder) added."""
    ran = run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--agent", model, "--db", str(tmp_path / "r.db"), *extra)
    assert ran.exit_code in (0, 1), ran.output  # 1: a session ended as error
    result: dict[str, Any] = json.loads(ran.stdout)
    result["workspace"] = tmp_path / "workspaces" / result["run_id"]
    return result


def statuses(result: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {s["session_id"]: (s["status"], s["error"]) for s in result["sessions"]}


def pids(workspace: Path) -> list[int]:
    return [int(line) for line in (workspace / "pids.txt").read_text().split()]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def one_line_error(result: dict[str, Any], session: str) -> str:
    status, error = statuses(result)[session]
    assert status == "error" and error is not None and "\n" not in error, (status, error)
    return error


# --- cmd: ---------------------------------------------------------------------------------------------------------


def test_a_well_behaved_command_agent_plays_each_session_in_a_process_of_its_own(tmp_path: Path) -> None:
    result = play(tmp_path, cmd("echo"))
    assert {sid: status for sid, (status, _) in statuses(result).items()} == dict.fromkeys(SESSIONS, "completed")
    seen = (result["workspace"] / "seen.txt").read_text().splitlines()  # written in its working folder: the workspace
    assert seen[0] == f"a1 1: {TRIGGERS['a1'][:40]}" and {line.split()[0] for line in seen} == set(SESSIONS)
    started = pids(result["workspace"])
    assert len(started) == 3 and len(set(started)) == 3, started  # one process per session
    assert not any(alive(pid) for pid in started)


def test_a_crashed_agent_ends_only_its_session_and_the_next_session_starts_a_new_process(tmp_path: Path) -> None:
    result = play(tmp_path, cmd("crash a2"))
    error = one_line_error(result, "a2")
    assert "the agent process exited with code 1 before replying" in error and "'RuntimeError: boom in a2'" in error, error
    assert statuses(result)["a1"][0] == statuses(result)["a3"][0] == "completed"
    assert len(set(pids(result["workspace"]))) == 3


FAULTS = {
    "hang": "no reply within the turn timeout (2 s)",
    "flood": "the agent wrote a stdout line over 1048576 bytes: 'xxxx",
    "blank": "the agent's stdout line is not JSON: ''",
    "junk": "the agent's stdout line is not JSON: 'thinking about it...'",
    "deep": "the agent's stdout line is not JSON: '[[[[",
    "twice": 'the agent wrote on stdout when no reply was asked: \'{"type": "reply", "text": "turn 1"}\'',
    "chatter": 'the agent wrote on stdout when no reply was asked: \'{"type": "reply", "text": "turn 1"}\'',  # read up to 4 MiB, then blocked
}


@pytest.mark.parametrize("mode", sorted(FAULTS))
def test_a_misbehaving_agent_gets_a_one_line_reason_and_is_killed(tmp_path: Path, mode: str) -> None:
    began = time.monotonic()
    result = play(tmp_path, cmd(mode), "--sessions", "a1", "--agent-option", "turn_timeout=2", "--agent-option", "exit_grace=30")
    took = time.monotonic() - began
    assert FAULTS[mode] in one_line_error(result, "a1")
    assert took < 15, f"{mode}: {took:.1f} s (a faulty agent is killed at once, not given exit_grace)"
    assert not any(alive(pid) for pid in pids(result["workspace"]))


def test_a_hung_agent_past_the_turn_timeout_ends_its_session_and_the_next_session_starts_a_new_process(tmp_path: Path) -> None:
    began = time.monotonic()
    result = play(tmp_path, cmd("hang a1"), "--sessions", "a1,a2", "--turn-timeout", "1.5")
    assert time.monotonic() - began < 20
    assert "ExternalAgentError: no reply within the turn timeout (1.5 s)" in one_line_error(result, "a1")
    assert statuses(result)["a2"] == ("completed", None)
    started = pids(result["workspace"])
    assert len(set(started)) == 2 and not any(alive(pid) for pid in started)  # the hung one killed, a2 in a process of its own


def test_a_flooding_agent_costs_pbench_no_more_than_its_line_limit(tmp_path: Path) -> None:
    """pbench in a child process against an agent writing one endless line: one line of reason, and pbench's peak
    memory stays within a few times the 1 MiB line limit of that of a run with a well-behaved agent."""

    def peak_kib(mode: str) -> tuple[int, dict[str, Any]]:
        db = tmp_path / f"{mode}.db"
        args = ["episode", "--json", "--data", str(MINI), "--persona", "mini", "--sessions", "a1", "--agent", cmd(mode), "--db", str(db)]
        child = subprocess.Popen(
            [*PBENCH, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=os.environ | {"PYTHONPATH": str(REPO)}
        )
        assert child.stdout is not None
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_maxrss, json.loads(out)

    quiet, _ = peak_kib("echo")
    flooded, result = peak_kib("flood")
    assert FAULTS["flood"] in one_line_error(result, "a1")
    assert flooded - quiet < 64 * 1024, f"pbench grew by {(flooded - quiet) // 1024} MiB reading the flood"


def stored_calls(db: Path, run_id: str) -> list[tuple[int, str, bool]]:
    """The run's stored tool calls: turn, tool and whether it succeeded."""
    store = Store(db)
    return [(r.turn, r.tool_name, r.ok) for sr in store.session_runs(run_id) for r in store.rows(ToolCallRow, sr.id)]


def test_an_agent_calling_tools_without_end_is_stopped_at_its_turn_s_limit_and_only_the_calls_within_it_are_stored(
    tmp_path: Path,
) -> None:
    began = time.monotonic()
    result = play(tmp_path, cmd("busy"), "--sessions", "a1", "--agent-option", "max_tool_calls=5", "--agent-option", "turn_timeout=60")
    assert time.monotonic() - began < 30  # ended at the limit, not by the turn timeout
    assert "the agent made more than 5 tool calls in one turn (max_tool_calls)" in one_line_error(result, "a1")
    assert stored_calls(tmp_path / "r.db", result["run_id"]) == [(1, "list_dir", True)] * 5
    answers = (result["workspace"] / "calls.txt").read_text().splitlines()
    assert all(" ok: " in line for line in answers[:5]) and all("tool calls are spent" in line for line in answers[5:]), answers
    assert not any(alive(pid) for pid in pids(result["workspace"]))


def test_an_agent_making_as_many_calls_as_its_limit_allows_in_each_turn_plays_on(tmp_path: Path) -> None:
    result = play(tmp_path, cmd("busy 4"), "--sessions", "a1", "--agent-option", "max_tool_calls=4")
    assert statuses(result) == {"a1": ("completed", None)}
    calls = stored_calls(tmp_path / "r.db", result["run_id"])
    turns = sorted({turn for turn, _, _ in calls})
    assert len(turns) > 1 and calls == [(turn, "list_dir", True) for turn in turns for _ in range(4)]  # each turn its own 4


def test_an_agent_that_does_not_exit_after_session_end_is_killed_after_its_grace(tmp_path: Path) -> None:
    began = time.monotonic()
    result = play(tmp_path, cmd("linger"), "--sessions", "a3", "--agent-option", "exit_grace=1")
    assert statuses(result) == {"a3": ("completed", None)}
    assert time.monotonic() - began < 15  # one second of grace, one after SIGTERM (ignored), then SIGKILL
    assert not any(alive(pid) for pid in pids(result["workspace"]))


def test_a_command_that_cannot_start_ends_each_session_as_error(tmp_path: Path) -> None:
    result = play(tmp_path, f"cmd:{tmp_path / 'no_such_agent'}", "--sessions", "a1")
    error = one_line_error(result, "a1")
    assert (
        error.startswith("agent failed to start the session:") and f"cannot start the agent command '{tmp_path / 'no_such_agent'}'" in error
    )


def test_a_sweep_goes_on_past_a_crashing_agent(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    result = run_cli("sweep", "--data", str(MINI), "--models", f"scripted:reference,{cmd('crash a1')}", "--db", str(db))
    assert result.exit_code == 0, result.output
    runs = {r.model: r for r in load_results(db=db)}
    assert set(runs) == {"scripted:reference", cmd("crash a1")}
    crashed = {s.session_id: s.status for s in runs[cmd("crash a1")].sessions}
    assert crashed == {"a1": "error", "a2": "completed", "a3": "completed"}
    assert {s.status for s in runs["scripted:reference"].sessions} == {"completed"}


PLANTED = {
    "OPENAI_API_KEY": "sk-planted-openai-4f1d",
    "ANTHROPIC_API_KEY": "sk-ant-planted-77c2",
    "OPENAI_BASE_URL": "http://planted-endpoint.invalid/v1",
    "PBENCH_JUDGE_KEY": "planted-judge-key-9e03",
}


@pytest.mark.parametrize("passing", [["--agent-env", "PASSED_ON_PURPOSE"], ["--agent-option", "env=PASSED_ON_PURPOSE"]])
def test_pbench_keys_and_endpoints_reach_the_agent_only_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, passing: list[str]
) -> None:
    for name, value in PLANTED.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PASSED_ON_PURPOSE", "visible-3b8a")
    monkeypatch.setenv("SET_BUT_NOT_NAMED", "hidden-51e0")
    dump = tmp_path / "dump.jsonl"
    result = play(
        tmp_path,
        cmd(f"dump {dump} tools"),
        "--base-url",
        "http://127.0.0.1:9/planted-user-judge-v1",
        *passing,
    )
    assert {status for status, _ in statuses(result).values()} == {"completed"}
    text = dump.read_text()
    for secret in [*PLANTED.values(), "planted-user-judge-v1", "hidden-51e0"]:
        assert secret not in text  # not in its environment, its arguments, any message or any MCP answer
    records = [json.loads(line) for line in text.splitlines()]
    answers = [record["tools"] for record in records if "tools" in record]
    assert len(answers) == 3 and "read_file" in json.loads(answers[0][0]) and "notes" in answers[0][1]  # the MCP answers were read
    for record in (r for r in records if "env" in r):
        env = record["env"]
        assert set(env) <= {*KEPT, *SESSION_VARIABLES, "PASSED_ON_PURPOSE"}, sorted(env)
        assert env["PBENCH_MCP_URL"].startswith("http://127.0.0.1:") and env["PBENCH_MCP_TOKEN"]
        assert env["PASSED_ON_PURPOSE"] == "visible-3b8a"  # the positive control: a named variable does arrive
        assert env["PBENCH_WORKSPACE"] == record["cwd"] == str(result["workspace"].resolve())


def test_the_messages_of_an_episode(tmp_path: Path) -> None:
    dump = tmp_path / "dump.jsonl"
    play(tmp_path, cmd(f"dump {dump}"))
    messages = [record["message"] for record in map(json.loads, dump.read_text().splitlines()) if "message" in record]
    starts = [m for m in messages if m["type"] == "session_start"]
    assert [(m["session"], m["position"], m["trigger"], len(m["history"])) for m in starts] == [
        ("a1", 1, "user", 0),
        ("a2", 2, "event", 1),
        ("a3", 3, "user", 2),
    ]
    assert all(m["mcp"]["url"].startswith("http://127.0.0.1:") and Path(m["workspace"]).is_dir() for m in starts)
    assert len({m["mcp"]["token"] for m in starts}) == 3  # a server and a token per session
    assert starts[1]["history"][0][0] == {"role": "user", "content": TRIGGERS["a1"]}
    by_conversation: dict[str, list[str]] = {}
    for m in messages:
        by_conversation.setdefault(m["conversation"], []).append(m["type"])
    assert len(by_conversation) == 3  # a fresh id per session, the same within one
    for types in by_conversation.values():
        assert types[0] == "session_start" and types[-1] == "session_end" and set(types[1:-1]) == {"user"}
    assert messages[1] == {"type": "user", "conversation": starts[0]["conversation"], "text": TRIGGERS["a1"]}


@pytest.mark.parametrize(
    ("model", "flags", "expected"),
    [
        ("cmd:", [], "cmd: names no command"),
        ("cmd:python 'unclosed", [], "cannot split the command: No closing quotation"),
        ("http:ftp://127.0.0.1/agent", [], "expected http:URL with an http:// or https:// URL"),
        ("cmd:true", ["--agent-option", "turn_timeouts=3"], "unknown --agent-option turn_timeouts"),
        ("cmd:true", ["--agent-option", "turn_timeout=soon"], "turn_timeout=soon: expected a positive number of seconds"),
        ("cmd:true", ["--agent-option", "max_tool_calls=0"], "max_tool_calls=0: expected a whole number of at least 1"),
        ("cmd:true", ["--agent-option", "max_tool_calls=2.5"], "max_tool_calls=2.5: expected a whole number of at least 1"),
        ("cmd:true", ["--agent-option", "max_tool_calls=" + "9" * 5000], "expected a whole number of at least 1"),
        (
            "cmd:true",
            ["--agent-option", "env=PBENCH_NOT_SET_ANYWHERE"],
            "--agent-env PBENCH_NOT_SET_ANYWHERE: not set in pbench's environment",
        ),
        ("cmd:true", ["--agent-option", "env=PBENCH_MCP_TOKEN"], "--agent-env PBENCH_MCP_TOKEN: set by pbench for each session"),
        ("cmd:true", ["--agent-env", "PBENCH_NOT_SET_ANYWHERE"], "--agent-env PBENCH_NOT_SET_ANYWHERE: not set in pbench's environment"),
        ("cmd:true", ["--agent-env", "PBENCH_MCP_URL"], "--agent-env PBENCH_MCP_URL: set by pbench for each session"),
        ("cmd:true", ["--agent-env", "NOT-A-NAME"], "--agent-env 'NOT-A-NAME': not an environment variable name"),
        ("cmd:true", ["--turn-timeout", "2", "--agent-option", "turn_timeout=3"], "give --turn-timeout or --agent-option turn_timeout"),
        (
            "scripted:reference",
            ["--agent-env", "HOME"],
            "--agent-env applies to cmd: agents, the processes pbench starts; scripted:reference",
        ),
        ("http:http://127.0.0.1:9/agent", ["--agent-env", "HOME"], "--agent-env applies to cmd: agents"),
        ("scripted:reference", ["--turn-timeout", "5"], "--turn-timeout applies to agents outside pbench's process (cmd:, http:, a2a:)"),
        ("http:http://127.0.0.1:9/agent", ["--agent-lifetime", "episode"], "--agent-lifetime applies to cmd: agents"),
        ("scripted:reference", ["--agent-lifetime", "episode"], "--agent-lifetime applies to cmd: agents"),
        ("cmd:true", ["--agent-lifetime", "forever"], "Invalid value for '--agent-lifetime'"),
        ("cmd:true", ["--agent-option", "lifetime=episode"], "--agent-option lifetime: give --agent-lifetime session|episode"),
    ],
)
def test_a_bad_external_agent_name_or_option_is_one_line_and_no_run(tmp_path: Path, model: str, flags: list[str], expected: str) -> None:
    result = run_cli("episode", "--data", str(MINI), "--persona", "mini", "--agent", model, "--db", str(tmp_path / "r.db"), *flags)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], result.output
    assert not (tmp_path / "r.db").exists() or not load_results("latest", db=tmp_path / "r.db")


def test_turn_timeout_and_agent_env_apply_to_a_sweeps_external_arms_and_are_stored_without_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PASSED_ON_PURPOSE", "visible-3b8a")
    dump, db = tmp_path / "dump.jsonl", tmp_path / "r.db"
    flags = ["--data", str(MINI), "--db", str(db), "--agent-env", "PASSED_ON_PURPOSE", "--turn-timeout", "2"]
    refused = run_cli("sweep", *flags, "--models", "scripted:reference")
    assert refused.exit_code == 2 and "--turn-timeout applies to agents outside pbench's process" in refused.output, refused.output
    result = run_cli("sweep", *flags, "--models", f"scripted:reference,{cmd(f'dump {dump}')}")
    assert result.exit_code == 0, result.output
    runs = {r.model: r for r in load_results(db=db)}
    assert {s.status for r in runs.values() for s in r.sessions} == {"completed"}  # the in-process arm ignores them
    envs = [json.loads(line)["env"] for line in dump.read_text().splitlines()]
    assert envs and all(env["PASSED_ON_PURPOSE"] == "visible-3b8a" for env in envs)
    with sqlite3.connect(db) as conn:
        configs = [json.loads(row[0]) for row in conn.execute("SELECT config FROM run")]
    assert sorted((c["agent"], c["agent_env"], c["turn_timeout"]) for c in configs) == [
        (cmd(f"dump {dump}"), ["PASSED_ON_PURPOSE"], 2.0),
        ("scripted:reference", [], None),
    ]
    assert "visible-3b8a" not in json.dumps(configs)  # the name is kept, never the value


# --- cmd: one process for the run's sessions (--agent-lifetime episode) --------------------------------------------


def test_an_episode_lifetime_keeps_one_process_for_the_run_s_sessions_each_told_its_own_server(tmp_path: Path) -> None:
    dump = tmp_path / "dump.jsonl"
    result = play(tmp_path, cmd(f"dump {dump} tools"), "--agent-lifetime", "episode")
    assert {sid: status for sid, (status, _) in statuses(result).items()} == dict.fromkeys(SESSIONS, "completed")
    started = pids(result["workspace"])
    assert len(started) == 1 and not alive(started[0]), started  # started once, stopped at the run's end
    records = [json.loads(line) for line in dump.read_text().splitlines()]
    starts = [r["message"] for r in records if "message" in r and r["message"]["type"] == "session_start"]
    assert [m["session"] for m in starts] == SESSIONS
    assert len({m["mcp"]["url"] for m in starts}) == len({m["mcp"]["token"] for m in starts}) == 3  # a server per session
    assert {m["workspace"] for m in starts} == {str(result["workspace"].resolve())}  # one folder: the run's workspace
    answers = [r["tools"] for r in records if "tools" in r]
    assert len(answers) == 3 and all("read_file" in json.loads(a[0]) for a in answers)  # each session's server reached
    envs = [r["env"] for r in records if "env" in r]
    assert all(e["PBENCH_WORKSPACE"] == str(result["workspace"].resolve()) for e in envs)
    assert not any("PBENCH_MCP_URL" in e or "PBENCH_MCP_TOKEN" in e for e in envs)  # a process outlives a session's server
    seen = (result["workspace"] / "seen.txt").read_text().splitlines()
    assert [line.split(":")[0] for line in seen if line.split()[1] == "1:"] == ["a1 1", "a2 1", "a3 1"]  # per session, one process


def test_an_episode_lifetime_crash_ends_its_session_and_the_next_session_starts_a_new_process(tmp_path: Path) -> None:
    result = play(tmp_path, cmd("crash a1"), "--agent-lifetime", "episode")
    assert "'RuntimeError: boom in a1'" in one_line_error(result, "a1")
    assert statuses(result)["a2"] == statuses(result)["a3"] == ("completed", None)
    started = pids(result["workspace"])
    assert len(started) == 2 and not any(alive(pid) for pid in started)  # a1's, then one for a2 and a3


def test_an_episode_lifetime_hung_turn_is_killed_and_the_run_goes_on(tmp_path: Path) -> None:
    result = play(tmp_path, cmd("hang a2"), "--agent-lifetime", "episode", "--turn-timeout", "1.5")
    assert "no reply within the turn timeout (1.5 s)" in one_line_error(result, "a2")
    assert statuses(result)["a1"] == statuses(result)["a3"] == ("completed", None)
    started = pids(result["workspace"])
    assert len(started) == 2 and not any(alive(pid) for pid in started)  # a1's kept for a2 and killed there; a3's own


def test_an_ablated_run_never_gets_a_process_kept_across_sessions(tmp_path: Path) -> None:
    """A process alive across sessions could carry what it saw into a session the ablation plays without that history:
    a sweep of ablated runs only is refused; in a sweep with both, the ablated runs get a process per session."""
    db = tmp_path / "r.db"
    flags = ["--data", str(MINI), "--db", str(db), "--models", cmd("echo"), "--agent-lifetime", "episode"]
    refused = run_cli("sweep", *flags, "--ablation", "no-dependency-history")
    assert refused.exit_code == 2 and "--agent-lifetime episode cannot serve --ablation no-dependency-history" in refused.output
    assert not db.exists() or not load_results(db=db)
    result = run_cli("sweep", *flags, "--ablation", "none,no-dependency-history")
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as conn:
        configs = [json.loads(row[0]) for row in conn.execute("SELECT config FROM run")]
    assert sorted((c["ablation"], c["agent_lifetime"]) for c in configs) == [("no-dependency-history", "session"), ("none", "episode")]
    runs = load_results(db=db)
    assert {s.status for r in runs for s in r.sessions} == {"completed"}


# --- the tool server, through the interface the MCP server plugs into ------------------------------------------


async def test_the_session_s_tool_server_reaches_the_agent_and_stops_with_the_session(tmp_path: Path) -> None:
    served: list[str] = []

    @contextmanager
    def fake_server(toolbox: Any) -> Iterator[McpEndpoint]:
        served.append("start")
        try:
            yield McpEndpoint("http://127.0.0.1:1/mcp", "session-token-5d2e")
        finally:
            served.append("stop")

    dump = tmp_path / "dump.jsonl"
    ctx = SessionContext("s1", "user", Workspace(tmp_path / "ws"), Memory(), SimpleNamespace(specs=[]))  # type: ignore[arg-type]
    for mode, reply in ((f"dump {dump}", "turn 1"), ("crash s1", None)):
        agent = CommandAgent(f"{sys.executable} {AGENT} {mode}", ExternalSettings(turn_timeout=10, exit_grace=5), fake_server)
        await agent.start_session(ctx)
        try:
            if reply is None:
                with pytest.raises(ExternalAgentError, match="boom in s1"):
                    await agent.respond("hello")
            else:
                assert (await agent.respond("hello")).reply == reply
        finally:
            await agent.end_session()
    assert served == ["start", "stop", "start", "stop"]  # stopped after a crash too
    first = json.loads(dump.read_text().splitlines()[0])
    assert first["env"]["PBENCH_MCP_URL"] == "http://127.0.0.1:1/mcp" and first["env"]["PBENCH_MCP_TOKEN"] == "session-token-5d2e"
    assert first["message"]["mcp"] == {"url": "http://127.0.0.1:1/mcp", "token": "session-token-5d2e"}


# --- http: --------------------------------------------------------------------------------------------------------


class AgentService(BaseHTTPRequestHandler):
    """An ``http:`` agent: replies ``turn N`` at ``/ok``; ``/status``, ``/junk``, ``/deep`` and ``/slow`` misbehave on user messages,
    ``/first-fails`` on the run's first one only. Each event is noted with the client's port (its connection); the
    ports whose connection closed are noted in ``closed`` (HTTP/1.1: a connection stays open until the client closes it)."""

    protocol_version = "HTTP/1.1"
    events: ClassVar[list[dict[str, Any]]] = []
    closed: ClassVar[list[int]] = []

    def finish(self) -> None:
        super().finish()
        self.closed.append(self.client_address[1])

    def do_POST(self) -> None:
        event = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.events.append({**event, "path": self.path, "port": self.client_address[1], "accepts": self.headers["Accept-Encoding"]})
        status, body = 200, b""
        if event["type"] == "user":
            turns = sum(e["type"] == "user" and e["conversation"] == event["conversation"] for e in self.events)
            body = json.dumps({"type": "reply", "text": f"turn {turns}"}).encode()
            first = sum(e["type"] == "user" for e in self.events) == 1
            if self.path == "/status" or (self.path == "/first-fails" and first):
                status, body = 500, b"oops: the agent fell over"
            elif self.path == "/junk":
                body = b"<html>not a reply</html>"
            elif self.path == "/deep":
                body = b'{"type": ' * 100_000
            elif self.path == "/slow":
                time.sleep(4)
            elif self.path in ("/gzip", "/gzip-bomb", "/brotli"):
                body = zlib.compress(body, wbits=16 + zlib.MAX_WBITS) if self.path != "/gzip-bomb" else gzip_bomb()
        try:
            self.send_response(status)
            if event["type"] == "user" and self.path in ("/gzip", "/gzip-bomb", "/brotli"):
                self.send_header("Content-Encoding", "br" if self.path == "/brotli" else "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except BrokenPipeError:  # /slow: pbench gave up on the turn
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def service() -> Iterator[str]:
    AgentService.events, AgentService.closed = [], []
    server = ThreadingHTTPServer(("127.0.0.1", 0), AgentService)
    server.daemon_threads, server.block_on_close = True, False
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_http_agent_gets_each_event_as_a_post_and_answers_user_messages(tmp_path: Path, service: str) -> None:
    result = play(tmp_path, f"http:{service}/ok")
    assert {status for status, _ in statuses(result).values()} == {"completed"}
    events = AgentService.events
    assert [e["session"] for e in events if e["type"] == "session_start"] == SESSIONS
    assert events[1]["type"] == "user" and events[1]["text"] == TRIGGERS["a1"]
    assert sum(e["type"] == "session_end" for e in events) == 3 and len({e["conversation"] for e in events}) == 3


def closed_in_time(port: int) -> bool:
    deadline = time.monotonic() + 10
    while port not in AgentService.closed and time.monotonic() < deadline:
        time.sleep(0.02)
    return port in AgentService.closed


def test_one_http_client_serves_the_run_s_sessions_and_closes_at_its_end(tmp_path: Path, service: str) -> None:
    """The run's POSTs all go over one kept-alive connection (a client per session would open one per session), which
    the run's end closes."""
    result = play(tmp_path, f"http:{service}/ok")
    assert {status for status, _ in statuses(result).values()} == {"completed"}
    ports = {e["port"] for e in AgentService.events}
    assert len(ports) == 1 and len({e["conversation"] for e in AgentService.events}) == 3
    assert closed_in_time(ports.pop())


def test_after_an_http_fault_the_next_session_gets_a_new_client(tmp_path: Path, service: str) -> None:
    result = play(tmp_path, f"http:{service}/first-fails")
    assert "HTTP 500" in one_line_error(result, "a1")
    assert [statuses(result)[s][0] for s in ("a2", "a3")] == ["completed", "completed"]
    first = {e["port"] for e in AgentService.events if e["conversation"] == AgentService.events[0]["conversation"]}
    later = {e["port"] for e in AgentService.events} - first
    assert len(first) == 1 and len(later) == 1  # a1's connection dropped at its fault, one new one for a2 and a3
    assert closed_in_time(first.pop()) and closed_in_time(later.pop())


HTTP_FAULTS = {
    "/status": "the agent answered user with HTTP 500: 'oops: the agent fell over'",
    "/junk": "the agent's response body is not JSON: '<html>not a reply</html>'",
    "/deep": 'the agent\'s response body is not JSON: \'{"type": {"type": ',
    "/slow": "no reply within the turn timeout (1 s)",
    "/gzip-bomb": f"the agent's response to user is over {MAX_LINE_BYTES} bytes: '     ",
    "/brotli": "the agent's response to user is in content encoding 'br', which pbench does not decode",
}


@pytest.mark.parametrize("path", sorted(HTTP_FAULTS))
def test_a_misbehaving_http_agent_gets_a_one_line_reason(tmp_path: Path, service: str, path: str) -> None:
    began = time.monotonic()
    result = play(tmp_path, f"http:{service}{path}", "--sessions", "a1", "--agent-option", "turn_timeout=1")
    assert HTTP_FAULTS[path] in one_line_error(result, "a1")
    assert time.monotonic() - began < 10


def test_an_http_agent_is_asked_for_no_compression_and_a_compressed_reply_is_decoded(tmp_path: Path, service: str) -> None:
    result = play(tmp_path, f"http:{service}/gzip", "--sessions", "a1")
    assert statuses(result)["a1"] == ("completed", None)
    assert {e["accepts"] for e in AgentService.events} == {"identity"}


def test_a_compressed_http_reply_is_cut_at_the_cap_as_it_is_decoded(tmp_path: Path, service: str) -> None:
    """A 64 KB gzip body inflating to 64 MiB: decoded a chunk at a time up to the 1 MiB cap (read whole, each 64 KiB network
    read inflated to 64 MiB first)."""
    agent = HttpAgent(f"{service}/gzip-bomb")
    agent._open(mini_context(tmp_path), None)
    tracemalloc.start()
    try:
        with pytest.raises(ExternalAgentError, match=f"over {MAX_LINE_BYTES} bytes"):
            agent._post({"type": "user", "conversation": "c", "text": "hi"}, time.monotonic() + 30)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        agent._end_episode()
    assert peak < 8 * MAX_LINE_BYTES < BOMB_INFLATED


def test_an_unreachable_http_agent_ends_its_session_as_error(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), AgentService)
    port = server.server_address[1]
    server.server_close()  # nothing listens there now
    result = play(tmp_path, f"http:http://127.0.0.1:{port}/agent", "--sessions", "a1")
    assert f"cannot reach the agent at http://127.0.0.1:{port}/agent: ConnectError" in one_line_error(result, "a1")


# --- the shipped examples: a recorded scripted:reference run replayed over MCP --------------------------------------


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    folder = tmp_path_factory.mktemp("reference")
    admit_unchanged(folder, DATA, ["pharmacist"], tmp_path_factory)  # the subject is the agent's transport, not the data's checks
    return record_reference(folder)


@pytest.mark.usefixtures("admitted_pharmacist")
@pytest.mark.parametrize(("transport", "flags"), [("cmd", []), ("cmd", ["--agent-lifetime", "episode"]), ("http", [])])
def test_the_replay_example_gives_the_in_process_reference_figures_and_tool_calls(
    tmp_path: Path,
    recording: Recording,
    transport: str,
    flags: list[str],
) -> None:
    path, reference = recording
    with ExitStack() as stack:
        if transport == "cmd":
            model = f"cmd:{sys.executable} {EXAMPLES / 'cmd_reference.py'} {path}"
        else:
            model = f"http:{stack.enter_context(example_service('http_reference.py', path))}"
        assert_replays_reference(tmp_path, model, reference, *flags)


def test_the_http_example_answers_a_post_without_waiting_for_a_delayed_ack(tmp_path: Path) -> None:
    """Its answer's body leaves right after its headers (``disable_nagle_algorithm``): without it each POST took 40 to 48 ms."""
    (tmp_path / "empty.jsonl").write_text("")
    with example_service("http_reference.py", tmp_path / "empty.jsonl") as url, httpx2.Client(trust_env=False) as client:
        assert median_round_trip_ms(client, "POST", url, {"type": "session_end", "conversation": "none"}) < 25
