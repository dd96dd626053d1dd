"""The default ReAct scaffold against a stub OpenAI-compatible server (real client, loopback only)."""

from __future__ import annotations

import base64
import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest
from PIL import Image

from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, ToolRecord, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from proactive_bench.llm.http_chat import HttpChatOpenAI
from proactive_bench.llm.ledger import LLMCallRecord
from proactive_bench.llm.transport import ChatTransport
from proactive_bench.scaffolds.langchain_tools import as_langchain_tools
from proactive_bench.scaffolds.protocol import ScaffoldLoadError, ScaffoldOptions, SessionContext
from proactive_bench.scaffolds.react import (
    EVENT_PREFIX,
    AgentModelError,
    ReactAgent,
    _unbound,
    react_scaffold,
    tool_calls_in_text,
)
from proactive_bench.testing.stub_server import (
    DROP,
    RawReply,
    Reply,
    StubServer,
    error_reply,
    text_reply,
    tool_call_reply,
)
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI


def scripted(*replies: Reply) -> Any:
    """A responder that serves ``replies`` in order, then repeats the last one."""
    queue = list(replies)

    def responder(_body: dict[str, Any]) -> Reply:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return responder


@dataclass
class Rig:
    agent: ReactAgent
    toolbox: ToolBox
    calls: list[LLMCallRecord]

    @property
    def workspace(self) -> Workspace:
        return self.toolbox.env.workspace


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[StubServer]:
    replies = getattr(request, "param", [text_reply("ok")])
    with StubServer(scripted(*replies)) as stub:
        yield stub


def make_rig(
    server: StubServer,
    tmp_path: Path,
    memory: Memory | None = None,
    history: list[list[dict[str, str]]] | None = None,
    trigger: Literal["user", "event"] = "user",
    transport: ChatTransport | None = None,
    tools: list[str] | None = None,
    **extra: Any,
) -> Rig:
    calls: list[LLMCallRecord] = []
    options = ScaffoldOptions(
        model="openai:stub-model",
        base_url=server.base_url,
        recorder=calls.append,
        extra={"max_retries": 0, **extra},
        transport=transport,
    )
    agent = react_scaffold(options)
    toolbox = ToolBox(ToolEnv(Workspace(tmp_path / "ws"), memory or Memory()), resolve_tool_names(tools or []))
    ctx = SessionContext("s1", trigger, toolbox.env.workspace, toolbox.env.memory, toolbox, history=history or [])
    agent.start_session(ctx)
    return Rig(agent, toolbox, calls)


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


WRITE = [
    tool_call_reply([("write_file", {"path": "notes/todo.md", "content": "buy milk"})]),
    text_reply("Saved your list to notes/todo.md."),
]


@pytest.mark.parametrize("server", [WRITE], indirect=True)
async def test_tool_call_then_answer(server: StubServer, tmp_path: Path) -> None:
    rig = make_rig(server, tmp_path)
    turn = await rig.agent.respond("Please keep a todo list: buy milk")
    assert turn.reply == "Saved your list to notes/todo.md."
    assert rig.workspace.read_text("notes/todo.md") == "buy milk"
    assert [(r.tool_name, r.ok) for r in rig.toolbox.records] == [("write_file", True)]
    first, second = server.requests
    assert "write_file" in {t["function"]["name"] for t in first["tools"]}
    assert tool_messages(second) == ["wrote 8 characters to notes/todo.md"]
    assert [(c.role, c.purpose, c.model, c.ok, c.prompt_tokens, c.completion_tokens) for c in rig.calls] == [
        ("agent", "react_step", "openai:stub-model", True, 11, 7)
    ] * 2
    assert all(c.latency_ms > 0 for c in rig.calls)


LOOK = [tool_call_reply([("view_image", {"path": "plan.png"}), ("read_file", {"path": "plan.png"})]), text_reply("Room 3.04.")]


@pytest.mark.parametrize("server", [LOOK], indirect=True)
async def test_a_picture_looked_at_reaches_the_model_as_an_image_part_after_the_tool_results(server: StubServer, tmp_path: Path) -> None:
    rig = make_rig(server, tmp_path, tools=["workspace", "images"])
    data = io.BytesIO()
    Image.new("RGB", (12, 9), (10, 120, 200)).save(data, format="PNG")
    rig.workspace.write_bytes("plan.png", data.getvalue())
    await rig.agent.respond("Which room is nearest the lift?")
    first, second = server.requests
    assert "view_image" in {t["function"]["name"] for t in first["tools"]}
    *_, looked, read, shown = second["messages"]
    assert (looked["role"], read["role"]) == ("tool", "tool") and '"width": 12' in looked["content"]
    assert shown["role"] == "user" and shown["content"][0] == {"type": "text", "text": "[view_image] plan.png:"}
    url = shown["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",", 1)[1]) == data.getvalue()
    assert len(shown["content"]) == 2  # read_file shows no picture


def _unparseable_call() -> dict[str, Any]:
    reply = tool_call_reply([("read_file", {"path": "x"})])
    reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"path": '
    return reply


BAD_ARGS = [
    tool_call_reply([("write_file", {"path": "a.md"}), ("delete_everything", {})]),
    _unparseable_call(),
    text_reply("Sorry, I could not write it."),
]


@pytest.mark.parametrize("server", [BAD_ARGS], indirect=True)
async def test_tool_errors_go_back_to_the_model(server: StubServer, tmp_path: Path) -> None:
    rig = make_rig(server, tmp_path)
    turn = await rig.agent.respond("write a.md")
    assert turn.reply == "Sorry, I could not write it."
    assert [(r.tool_name, r.ok) for r in rig.toolbox.records] == [("write_file", False), ("delete_everything", False)]
    missing, unknown = tool_messages(server.requests[1])
    assert "invalid arguments" in missing and "content" in missing and "Field required" in missing
    assert "unknown tool 'delete_everything'" in unknown
    (unparsed,) = tool_messages(server.requests[2])[2:]
    assert "could not be parsed" in unparsed
    assert not rig.workspace.resolve("a.md").exists()


@pytest.mark.parametrize("server", [[tool_call_reply([("list_dir", {})])]], indirect=True)
async def test_step_cap_stops_the_loop(server: StubServer, tmp_path: Path) -> None:
    rig = make_rig(server, tmp_path, max_steps=3)
    turn = await rig.agent.respond("loop forever")
    assert "stopped after 3 steps" in turn.reply
    assert len(server.requests) == 3
    assert len(rig.toolbox.records) == 3
    await rig.agent.respond("and now?")  # the history stays valid for the next message
    assert server.requests[3]["messages"][-2:] == [{"role": "assistant", "content": turn.reply}, {"role": "user", "content": "and now?"}]


FLOOD = tool_call_reply([("list_dir", {"path": "."})] * 600)
"""A model answering with 600 tool calls at once (a strange server, or a model gone wrong)."""


@pytest.mark.parametrize("server", [[FLOOD, text_reply("done")]], indirect=True)
async def test_a_turn_s_tool_calls_are_capped_and_the_rest_refused_unrun(server: StubServer, tmp_path: Path) -> None:
    rig = make_rig(server, tmp_path, max_tool_calls=50)
    turn = await rig.agent.respond("list everything")
    assert turn.reply == "I stopped after 50 tool calls without finishing this request."
    assert len(server.requests) == 1 and len(rig.toolbox.records) == 50  # one answer; only 50 of its calls ran and were recorded
    rig.toolbox.turn = 1  # the runner numbers the next turn
    assert (await rig.agent.respond("and now?")).reply == "done"
    answered = tool_messages(server.requests[1])
    assert len(answered) == 600 and sum("tool calls are spent" in text for text in answered) == 550  # every call id answered
    assert server.requests[1]["messages"][-2:] == [{"role": "assistant", "content": turn.reply}, {"role": "user", "content": "and now?"}]


@pytest.mark.parametrize("server", [[text_reply("first answer"), text_reply("second answer")]], indirect=True)
async def test_history_is_kept_across_messages(server: StubServer, tmp_path: Path) -> None:
    rig = make_rig(server, tmp_path)
    assert (await rig.agent.respond("hello one")).reply == "first answer"
    assert (await rig.agent.respond("hello two")).reply == "second answer"
    second = [(m["role"], m["content"]) for m in server.requests[1]["messages"][1:]]
    assert second == [("user", "hello one"), ("assistant", "first answer"), ("user", "hello two")]


async def test_system_prompt_has_tools_memory_and_history(server: StubServer, tmp_path: Path) -> None:
    history = [[{"role": "user", "content": "Draft the Q3 report"}, {"role": "agent", "content": "Done, see report.md"}]]
    rig = make_rig(server, tmp_path, memory=Memory({"report_format": "tables please"}), history=history, trigger="event")
    await rig.agent.respond("A new invoice arrived in inbox/.")
    system, first = server.requests[0]["messages"][:2]
    assert system["role"] == "system"
    assert "- report_format: tables please" in system["content"]
    assert "- write_file: Create or overwrite a text file in the workspace." in system["content"]
    assert "Session 1:\nuser: Draft the Q3 report\nagent: Done, see report.md" in system["content"]
    assert "started by an event" in system["content"]
    assert first == {"role": "user", "content": EVENT_PREFIX + "A new invoice arrived in inbox/."}


@pytest.mark.parametrize("server", [[error_reply(500, "upstream exploded")]], indirect=True)
async def test_server_errors_raise_after_bounded_retries(server: StubServer, tmp_path: Path) -> None:
    rig = make_rig(server, tmp_path, max_retries=1)
    with pytest.raises(AgentModelError, match=r"'openai:stub-model' failed at step 1: \w+Error.*500.*upstream exploded"):
        await rig.agent.respond("hi")
    assert len(server.requests) == 2
    (call,) = rig.calls
    assert not call.ok and call.error is not None and "upstream exploded" in call.error


async def test_respond_needs_a_session(server: StubServer, tmp_path: Path) -> None:
    agent = react_scaffold(ScaffoldOptions(model="openai:stub-model", base_url=server.base_url))
    with pytest.raises(RuntimeError, match="before start_session"):
        await agent.respond("hi")


async def test_langchain_tools_record_through_the_toolbox(tmp_path: Path) -> None:
    toolbox = ToolBox(ToolEnv(Workspace(tmp_path), Memory()), resolve_tool_names([]))
    tools = {tool.name: tool for tool in as_langchain_tools(toolbox)}
    assert set(tools) == {spec.name for spec in toolbox.specs}
    assert tools["write_file"].description == toolbox.spec("write_file").description  # type: ignore[union-attr]
    assert tools["write_file"].invoke({"path": "a.txt", "content": "hi"}) == "wrote 2 characters to a.txt"
    message = await tools["write_file"].ainvoke({"type": "tool_call", "id": "c1", "name": "write_file", "args": {"path": "b.txt"}})
    assert message.tool_call_id == "c1"
    assert "Field required" in json.loads(message.content)["error"]
    assert isinstance(message.artifact, ToolRecord) and not message.artifact.ok
    assert [(r.tool_name, r.ok) for r in toolbox.records] == [("write_file", True), ("write_file", False)]


def test_cli_runs_react_over_http_and_later_sessions_see_earlier_ones(tmp_path: Path) -> None:
    """``--model openai:NAME`` drives the react scaffold; session a2's system prompt holds a1's dialogue."""

    def respond(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]
        if last["role"] == "tool":
            return text_reply("Done: the summary is written in mg/L with the mean.")
        return tool_call_reply([("write_file", {"path": "out/summary.md", "content": "# Batch summary\nmean 4.65 mg/L\n"})])

    with StubServer(respond) as stub:
        result = run_cli(
            "episode",
            "--json",
            "--data",
            str(MINI),
            "--persona",
            "mini",
            "--model",
            "openai:stub-agent",
            "--base-url",
            stub.base_url,
            "--db",
            str(tmp_path / "r.db"),
            "--sessions",
            "a1,a2",
            "--agent-option",
            "max_steps=3",
        )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["sessions"][0]["completed"] == 2 and out["sessions"][0]["status"] == "completed"
    a2_system = [b["messages"][0]["content"] for b in stub.requests if "weekly batch note" in json.dumps(b["messages"])]
    assert a2_system and "Earlier sessions with this user" in a2_system[0] and "summarise notes/batch.csv" in a2_system[0]


BAD_REACT_OPTIONS = {
    "max_steps=lots": "react: --agent-option max_steps=lots: expected a whole number of at least 1",
    "max_tool_calls=0": "react: --agent-option max_tool_calls=0: expected a whole number of at least 1",
    "max_tool_calls=" + "9" * 5000: "max_tool_calls=" + "9" * 40 + ": expected a whole number of at least 1",
    "max_retries=-1": "max_retries=-1: expected a whole number of at least 0",
    "max_steps=1_000": "max_steps=1_000: expected a whole number",
    "context_tokens=+8192": "context_tokens=+8192: expected a whole number",
    "max_steps=3\n4": "max_steps=3 4: expected a whole number of at least 1",
}


def test_cli_rejects_bad_agent_options(tmp_path: Path) -> None:
    episode = ["episode", "--data", str(MINI), "--persona", "mini", "--model", "openai:x", "--db", str(tmp_path / "r.db")]
    with StubServer(scripted(text_reply("ok"))) as stub:
        refusals = {bad: run_cli(*episode, "--base-url", stub.base_url, "--agent-option", bad) for bad in BAD_REACT_OPTIONS}
    for bad, refused in refusals.items():
        assert refused.exit_code == 2 and BAD_REACT_OPTIONS[bad] in refused.output, refused.output
        assert len(refused.output.strip().splitlines()) == 1, refused.output
    result = run_cli(
        "episode",
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--model",
        "scripted:reference",
        "--db",
        str(tmp_path / "r.db"),
        "--agent-option",
        "oops",
    )
    assert result.exit_code == 2 and "expected KEY=VALUE" in result.output


def _garbled(reply: dict[str, Any]) -> list[Reply]:
    whole = json.dumps(reply).encode()
    return [RawReply(200, b"<html>502 Bad Gateway</html>"), RawReply(200, whole, cut_at=len(whole) // 2), DROP]


async def test_garbled_answers_and_dropped_connections_are_retried_and_each_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22: a 200 whose body is not JSON, a body cut short and a closed connection are retried, within bounds."""
    monkeypatch.setattr("proactive_bench.llm.transport.retry_delay", lambda exc, attempt: 0.0)
    async with ChatTransport() as transport:
        with StubServer(scripted(*_garbled(text_reply("x")), text_reply("Done."))) as server:
            rig = make_rig(server, tmp_path, transport=transport, max_retries=3)
            assert (await rig.agent.respond("hi")).reply == "Done."
        assert len(server.requests) == 4
        assert [(c.ok, (c.error or "").split(":")[0]) for c in rig.calls] == [(False, "transport retry")] * 3 + [(True, "")]
        assert ["not JSON" in (c.error or "") for c in rig.calls[:3]] == [True, False, False]
        with StubServer(scripted(RawReply(200, b"<html>still down</html>"))) as server:
            rig = make_rig(server, tmp_path / "again", transport=transport, max_retries=2)
            with pytest.raises(AgentModelError, match="not JSON"):
                await rig.agent.respond("hi")
        assert len(server.requests) == 3 and [c.ok for c in rig.calls] == [False] * 3


async def test_tool_calls_written_as_text_are_run(tmp_path: Path) -> None:
    as_text = json.dumps({"name": "write_file", "arguments": {"path": "notes/todo.md", "content": "buy milk"}})
    with StubServer(scripted(text_reply(f"```json\n{as_text}\n```"), text_reply('{"name": "no_such_tool", "arguments": {}}'))) as server:
        rig = make_rig(server, tmp_path)
        turn = await rig.agent.respond("Please keep a todo list: buy milk")
    assert rig.workspace.read_text("notes/todo.md") == "buy milk"
    assert turn.reply == '{"name": "no_such_tool", "arguments": {}}'  # JSON naming no tool is an answer, not a call
    assert tool_messages(server.requests[1]) == ["wrote 8 characters to notes/todo.md"]
    assert server.requests[1]["messages"][2]["tool_calls"][0]["function"]["name"] == "write_file"


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"name": "write_file", "arguments": "' + "[" * 100_000 + '"}'],
    ids=["nested", "nested-arguments"],
)
def test_text_nested_too_deep_is_an_answer_not_a_tool_call(text: str) -> None:
    assert tool_calls_in_text(text, {"write_file"}) == []


def test_unknown_agent_options_are_refused_naming_the_known_ones() -> None:
    options = ScaffoldOptions(model="openai:stub-model", base_url="http://127.0.0.1:9/v1", extra={"max_step": "3"})
    with pytest.raises(ScaffoldLoadError, match=r"react has no option 'max_step'; its options: context_tokens, max_retries, max_steps"):
        react_scaffold(options)


WINDOW = 4096
BIG_NOTES = "".join(f"line {n}: the sample was logged at 4.2 mg/L\n" for n in range(50))  # ~2,000 characters
READS = 5


@dataclass
class SmallModel:
    """A llama.cpp server with a 4,096-token window whose tokenizer takes ``chars_a_token`` characters a token (fewer
    than pbench's estimate, three, guesses); the agent reads the notes five times, then answers."""

    chars_a_token: float
    answered: int = 0

    def tokens(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_a_token)

    def request_tokens(self, body: dict[str, Any]) -> int:
        """A chat request's count: the tool schemas, and each message's text with a few template tokens."""
        return self.tokens(json.dumps(body.get("tools", []))) + sum(self.tokens(str(m.get("content") or "")) + 4 for m in body["messages"])

    def __call__(self, body: dict[str, Any]) -> Reply:
        tokens = self.request_tokens(body)
        if tokens > WINDOW:
            return error_reply(400, f"request ({tokens} tokens) exceeds the available context size ({WINDOW} tokens), try increasing it")
        self.answered += 1
        return tool_call_reply([("read_file", {"path": "notes.md"})]) if self.answered <= READS else text_reply("The notes are read.")

    def tokenizer(self, body: dict[str, Any]) -> Reply:
        return {"tokens": list(range(self.tokens(body["content"])))} if "content" in body else {"tokens": []}


async def read_notes_on(model: SmallModel, tmp_path: Path, counts: bool) -> tuple[Rig, StubServer]:
    with StubServer(model, tokenizer=model.tokenizer if counts else None) as stub:
        async with ChatTransport() as transport:  # the runner's: a model that can ask its server for a count
            rig = make_rig(stub, tmp_path, transport=transport, context_tokens=WINDOW)
            rig.workspace.write_text("notes.md", BIG_NOTES)
            turn = await rig.agent.respond("Read my notes five times, then tell me.")
    assert turn.reply == "The notes are read." and [r.ok for r in rig.toolbox.records] == [True] * READS
    assert any("history trimmed to fit 4096 tokens" in (c.error or "") for c in rig.calls)
    assert model.request_tokens(stub.requests[-1]) >= 0.6 * WINDOW, "trimmed, not emptied"
    return rig, stub


async def test_the_history_is_trimmed_to_the_servers_own_count_and_never_overflows(tmp_path: Path) -> None:
    """A tokenizer at two characters a token: the history trimmed by the estimate would overflow; counted by the
    server's ``/tokenize`` it fits at every call, and the ratio the count showed is kept."""
    model = SmallModel(chars_a_token=2)
    rig, stub = await read_notes_on(model, tmp_path, counts=True)
    assert [model.request_tokens(b) <= WINDOW for b in stub.requests] == [True] * (READS + 1)
    assert all(c.ok for c in rig.calls)
    assert stub.tokenize_requests and all("content" in b for b in stub.tokenize_requests)
    assert 1.9 <= rig.agent.chars_per_token <= 2


async def test_without_a_count_the_errors_ratio_shrinks_the_history_and_it_is_asked_again(tmp_path: Path) -> None:
    """No ``/tokenize`` and a tokenizer at 1.5 characters a token, past the estimate's margin: the one context-length
    error says how many tokens the history took, it is trimmed by that ratio and asked again, and every later call fits."""
    model = SmallModel(chars_a_token=1.5)
    rig, stub = await read_notes_on(model, tmp_path, counts=False)
    over = [model.request_tokens(b) > WINDOW for b in stub.requests]
    assert over.count(True) == 1 and len(over) == READS + 2, [model.request_tokens(b) for b in stub.requests]
    assert [c.ok for c in rig.calls].count(False) == 1 and "context length" in (next(c for c in rig.calls if not c.ok).error or "")
    assert rig.agent.chars_per_token <= 1.5 * 1.05, "the ratio the error showed is kept"


def test_tools_bound_as_plain_arguments_are_passed_with_each_call() -> None:
    """``bind_tools``'s binding carries only the tools: the agent calls the model with them (no per-call config merge);
    a binding with a configuration of its own, or anything else, is called as it is."""
    model = HttpChatOpenAI(model="stub", api_key="none", base_url="http://127.0.0.1:9/v1")
    tools = [{"type": "function", "function": {"name": "list_dir", "parameters": {"type": "object", "properties": {}}}}]
    bound = model.bind_tools(tools)
    runnable, arguments = _unbound(bound)
    assert runnable is model and arguments == {"tools": tools} and arguments is not bound.kwargs
    configured = bound.with_config(tags=["mine"])
    assert _unbound(configured) == (configured, {})
    assert _unbound(model) == (model, {})


@pytest.mark.parametrize("server", [[text_reply("one"), text_reply("two"), text_reply("three")]], indirect=True)
async def test_each_session_sends_its_own_tools_those_of_a_set_seen_before_bound_once(server: StubServer, tmp_path: Path) -> None:
    rig = make_rig(server, tmp_path)
    await rig.agent.respond("hello")
    bound = rig.agent._runnable, rig.agent._call_kwargs

    def session(toolbox: ToolBox, number: int) -> SessionContext:
        return SessionContext(f"s{number}", "user", toolbox.env.workspace, toolbox.env.memory, toolbox)

    fewer = ToolBox(rig.toolbox.env, resolve_tool_names(["read_file"]))
    rig.agent.end_session()
    rig.agent.start_session(session(fewer, 2))
    await rig.agent.respond("hello")
    rig.agent.end_session()
    rig.agent.start_session(session(rig.toolbox, 3))
    assert rig.agent._call_kwargs is not bound[1] and rig.agent._call_kwargs == bound[1]  # a copy of the first binding
    await rig.agent.respond("hello")
    names = [[t["function"]["name"] for t in body["tools"]] for body in server.requests]
    assert names[0] == names[2] and len(names[0]) > 1 and names[1] == ["read_file"]
