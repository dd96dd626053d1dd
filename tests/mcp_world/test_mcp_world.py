"""A session's world over MCP, driven by the official MCP client SDK on loopback: the same tools, schemas, jail and
recording as an in-process agent gets; the bearer token; 127.0.0.1 only; ``pbench mcp`` over HTTP and stdio."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from proactive_bench.data_model import Evidence
from proactive_bench.dataset import (
    GraderResolver,
    LoadedEpisode,
    Session,
    evaluate,
    load_episode,
)
from proactive_bench.env import ToolBox, ToolRecord
from proactive_bench.episode import session_toolbox
from proactive_bench.mcp_world import LOOPBACK, MAX_CLIENT_SESSIONS, BearerGuard, McpWorld, WorldStartError, http_server
from proactive_bench.mcp_world.http_server import MAX_OPEN_CONNECTIONS
from proactive_bench.store import Store, ToolCallRow
from tests.helpers.cli import run_cli, run_episode_json
from tests.helpers.loop_gates import ServerGates
from tests.helpers.paths import DATA, REPO

SESSION = "s01_vanco_auc_review"
REPORT = "reports/2025-03-10_vanco_review.md"
REPORT_TEXT = "# Vancomycin review\n\n4E-01: AUC24 612 mg*h/L by the two-level method, reduce the dose.\n"
PBENCH = Path(sys.executable).with_name("pbench")


@pytest.fixture(scope="module")
def pharmacist() -> LoadedEpisode:
    return load_episode(DATA, "pharmacist")


@pytest.fixture
def session(pharmacist: LoadedEpisode) -> Session:
    return next(s for s in pharmacist.sessions if s.id == SESSION)


def world_toolbox(pharmacist: LoadedEpisode, session: Session, root: Path) -> ToolBox:
    return session_toolbox(pharmacist, session, root)


@asynccontextmanager
async def connected(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    """An initialized official-SDK client session on ``url``, sending ``token`` as the bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content)


async def test_the_session_s_tools_are_listed_with_their_in_process_schemas(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path
) -> None:
    toolbox = world_toolbox(pharmacist, session, tmp_path / "ws")
    with McpWorld(toolbox) as world:
        async with connected(world.url, world.token) as client:
            listed = (await client.list_tools()).tools
    assert [t.name for t in listed] == [s.name for s in toolbox.specs]
    assert {t.name for t in listed} >= {"read_file", "write_file", "memory_write"}
    assert "shell_exec" not in {t.name for t in listed}  # a session offers only its own groups (s01: the defaults)
    for tool, spec in zip(listed, toolbox.specs, strict=True):
        assert tool.input_schema == spec.json_schema()
        assert tool.description == spec.description
    assert toolbox.records == []  # listing is not a call


async def test_a_write_through_mcp_is_recorded_and_graded_as_an_in_process_call(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path
) -> None:
    in_process = world_toolbox(pharmacist, session, tmp_path / "a")
    over_mcp = world_toolbox(pharmacist, session, tmp_path / "b")
    in_process.turn = over_mcp.turn = 2
    args = {"path": REPORT, "content": REPORT_TEXT}
    expected = await in_process.acall("write_file", args)
    with McpWorld(over_mcp) as world:
        async with connected(world.url, world.token) as client:
            result = await client.call_tool("write_file", args)
    assert not result.is_error
    assert (tmp_path / "b" / REPORT).read_text() == REPORT_TEXT
    assert over_mcp.records == [expected]  # name, arguments, result, ok, turn and seq
    assert over_mcp.steps == in_process.steps == 1
    assert text_of(result) == expected.result["response"]
    intent = next(i for i in session.intents if i.id == "i1_auc_method")  # the session's own evidence predicate sees the file
    for box in (in_process, over_mcp):
        evidence = Evidence([], box.records, box.env.workspace, box.env.memory, GraderResolver(DATA), box.env.apps)
        assert evaluate(intent.evidence, evidence)
    untouched = world_toolbox(pharmacist, session, tmp_path / "c")
    assert not evaluate(
        intent.evidence, Evidence([], [], untouched.env.workspace, untouched.env.memory, GraderResolver(DATA), untouched.env.apps)
    )


async def test_a_tool_error_is_an_mcp_tool_error_and_the_session_goes_on(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path
) -> None:
    toolbox = world_toolbox(pharmacist, session, tmp_path / "ws")
    with McpWorld(toolbox) as world:
        async with connected(world.url, world.token) as client:
            missing = await client.call_tool("read_file", {"path": "no/such/file.txt"})
            invalid = await client.call_tool("write_file", {"path": "x.txt"})  # content missing: the toolbox says so
            unknown = await client.call_tool("shell_exec", {"command": "id"})  # not a tool of this session
            fine = await client.call_tool("list_dir", {"path": "."})
    assert (missing.is_error, invalid.is_error, unknown.is_error, fine.is_error) == (True, True, True, False)
    assert "no/such/file.txt" in text_of(missing) and "content" in text_of(invalid) and "unknown tool 'shell_exec'" in text_of(unknown)
    assert [(r.tool_name, r.ok) for r in toolbox.records] == [
        ("read_file", False),
        ("write_file", False),
        ("shell_exec", False),
        ("list_dir", True),
    ]
    assert not (tmp_path / "ws" / "x.txt").exists()


async def test_an_unknown_argument_over_mcp_is_refused_as_in_process(pharmacist: LoadedEpisode, session: Session, tmp_path: Path) -> None:
    """The listed schema is the tool's own, and a key it does not name is the same recorded refusal as in process, not dropped."""
    in_process = world_toolbox(pharmacist, session, tmp_path / "a")
    over_mcp = world_toolbox(pharmacist, session, tmp_path / "b")
    args = {"path": REPORT, "content": REPORT_TEXT, "mode": "append"}
    expected = await in_process.acall("write_file", args)
    with McpWorld(over_mcp) as world:
        async with connected(world.url, world.token) as client:
            listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            result = await client.call_tool("write_file", args)
    spec = over_mcp.spec("write_file")
    assert spec is not None and listed["write_file"] == spec.json_schema()
    assert result.is_error and "unknown argument 'mode'; known: path, content" in text_of(result)
    assert over_mcp.records == [expected] and not expected.ok
    assert not (tmp_path / "b" / REPORT).exists()


async def test_a_jail_escape_is_refused_as_in_process(pharmacist: LoadedEpisode, session: Session, tmp_path: Path) -> None:
    in_process = world_toolbox(pharmacist, session, tmp_path / "a" / "ws")
    over_mcp = world_toolbox(pharmacist, session, tmp_path / "b" / "ws")
    attempts = [
        ("write_file", {"path": "../../escaped.txt", "content": "out"}),
        ("write_file", {"path": str(tmp_path / "b" / "escaped.txt"), "content": "out"}),
        ("read_file", {"path": "../../../../etc/passwd"}),
    ]
    expected = [await in_process.acall(name, args) for name, args in attempts]
    with McpWorld(over_mcp) as world:
        async with connected(world.url, world.token) as client:
            results = [await client.call_tool(name, args) for name, args in attempts]
    assert all(r.is_error for r in results)
    assert over_mcp.records == expected and not any(r.ok for r in expected)
    assert "root:" not in text_of(results[2])
    assert not list(tmp_path.rglob("escaped.txt"))


async def test_requests_without_the_token_or_with_another_are_refused_before_any_tool_runs(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path
) -> None:
    toolbox = world_toolbox(pharmacist, session, tmp_path / "ws")
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "write_file", "arguments": {"path": "pwned.txt", "content": "x"}},
    }
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with McpWorld(toolbox) as world, McpWorld(world_toolbox(pharmacist, session, tmp_path / "other")) as other:
        async with httpx2.AsyncClient() as http:
            for headers in (
                {},
                {"Authorization": "Bearer wrong"},
                {"Authorization": f"Bearer {other.token}"},
                {"Authorization": world.token},
                {"Authorization": f"Basic {world.token}"},
            ):
                refused = await http.post(world.url, json=call, headers={**accept, **headers})
                assert refused.status_code == 401, headers
                assert refused.headers["www-authenticate"].startswith("Bearer")
            for foreign in ({"Host": "pbench.example"}, {"Origin": "http://pbench.example"}):  # a page rebinding a name to 127.0.0.1
                refused = await http.post(world.url, json=call, headers={**accept, **world.headers, **foreign})
                assert refused.status_code in (403, 421), foreign
        with pytest.raises(ExceptionGroup) as refused_client:  # the official client gets no session either
            async with connected(world.url, "wrong"):
                pass
        assert refused_client.group_contains(MCPError, match="error response", depth=2)
        async with connected(world.url, world.token) as client:  # the right token works
            assert len((await client.list_tools()).tools) == len(toolbox.specs)
    assert toolbox.records == [] and not (tmp_path / "ws" / "pwned.txt").exists()
    assert world.token != other.token


def outside_address() -> str | None:
    """An address of this machine that is not loopback (a UDP socket's route; no packet is sent), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 1))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


def test_the_server_listens_on_loopback_only(pharmacist: LoadedEpisode, session: Session, tmp_path: Path) -> None:
    with McpWorld(world_toolbox(pharmacist, session, tmp_path / "ws")) as world:
        assert world.url.startswith(f"http://{LOOPBACK}:")
        assert {s.getsockname()[0] for server in world._server.servers for s in server.sockets} == {LOOPBACK}  # type: ignore[union-attr]
        address = outside_address()
        if address is not None:
            with pytest.raises(OSError), socket.create_connection((address, world.port), timeout=2):
                pass
        with pytest.raises(WorldStartError, match="did not start"):  # its port is taken: a clear error, not a hang
            McpWorld(world_toolbox(pharmacist, session, tmp_path / "ws2"), port=world.port).start()


async def test_calls_run_on_the_loop_that_started_the_world(pharmacist: LoadedEpisode, session: Session, tmp_path: Path) -> None:
    toolbox = world_toolbox(pharmacist, session, tmp_path / "ws")
    seen: list[int] = []
    acall = toolbox.acall

    async def watched(name: str, args: dict[str, Any] | None = None) -> ToolRecord:
        seen.append(threading.get_ident())
        return await acall(name, args)

    toolbox.acall = watched  # type: ignore[method-assign]
    with McpWorld(toolbox) as world:  # started inside this test's loop: the runner's case
        async with connected(world.url, world.token) as client:
            await asyncio.gather(*(client.call_tool("list_dir", {"path": "."}) for _ in range(3)))
    assert seen == [threading.get_ident()] * 3
    assert [r.seq for r in toolbox.records] == [0, 1, 2]


async def test_a_world_awaited_starts_and_stops_without_holding_the_loop(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``async with McpWorld``: while the server starts and stops, in its thread, the loop that awaits it runs other
    coroutines (a runner's other sessions); the token check and the calls on the awaiting loop are as before."""
    gates = ServerGates(monkeypatch)
    toolbox = world_toolbox(pharmacist, session, tmp_path / "ws")
    opener = gates.open_when_free("startup")
    async with McpWorld(toolbox) as world:
        await opener
        url = world.url
        async with httpx2.AsyncClient() as http:
            assert (await http.post(url, json={})).status_code == 401
        async with connected(world.url, world.token) as client:
            assert not (await client.call_tool("list_dir", {"path": "."})).is_error
        opener = gates.open_when_free("shutdown")
    await opener
    assert gates.free == {"startup": True, "shutdown": True}
    assert [r.tool_name for r in toolbox.records] == ["list_dir"]
    with pytest.raises(httpx2.ConnectError):  # stopped: nothing listens any more
        async with httpx2.AsyncClient() as http:
            await http.post(url, json={})


async def test_a_world_awaited_on_a_taken_port_is_a_clear_error(pharmacist: LoadedEpisode, session: Session, tmp_path: Path) -> None:
    async with McpWorld(world_toolbox(pharmacist, session, tmp_path / "a")) as world:
        with pytest.raises(WorldStartError, match="did not start"):
            await McpWorld(world_toolbox(pharmacist, session, tmp_path / "b"), port=world.port).astart()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def pbench_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


async def test_pbench_mcp_over_http_serves_the_session_until_stopped(tmp_path: Path) -> None:
    port, record = free_port(), tmp_path / "calls.json"
    command = [
        str(PBENCH),
        "mcp",
        "--persona",
        "pharmacist",
        "--session",
        SESSION,
        "--port",
        str(port),
        "--workspace",
        str(tmp_path / "ws"),
        "--record",
        str(record),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=pbench_env(), cwd=tmp_path)
    try:
        shown: dict[str, str] = {}
        while "token" not in shown:
            line = await asyncio.to_thread(process.stdout.readline)  # type: ignore[union-attr]
            assert line, f"pbench mcp ended: {process.wait()} {process.stderr.read()}"  # type: ignore[union-attr]
            key, _, value = line.partition(" ")
            shown[key] = value.strip()
        assert shown["url"] == f"http://{LOOPBACK}:{port}/mcp"
        async with connected(shown["url"], shown["token"]) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            written = await client.call_tool("write_file", {"path": REPORT, "content": REPORT_TEXT})
        assert "write_file" in names and not written.is_error
        process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(process.wait, 60) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert (tmp_path / "ws" / REPORT).read_text() == REPORT_TEXT
    assert json.loads(record.read_text()) == [
        {
            "tool_name": "write_file",
            "call": {"path": REPORT, "content": REPORT_TEXT},
            "result": {"response": f"wrote {len(REPORT_TEXT)} characters to {REPORT}"},
            "ok": True,
            "turn": 0,
            "seq": 0,
        }
    ]
    assert "1 tool calls recorded" in process.stderr.read()  # type: ignore[union-attr]


async def test_pbench_mcp_over_stdio_is_the_same_world(pharmacist: LoadedEpisode, session: Session, tmp_path: Path) -> None:
    in_process = world_toolbox(pharmacist, session, tmp_path / "a")
    expected = await in_process.acall("write_file", {"path": REPORT, "content": REPORT_TEXT})
    record = tmp_path / "calls.json"
    server = StdioServerParameters(
        command=str(PBENCH),
        args=[
            "mcp",
            "--transport",
            "stdio",
            "--persona",
            "pharmacist",
            "--session",
            SESSION,
            "--workspace",
            str(tmp_path / "b"),
            "--record",
            str(record),
        ],
        env={"PYTHONPATH": str(REPO)},
        cwd=tmp_path,
    )
    with (tmp_path / "stderr.txt").open("w") as errors:
        async with stdio_client(server, errlog=errors) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            listed = (await client.list_tools()).tools
            written = await client.call_tool("write_file", {"path": REPORT, "content": REPORT_TEXT})
            escape = await client.call_tool("write_file", {"path": "../escaped.txt", "content": "x"})
    assert [(t.name, t.input_schema) for t in listed] == [(s.name, s.json_schema()) for s in in_process.specs]
    assert not written.is_error and escape.is_error
    assert (tmp_path / "b" / REPORT).read_text() == REPORT_TEXT and not (tmp_path / "escaped.txt").exists()
    for _ in range(100):  # the server writes its record as it exits, after the client closed its stdin
        if record.exists():
            break
        await asyncio.sleep(0.2)
    rows = json.loads(record.read_text())
    assert rows[0] == {**expected.as_pibench(), "turn": 0, "seq": 0} and rows[1]["ok"] is False


def stored_calls(db: Path, run_id: str) -> list[tuple[str, int, int, str, Any, Any, bool]]:
    store = Store(db)
    return [
        (sr.session_id, r.turn, r.seq, r.tool_name, r.call, r.result, r.ok)
        for sr in store.session_runs(run_id)
        for r in store.rows(ToolCallRow, sr.id)
    ]


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the MCP transport, not the data's checks
def test_the_reference_replayed_over_mcp_scores_and_records_as_in_process(tmp_path: Path) -> None:
    """A run whose agent makes every call through an McpWorld started on the runner's loop: the same Proc, Comp and stored calls."""
    sessions = "s01_vanco_auc_review,s02_dalbavancin_pt_review"
    results, calls = {}, {}
    for model in ("scripted:reference", "test:mcp-reference"):
        db = tmp_path / f"{model.replace(':', '_')}.db"
        results[model] = run_episode_json(
            "--persona", "pharmacist", "--data", str(DATA), "--model", model, "--sessions", sessions, "--db", str(db)
        )
        calls[model] = stored_calls(db, results[model]["run_id"])
    in_process, over_mcp = results["scripted:reference"], results["test:mcp-reference"]
    assert [(s["session_id"], s["status"], s["proc"], s["comp"]) for s in over_mcp["sessions"]] == [
        (s["session_id"], s["status"], s["proc"], s["comp"]) for s in in_process["sessions"]
    ]
    assert all(s["proc"] == 1.0 and s["comp"] == 1.0 for s in over_mcp["sessions"])
    assert len(calls["test:mcp-reference"]) > 4 and calls["test:mcp-reference"] == calls["scripted:reference"]


def test_pbench_mcp_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    unknown = run_cli("mcp", "--persona", "pharmacist", "--session", "s99_nope", "--data", str(DATA))
    assert (
        unknown.exit_code == 2
        and "--session s99_nope: not a session of pharmacist" in unknown.output
        and "s01_vanco_auc_review" in unknown.output
    )
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "mine.txt").write_text("keep me")
    busy = run_cli("mcp", "--persona", "pharmacist", "--session", SESSION, "--data", str(DATA), "--workspace", str(tmp_path / "busy"))
    assert busy.exit_code == 2 and "not a new or empty folder" in busy.output
    assert (tmp_path / "busy" / "mine.txt").read_text() == "keep me" and len(list((tmp_path / "busy").iterdir())) == 1
    transport = run_cli("mcp", "--persona", "pharmacist", "--session", SESSION, "--transport", "sse")
    assert transport.exit_code == 2
    assert "Traceback" not in unknown.output + busy.output + transport.output


# --- a world's end: its token refused, its stop quick, a running call finished ----------------------------------------

LIST_DIR_CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_dir", "arguments": {"path": "."}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def test_a_world_s_token_is_refused_once_it_stopped_and_by_the_next_world_on_its_port(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path
) -> None:
    """A stale token (its session over) reaches nothing: not its stopped world, not the next session's world on the
    same port; the next world lists its own session's tools and records its calls alone."""
    first_box = world_toolbox(pharmacist, session, tmp_path / "a")
    async with McpWorld(first_box) as first:
        url, stale, port = first.url, first.token, first.port
        async with connected(url, stale) as client:
            assert not (await client.call_tool("list_dir", {"path": "."})).is_error
    other = next(s for s in pharmacist.sessions if s.id == "s07_cdi_fidaxomicin_review")  # tools s01 does not have
    second_box = world_toolbox(pharmacist, other, tmp_path / "b")
    async with httpx2.AsyncClient() as http:
        with pytest.raises(httpx2.ConnectError):
            await http.post(url, json=LIST_DIR_CALL, headers={**ACCEPT, "Authorization": f"Bearer {stale}"})
        async with McpWorld(second_box, port=port) as second:
            assert second.url == url
            refused = await http.post(url, json=LIST_DIR_CALL, headers={**ACCEPT, "Authorization": f"Bearer {stale}"})
            assert refused.status_code == 401
            async with connected(url, second.token) as client:
                listed = [tool.name for tool in (await client.list_tools()).tools]
    assert listed == [spec.name for spec in second_box.specs] != [spec.name for spec in first_box.specs]
    assert [r.tool_name for r in first_box.records] == ["list_dir"] and second_box.records == []


async def test_a_revoked_guard_refuses_even_the_token_it_was_given() -> None:
    """A stopping world revokes its guard first: a request on a connection still open gets 401, whatever token it sends."""
    reached: list[str] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    guard = BearerGuard(app, "s3cret")
    scope = {"type": "http", "path": "/mcp", "headers": [(b"authorization", b"Bearer s3cret")]}
    await guard(scope, receive, send)
    guard.revoke()
    await guard(scope, receive, send)
    assert reached == ["/mcp"] and [m["status"] for m in sent if m["type"] == "http.response.start"] == [401]


async def test_a_world_stops_without_uvicorn_s_pause_and_lets_a_running_call_finish(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path
) -> None:
    """With a kept-alive connection idle, a stop takes less than uvicorn's own fixed 0.1 s pause (the fastest of
    three); a call running when the stop comes still gets its answer, and the stop waits for it."""
    stops = []
    for n in range(3):
        async with McpWorld(world_toolbox(pharmacist, session, tmp_path / f"idle{n}")) as world, httpx2.AsyncClient() as http:
            assert (await http.post(world.url, json=LIST_DIR_CALL, headers=ACCEPT)).status_code == 401  # the connection stays open
            began = asyncio.get_running_loop().time()
            await world.astop()
            stops.append(asyncio.get_running_loop().time() - began)
    assert min(stops) < 0.09, stops
    toolbox = world_toolbox(pharmacist, session, tmp_path / "busy")
    acall, running = toolbox.acall, asyncio.Event()

    async def slow(name: str, args: dict[str, Any] | None = None) -> ToolRecord:
        running.set()
        await asyncio.sleep(0.3)
        return await acall(name, args)

    toolbox.acall = slow  # type: ignore[method-assign]
    world = await McpWorld(toolbox).astart()
    async with connected(world.url, world.token) as client:
        await client.list_tools()  # the client's schemas known: the call's answer needs no further request
        call = asyncio.create_task(client.call_tool("list_dir", {"path": "."}))
        await running.wait()
        began = asyncio.get_running_loop().time()
        await world.astop()
        waited = asyncio.get_running_loop().time() - began
        assert not (await call).is_error and waited > 0.2
    assert [r.tool_name for r in toolbox.records] == ["list_dir"]


async def test_a_connected_client_s_get_stream_is_refused_so_a_stop_does_not_wait_out_the_grace(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path
) -> None:
    """The official client opens a GET stream for server messages after initializing; the world sends none, so the
    GET is answered 405 and a stop with the client still connected takes nowhere near the 1 s grace for requests
    in flight (a stream kept open used to hold every such stop for the whole grace, and print its cancellation)."""
    world = await McpWorld(world_toolbox(pharmacist, session, tmp_path)).astart()
    async with httpx2.AsyncClient() as http:
        stream = await http.get(world.url, headers={"Authorization": f"Bearer {world.token}", "Accept": "text/event-stream"})
        assert stream.status_code == 405 and "POST" in stream.headers["allow"]
    async with connected(world.url, world.token) as client:
        assert (await client.list_tools()).tools
        await asyncio.sleep(0.2)  # the client's GET has been sent by now
        began = asyncio.get_running_loop().time()
        await world.astop()
        assert asyncio.get_running_loop().time() - began < 0.5


async def test_a_call_outlasting_the_stop_s_grace_is_cancelled_with_one_warning_and_no_traceback(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The worst case of a stop: a call that never ends. The stop waits out its grace, cancels the call and returns; no
    record with uvicorn's traceback of the cancellation is logged (the structured warning is)."""
    toolbox = world_toolbox(pharmacist, session, tmp_path)
    running = asyncio.Event()

    async def hangs(name: str, args: dict[str, Any] | None = None) -> ToolRecord:
        running.set()
        await asyncio.sleep(60)
        raise AssertionError("never reached")

    toolbox.acall = hangs  # type: ignore[method-assign]
    world = await McpWorld(toolbox).astart()
    async with connected(world.url, world.token) as client:
        await client.list_tools()
        call = asyncio.create_task(client.call_tool("list_dir", {"path": "."}))
        await running.wait()
        began = asyncio.get_running_loop().time()
        await world.astop()
        assert asyncio.get_running_loop().time() - began < 5
        call.cancel()
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "leaky", "version": "1"}},
}


async def test_an_agent_that_never_ends_its_mcp_sessions_is_refused_new_ones_past_the_cap(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path
) -> None:
    """An agent opening a session per call and never ending it (~38 KB of pbench's memory each, 10,000 by the SDK's
    default) gets 503 once MAX_CLIENT_SESSIONS are open; the open ones still answer, and one ended makes room."""
    toolbox = world_toolbox(pharmacist, session, tmp_path / "ws")
    async with McpWorld(toolbox) as world, httpx2.AsyncClient() as http:
        headers = world.headers | {"Accept": "application/json, text/event-stream"}
        opened = [await http.post(world.url, json=INITIALIZE, headers=headers) for _ in range(MAX_CLIENT_SESSIONS)]
        assert {r.status_code for r in opened} == {200}
        refused = await http.post(world.url, json=INITIALIZE, headers=headers)
        assert refused.status_code == 503 and "Too many open sessions" in refused.text
        first = headers | {"mcp-session-id": opened[0].headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        listed = await http.post(world.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=first)
        assert listed.status_code == 200 and "list_dir" in listed.text
        assert (await http.delete(world.url, headers=first)).status_code == 200
        assert (await http.post(world.url, json=INITIALIZE, headers=headers)).status_code == 200


def write_call(content: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "write_file", "arguments": {"path": "big.txt", "content": content}},
    }


async def test_a_request_body_over_the_cap_gets_413_unread_and_one_within_it_runs(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body declared longer than the cap is refused before a byte of it is read (the SDK would wait for it all, then
    hold it whole); one within the cap runs as any other."""
    monkeypatch.setattr(http_server, "MAX_REQUEST_BYTES", 64 << 10)
    toolbox = world_toolbox(pharmacist, session, tmp_path / "ws")
    async with McpWorld(toolbox) as world, httpx2.AsyncClient() as http:
        headers = world.headers | {"Accept": "application/json, text/event-stream"}
        opened = await http.post(world.url, json=INITIALIZE, headers=headers)
        headers |= {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        refused = await http.post(world.url, json=write_call("x" * (64 << 10)), headers=headers)
        assert refused.status_code == 413 and f"request body over {64 << 10} bytes" in refused.text
        reader, writer = await asyncio.open_connection(LOOPBACK, world.port)  # a length no client would send, and no body
        head = f"POST /mcp HTTP/1.1\r\nHost: {LOOPBACK}\r\nContent-Type: application/json\r\nContent-Length: {1 << 40}\r\n"
        writer.write(f"{head}Authorization: {world.headers['Authorization']}\r\n\r\n".encode())
        assert (await asyncio.wait_for(reader.readline(), 5)).startswith(b"HTTP/1.1 413")
        writer.close()
        written = await http.post(world.url, json=write_call("y" * 1000), headers=headers)
        assert written.status_code == 200 and "error" not in written.json()
    assert [r.tool_name for r in toolbox.records] == ["write_file"] and (tmp_path / "ws" / "big.txt").read_text() == "y" * 1000


async def test_a_request_body_streamed_past_the_cap_is_cut_there(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunked body that goes on past the cap: 413 and the connection closed once the cap is passed, not read to its
    end (64 MiB here; an agent's could be endless)."""
    monkeypatch.setattr(http_server, "MAX_REQUEST_BYTES", 1 << 20)
    toolbox = world_toolbox(pharmacist, session, tmp_path / "ws")
    async with McpWorld(toolbox) as world:
        reader, writer = await asyncio.open_connection(LOOPBACK, world.port)
        head = f"POST /mcp HTTP/1.1\r\nHost: {LOOPBACK}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        writer.write(f"{head}Authorization: {world.headers['Authorization']}\r\n\r\n".encode())
        chunk, sent = b"%x\r\n%s\r\n" % (64 << 10, b" " * (64 << 10)), 0
        with contextlib.suppress(ConnectionError):
            while sent < 64 << 20 and not reader.at_eof():
                writer.write(chunk)
                await asyncio.wait_for(writer.drain(), 5)
                sent += 64 << 10
        answer = b""
        with contextlib.suppress(ConnectionError):
            answer = await asyncio.wait_for(reader.read(1000), 5)
        writer.close()
    assert sent < 16 << 20, sent  # refused within a few buffers of the cap
    assert answer == b"" or answer.startswith(b"HTTP/1.1 413")
    assert toolbox.records == []


async def test_connections_past_the_cap_get_503_and_a_closed_one_makes_room(
    pharmacist: LoadedEpisode, session: Session, tmp_path: Path
) -> None:
    """An agent opening connection after connection (each could hold a request body) is served up to
    MAX_OPEN_CONNECTIONS at once; the request on the next gets 503, and closing one makes room."""
    toolbox = world_toolbox(pharmacist, session, tmp_path / "ws")
    async with McpWorld(toolbox) as world:
        idle = [await asyncio.open_connection(LOOPBACK, world.port) for _ in range(MAX_OPEN_CONNECTIONS - 1)]
        request = f"POST /mcp HTTP/1.1\r\nHost: {LOOPBACK}:{world.port}\r\nAuthorization: {world.headers['Authorization']}\r\n"
        request += "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
        body = json.dumps(INITIALIZE).encode()
        request_bytes = f"{request}Content-Length: {len(body)}\r\n\r\n".encode() + body

        async def status() -> bytes:
            reader, writer = await asyncio.open_connection(LOOPBACK, world.port)
            writer.write(request_bytes)
            line = await asyncio.wait_for(reader.readline(), 5)
            writer.close()
            return line.split()[1]

        assert await status() == b"503"
        for _, writer in idle[:2]:
            writer.close()
            await writer.wait_closed()
        await asyncio.sleep(0.1)
        assert await status() == b"200"
        for _, writer in idle[2:]:
            writer.close()
