"""``a2a:URL``: an Agent2Agent agent built with the official ``a2a-sdk`` on a loopback thread (tests/helpers/a2a_server.py),
driven through ``pbench episode``: the card read, one context per session, a message per turn, the MCP address in the
message metadata, replies from messages and tasks, and faults ending only their session as ``error`` in one line.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from a2a.helpers import new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from proactive_bench.scaffolds.external import A2aAgent, ExternalAgentError, ExternalSettings
from proactive_bench.scaffolds.external.a2a_agent import MAX_ANSWER_BYTES
from tests.helpers.a2a_server import a2a_app, agent_card, loopback, serve
from tests.helpers.admitted import admit_unchanged
from tests.helpers.bodies import gzip_bomb
from tests.helpers.cli import run_cli
from tests.helpers.paths import DATA, MINI
from tests.helpers.reference_replay import assert_replays_reference, example_service, median_round_trip_ms, record_reference
from tests.helpers.session_contexts import mini_context, served_nothing

SESSIONS = ["a1", "a2", "a3"]
TRIGGER_A1 = "Can you summarise notes/batch.csv for me?"


def play(tmp_path: Path, model: str, *extra: str) -> dict[str, Any]:
    """``pbench episode --json`` on the mini persona."""
    ran = run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--agent", model, "--db", str(tmp_path / "r.db"), *extra)
    assert ran.exit_code in (0, 1), ran.output  # 1: a session ended as error
    result: dict[str, Any] = json.loads(ran.stdout)
    return result


def statuses(result: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {s["session_id"]: (s["status"], s["error"]) for s in result["sessions"]}


def one_line_error(result: dict[str, Any], session: str) -> str:
    status, error = statuses(result)[session]
    assert status == "error" and error is not None and "\n" not in error, (status, error)
    return error


class Recorder(AgentExecutor):
    """Notes every message it gets; answers as ``style`` says: ``message`` (a reply message), ``task`` (a task kept
    ``input-required``, the reply as an artifact, a question in its status), ``fail`` (a task that fails), ``silent`` (a message without text)."""

    def __init__(self, style: str) -> None:
        self.style = style
        self.seen: list[dict[str, Any]] = []
        self.ends: list[dict[str, Any]] = []
        self.canceled: list[str] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None and context.task_id is not None and context.context_id is not None
        metadata = MessageToDict(context.message.metadata)
        if metadata.get("pbench", {}).get("type") == "session_end":  # answered like any message, to be canceled if left open
            parts = [MessageToDict(part) for part in context.message.parts]
            self.ends.append({"context_id": context.context_id, "task_id": context.task_id, "metadata": metadata, "parts": parts})
        turns = sum(s["context_id"] == context.context_id for s in self.seen) + 1
        self.seen.append(
            {
                "text": context.get_user_input(),
                "context_id": context.context_id,
                "task_id": context.task_id,
                "continued": context.current_task is not None,
                "metadata": MessageToDict(context.message.metadata),
            }
        )
        reply = f"turn {turns}"
        if self.style == "message":
            await event_queue.enqueue_event(new_text_message(reply, context_id=context.context_id, task_id=context.task_id))
            return
        if self.style == "silent":
            await event_queue.enqueue_event(new_text_message("", context_id=context.context_id))
            return
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if context.current_task is None:
            await event_queue.enqueue_event(new_task_from_user_message(context.message))
        if self.style == "fail":
            await updater.failed(updater.new_agent_message([new_text_part("the tool broke")]))
            return
        await updater.add_artifact([new_text_part(reply)])
        await updater.requires_input(updater.new_agent_message([new_text_part("anything else?")]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None and context.context_id is not None
        self.canceled.append(context.task_id)
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


@pytest.mark.parametrize("style", ["message", "task"])
def test_an_a2a_agent_gets_a_message_per_turn_in_one_context_per_session(tmp_path: Path, style: str) -> None:
    agent = Recorder(style)
    with serve(agent) as url:  # the card found from the base URL, or named itself
        result = play(tmp_path, f"a2a:{url}" if style == "message" else f"a2a:{url}/.well-known/agent-card.json")
    assert {status for status, _ in statuses(result).values()} == {"completed"}, statuses(result)
    ends = agent.ends
    seen = [s for s in agent.seen if s["metadata"]["pbench"].get("type") != "session_end"]
    assert len(agent.seen) == len(seen) + 3 and agent.seen[-1]["metadata"]["pbench"]["type"] == "session_end"
    assert [e["metadata"]["pbench"] for e in ends] == [{"type": "session_end", "conversation": e["context_id"]} for e in ends]
    assert [e["parts"] for e in ends] == [[{"data": {"type": "session_end"}}]] * 3
    assert [e["context_id"] for e in ends] == list(dict.fromkeys(s["context_id"] for s in seen))  # each session's own, once, last
    for end in ends:  # after the session's last turn
        assert agent.seen.index(
            next(s for s in agent.seen if s["context_id"] == end["context_id"] and s["metadata"]["pbench"].get("type"))
        ) == max(i for i, s in enumerate(agent.seen) if s["context_id"] == end["context_id"])
    if style == "task":  # the session's task, which the agent keeps open, is ended with it
        assert agent.canceled == [e["task_id"] for e in ends] and ends[0]["task_id"] == seen[0]["task_id"]
    else:
        assert agent.canceled == []
    assert seen[0]["text"] == TRIGGER_A1
    contexts = list(dict.fromkeys(s["context_id"] for s in seen))
    assert len(contexts) == 3  # a fresh context per session, the same within one
    firsts = [s["metadata"]["pbench"] for s in seen if not any(o["context_id"] == s["context_id"] for o in seen[: seen.index(s)])]
    assert [(m["session"], m["position"], m["trigger"], len(m["history"])) for m in firsts] == [
        ("a1", 1, "user", 0),
        ("a2", 2, "event", 1),
        ("a3", 3, "user", 2),
    ]
    for record in seen:
        pbench = record["metadata"]["pbench"]
        assert pbench["conversation"] == record["context_id"]
        assert pbench["mcp"]["url"].startswith("http://127.0.0.1:") and pbench["mcp"]["token"]
    assert len({s["metadata"]["pbench"]["mcp"]["token"] for s in seen}) == 3  # a tool server per session
    later = [s for s in seen if s not in [seen[0]] and s["context_id"] == contexts[0]]
    assert all("history" not in s["metadata"]["pbench"] for s in later)
    for context in contexts:
        turns = [s for s in seen if s["context_id"] == context]
        if style == "task":  # the task stays open (input-required): the whole session is one task
            assert len({s["task_id"] for s in turns}) == 1 and [s["continued"] for s in turns] == [False] + [True] * (len(turns) - 1)
        else:
            assert len({s["task_id"] for s in turns}) == len(turns)
    transcript = run_cli("export", result["run_id"], "--db", str(tmp_path / "r.db"), "--out", str(tmp_path / "x.jsonl"))
    assert transcript.exit_code == 0, transcript.output
    for record in map(json.loads, (tmp_path / "x.jsonl").read_text().splitlines()):  # each turn's own reply, not the task's old artifacts
        replies = [m["content"] for m in record["messages"] if m["role"] == "assistant"]
        assert replies == [f"turn {n}" for n in range(1, len(replies) + 1)], (record["session_id"], replies)


class Counted:
    """An A2A agent (the executor's) that counts the reads of its card and notes the client port of each request."""

    def __init__(self, executor: AgentExecutor) -> None:
        self.executor = executor
        self.cards = 0
        self.ports: list[int] = []

    def app(self, url: str) -> Any:
        inner = a2a_app(self.executor, url)

        async def counted(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                self.ports.append(scope["client"][1])
                self.cards += scope["path"].endswith("agent-card.json")
            await inner(scope, receive, send)

        return counted


@pytest.mark.parametrize(("style", "cards"), [("message", 1), ("fail", 3)])
def test_one_a2a_client_serves_the_run_s_sessions_and_a_fault_starts_the_next_afresh(tmp_path: Path, style: str, cards: int) -> None:
    """The card is read once per run and every message goes over one kept-alive connection; after a fault (a failed
    task) the client is dropped, so each failing session reads the card anew."""
    counted = Counted(Recorder(style))
    with loopback(counted.app) as url:
        result = play(tmp_path, f"a2a:{url}")
    assert {status for status, _ in statuses(result).values()} == ({"completed"} if style == "message" else {"error"})
    assert counted.cards == cards
    assert len(set(counted.ports)) == cards


async def test_the_a2a_client_and_its_thread_end_with_the_episode(tmp_path: Path) -> None:
    counted = Counted(Recorder("message"))
    with loopback(counted.app) as url:
        agent = A2aAgent(url, ExternalSettings(turn_timeout=20), served_nothing)
        before = _client_threads()  # another test's client may still run in this process: compared by identity
        for session in ("a1", "a2"):
            await agent.start_session(mini_context(tmp_path / session, session))
            assert (await agent.respond("hello")).reply == "turn 1"
            await agent.end_session()
            assert len(_client_threads() - before) == 1  # kept for the next session
        await agent.end_episode()
        assert not _client_threads() - before
        with pytest.raises(ExternalAgentError, match="no session started"):
            agent._ask({"type": "user", "conversation": "c", "text": "t"}, time.monotonic() + 1)
    assert counted.cards == 1 and len(set(counted.ports)) == 1


class Misbehaving:
    """A card that is fine (or garbage, or nested too deep), then a JSON-RPC endpoint that answers 500, garbage, JSON nested too
    deep, late, a gzip body inflating to 64 MiB, or a body without end."""

    def __init__(self, fault: str) -> None:
        self.fault = fault

    def app(self, url: str) -> Starlette:
        card = MessageToDict(agent_card(url))

        async def card_route(request: Request) -> Response:
            if self.fault == "deepcard":
                return Response(b'{"name": ' * 100_000, media_type="application/json")
            return Response(b"<html>no card here</html>", media_type="text/html") if self.fault == "card" else JSONResponse(card)

        async def rpc(request: Request) -> Response:
            if self.fault == "status":
                return Response(b"oops: the agent fell over", status_code=500)
            if self.fault == "slow":
                await asyncio.sleep(2)  # past the 1 s turn timeout; the server waits for it on shutdown
            if self.fault == "deep":
                return Response(b"[" * 100_000, media_type="application/json")
            if self.fault == "bomb":
                return Response(gzip_bomb(), headers={"Content-Encoding": "gzip"}, media_type="application/json")
            if self.fault == "endless":
                return StreamingResponse(endless(), media_type="application/json")
            return Response(b"<html>not json-rpc</html>", media_type="text/html")

        return Starlette(routes=[Route("/.well-known/agent-card.json", card_route), Route("/", rpc, methods=["POST"])])


A2A_FAULTS = {
    "status": "the agent's A2A answer failed: A2AClientError: HTTP Error 500",
    "garbage": "the agent's A2A answer failed: A2AClientError: JSON Decode Error",
    "slow": "no reply within the turn timeout (1 s)",
    "deep": "the agent's A2A answer failed: JSON nested too deep to read",
    "bomb": f"the agent's A2A answer failed: A2AClientError: Network communication error: an answer over {MAX_ANSWER_BYTES} bytes",
    "endless": f"the agent's A2A answer failed: A2AClientError: Network communication error: an answer over {MAX_ANSWER_BYTES} bytes",
    "card": "cannot use the agent card of http://127.0.0.1:",
    "deepcard": "JSON nested too deep to read",  # (at the session's start: "agent failed to start the session")
}


async def endless() -> AsyncIterator[bytes]:
    """A body that never ends: spaces, as fast as the connection takes them."""
    chunk = b" " * (64 << 10)
    while True:
        yield chunk
        await asyncio.sleep(0)


@pytest.mark.parametrize("fault", sorted(A2A_FAULTS))
def test_a_misbehaving_a2a_agent_gets_a_one_line_reason(tmp_path: Path, fault: str) -> None:
    began = time.monotonic()
    with loopback(Misbehaving(fault).app) as url:
        result = play(tmp_path, f"a2a:{url}", "--sessions", "a1,a2", "--agent-option", "turn_timeout=1")
    assert time.monotonic() - began < 30
    for session in ("a1", "a2"):  # each session meets the fault afresh; the run goes on
        assert A2A_FAULTS[fault] in one_line_error(result, session)


@pytest.mark.parametrize(
    ("style", "expected"),
    [("fail", "the agent's task ended failed: 'the tool broke'"), ("silent", "the agent's message has no text part")],
)
def test_an_a2a_answer_without_a_reply_ends_the_session_as_error(tmp_path: Path, style: str, expected: str) -> None:
    with serve(Recorder(style)) as url:
        result = play(tmp_path, f"a2a:{url}", "--sessions", "a1")
    assert expected in one_line_error(result, "a1")


def test_an_unreachable_a2a_agent_is_one_line(tmp_path: Path) -> None:
    with loopback(Misbehaving("status").app) as url:
        pass  # the port is free again: nothing listens there
    result = play(tmp_path, f"a2a:{url}", "--sessions", "a1")
    assert "cannot use the agent card of" in one_line_error(result, "a1")


def test_an_a2a_url_that_is_not_http_is_refused_before_the_run(tmp_path: Path) -> None:
    ran = run_cli("episode", "--data", str(MINI), "--persona", "mini", "--agent", "a2a:ftp://x", "--db", str(tmp_path / "r.db"))
    assert ran.exit_code == 2 and "expected a2a:URL with an http:// or https:// URL" in ran.output, ran.output
    with pytest.raises(ExternalAgentError, match="no session started"):
        A2aAgent("http://127.0.0.1:9", ExternalSettings())._ask({"type": "user", "conversation": "c", "text": "t"}, time.monotonic() + 1)


# --- the shipped example: a recorded scripted:reference run replayed over MCP, behind A2A ------------------------


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the agent's transport, not the data's checks
def test_the_a2a_replay_example_gives_the_in_process_reference_figures_and_tool_calls(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    (tmp_path / "reference").mkdir()
    admit_unchanged(tmp_path / "reference", DATA, ["pharmacist"], tmp_path_factory)
    path, reference = record_reference(tmp_path / "reference")
    with example_service("a2a_reference.py", path) as url:
        assert_replays_reference(tmp_path, f"a2a:{url}", reference)


def test_the_a2a_example_answers_without_waiting_for_a_delayed_ack(tmp_path: Path) -> None:
    """Its listening socket has ``TCP_NODELAY`` (asyncio sets it only on sockets it makes): without it each request,
    a message as much as the card, took 40 to 48 ms."""
    (tmp_path / "empty.jsonl").write_text("")
    with example_service("a2a_reference.py", tmp_path / "empty.jsonl") as url, httpx2.Client(trust_env=False) as client:
        assert median_round_trip_ms(client, "GET", f"{url}/.well-known/agent-card.json") < 25


def _client_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "a2a-client"}
