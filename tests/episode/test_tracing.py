"""``--otel``: a trace per episode (episode → session → turn → model and tool calls, labels as events), off by default at no cost.

The spans are checked in the SDK's in-memory exporter for a react agent on a stub
model server, and as a real OTLP/HTTP receiver on 127.0.0.1 decodes them from a
``pbench episode --otel`` child process.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from proactive_bench.episode.otel import use_provider
from proactive_bench.episode.tracing import ENDPOINT_ENVS, TRACING_ENV, tracing_on, tracing_problem
from proactive_bench.testing.stub_server import Reply, StubServer
from tests.helpers.cli import PBENCH, modules_loaded, run_cli, stub_server_args
from tests.helpers.otlp_receiver import Receiver, attributes, clean_env
from tests.helpers.paths import MINI, REPO
from tests.helpers.span_seeing_agent import SEEN
from tests.helpers.stub_models import FakeUserModel, agent_model


@pytest.fixture
def no_tracing_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No OTLP variable from the test's own environment; ``--otel`` (which sets PBENCH_OTEL) is undone after the test."""
    for name in (TRACING_ENV, *ENDPOINT_ENVS):
        monkeypatch.setenv(name, "")  # recorded, so whatever the test sets is put back


@pytest.fixture
def spans(no_tracing_env: None) -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_provider(provider)
    yield exporter
    use_provider(None)


def respond(body: dict[str, Any]) -> Reply:
    """The user and judge models (``stub-*``) answer as a competent user; the agent writes the summary, then says so."""
    return FakeUserModel()(body) if body["model"].startswith("stub-") else agent_model(body)


def episode_args(server: StubServer, db: Path, *more: str) -> list[str]:
    return [
        "episode",
        "--data",
        str(MINI),
        "--persona",
        "mini",
        "--sessions",
        "a1",
        "--model",
        "openai:agent",
        *stub_server_args(server.base_url),
        "--db",
        str(db),
        "--json",
        *more,
    ]


def by_name(found: list[ReadableSpan], prefix: str) -> list[ReadableSpan]:
    return [s for s in found if s.name.startswith(prefix)]


def test_an_episode_with_otel_gives_the_span_tree_with_genai_attributes_and_label_events(
    spans: InMemorySpanExporter, tmp_path: Path
) -> None:
    with StubServer(respond) as server:
        done = run_cli(*episode_args(server, tmp_path / "r.db", "--otel"))
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    found = list(spans.get_finished_spans())
    (episode,) = by_name(found, "episode ")
    (session,) = by_name(found, "session ")
    turns = by_name(found, "turn ")
    calls = [s for s in found if s.attributes and s.attributes.get("gen_ai.operation.name") == "chat"]
    tools = by_name(found, "execute_tool ")

    assert len({s.context.trace_id for s in found}) == 1, "one trace per episode"
    assert episode.parent is None
    assert episode.attributes is not None and session.attributes is not None
    assert episode.attributes["pbench.run.id"] == result["run_id"]
    assert episode.attributes["pbench.persona"] == "tester" and episode.attributes["pbench.agent"] == "react"
    assert episode.attributes["pbench.model"] == "openai:agent"
    assert episode.attributes["pbench.proc"] == pytest.approx(result["proc"])
    assert episode.attributes["pbench.comp"] == pytest.approx(result["comp"])
    assert session.parent is not None and session.parent.span_id == episode.context.span_id
    assert session.attributes["pbench.session.id"] == "a1"
    assert session.attributes["gen_ai.conversation.id"] == f"{result['run_id']}/a1"
    assert turns and all(t.parent is not None and t.parent.span_id == session.context.span_id for t in turns)
    assert [t.attributes["pbench.turn"] for t in turns if t.attributes] == list(range(1, len(turns) + 1))

    # every model call the run counted is one span, under a turn or (the judge, grading) the session
    assert sorted(c.attributes["pbench.role"] for c in calls if c.attributes) == sorted(
        role for (role,) in rows(tmp_path / "r.db", "llmcall", "role")
    )
    inside = {t.context.span_id: t for t in turns} | {session.context.span_id: session}
    assert all(c.parent is not None and c.parent.span_id in inside for c in calls)
    roles = {c.attributes["pbench.role"] for c in calls if c.attributes}
    assert roles == {"agent", "user", "judge"}
    judged = [c for c in calls if c.attributes and c.attributes["pbench.role"] == "judge"]
    assert all(c.parent is not None and c.parent.span_id == session.context.span_id for c in judged)
    agent_call = next(c for c in calls if c.attributes and c.attributes["pbench.role"] == "agent")
    assert agent_call.attributes is not None
    assert agent_call.name == "chat agent"
    assert agent_call.attributes["gen_ai.request.model"] == "agent" and agent_call.attributes["gen_ai.system"] == "openai"
    assert agent_call.attributes["gen_ai.usage.input_tokens"] > 0 and agent_call.attributes["gen_ai.usage.output_tokens"] > 0
    assert agent_call.start_time is not None and agent_call.end_time is not None and agent_call.end_time > agent_call.start_time

    (tool,) = tools  # the agent writes the summary once
    assert tool.attributes is not None
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool" and tool.attributes["gen_ai.tool.name"] == "write_file"
    assert tool.parent is not None and tool.parent.span_id == turns[0].context.span_id

    # the labels the run stored, as events on their turn and on the session
    stored = {(intent, status) for intent, status in rows(tmp_path / "r.db", "intentevent", "intent_id", "status")}
    assert stored, "the episode labelled no intent"
    on_turns = {(e.attributes["pbench.intent.id"], e.attributes["pbench.intent.status"]) for t in turns for e in t.events if e.attributes}
    on_session = {(e.attributes["pbench.intent.id"], e.attributes["pbench.intent.status"]) for e in session.events if e.attributes}
    assert on_turns == stored == on_session
    assert session.attributes["pbench.intents.completed"] == sum(status == "completed" for _, status in stored)

    text = json.dumps([dict(s.attributes or {}) for s in found])
    assert "mg/L" not in text and "summarise" not in text, "a prompt or an answer became an attribute"


def rows(db: Path, table: str, *columns: str) -> list[tuple[Any, ...]]:
    """A table's columns as the results database holds them (one run in it)."""
    with closing(sqlite3.connect(db)) as con:
        return list(con.execute(f"select {', '.join(columns)} from {table}"))


def test_an_agent_that_fails_leaves_an_errored_session_span_and_the_episode_ends(spans: InMemorySpanExporter, tmp_path: Path) -> None:
    def broken(body: dict[str, Any]) -> Reply:
        return FakeUserModel()(body) if body["model"].startswith("stub-") else (400, {"error": {"message": "no such model"}})

    with StubServer(broken) as server:
        done = run_cli(*episode_args(server, tmp_path / "r.db", "--otel"))
    assert done.exit_code == 1, done.output
    found = list(spans.get_finished_spans())
    (session,) = by_name(found, "session ")
    (episode,) = by_name(found, "episode ")
    assert session.status.status_code == StatusCode.ERROR and "agent" in (session.status.description or "")
    failed = [s for s in found if s.attributes and s.attributes.get("pbench.role") == "agent"]
    assert failed and all(s.status.status_code == StatusCode.ERROR for s in failed)
    assert all(s.end_time is not None for s in found) and episode.attributes and episode.attributes["pbench.run.status"] == "finished"


def test_without_otel_no_span_is_made(spans: InMemorySpanExporter, tmp_path: Path) -> None:
    with StubServer(respond) as server:
        done = run_cli(*episode_args(server, tmp_path / "r.db"))
    assert done.exit_code == 0, done.output
    assert list(spans.get_finished_spans()) == []


def test_the_switch_reads_the_flag_and_the_standard_endpoint_variables(no_tracing_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not tracing_on()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    assert tracing_on()
    monkeypatch.setenv(TRACING_ENV, "0")  # off wins over the endpoint
    assert not tracing_on()
    monkeypatch.setenv(TRACING_ENV, "1")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
    assert tracing_on() and tracing_problem() is None


def test_tracing_without_the_exporter_installed_is_one_line(no_tracing_env: None, tmp_path: Path) -> None:
    """A Python whose path hides the exporter: ``--otel`` stops with one line naming the extra, before any row."""
    hide = tmp_path / "hide"
    (hide / "opentelemetry" / "exporter").mkdir(parents=True)  # an empty package in front: the OTLP exporter is not found
    (hide / "opentelemetry" / "__init__.py").write_text("__path__ = __import__('pkgutil').extend_path(__path__, __name__)\n")
    (hide / "opentelemetry" / "exporter" / "__init__.py").write_text("")
    env = {**clean_env(), "PYTHONPATH": os.pathsep.join([str(hide), str(REPO)])}
    done = subprocess.run(
        [
            *PBENCH,
            "episode",
            "--data",
            str(MINI),
            "--persona",
            "mini",
            "--model",
            "scripted:asker",
            "--db",
            str(tmp_path / "r.db"),
            "--otel",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "pbench[otel]" in line and "opentelemetry.exporter.otlp.proto.http" in line
    assert not (tmp_path / "r.db").exists()


def test_pbench_episode_otel_sends_its_spans_to_an_otlp_receiver(tmp_path: Path) -> None:
    with Receiver() as receiver, StubServer(respond) as server:
        env = {**clean_env(), "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "PYTHONPATH": str(REPO)}
        done = subprocess.run(
            [*PBENCH, *episode_args(server, tmp_path / "r.db", "--otel")], capture_output=True, text=True, env=env, timeout=300
        )
        assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(receiver.paths) == {"/v1/traces"}
    assert receiver.resources and all(r.get("service.name") == "pbench" for r in receiver.resources)
    names = [span.name for span in receiver.spans]
    (episode,) = [s for s in receiver.spans if s.name.startswith("episode ")]
    assert attributes(episode)["pbench.run.id"] == result["run_id"]
    assert attributes(episode)["pbench.proc"] == pytest.approx(result["proc"])
    assert "session a1" in names and "turn 1" in names and "execute_tool write_file" in names and "chat agent" in names
    assert len({s.trace_id for s in receiver.spans}) == 1
    labelled = [e for s in receiver.spans if s.name.startswith("turn ") for e in s.events if e.name == "intent_label"]
    assert labelled


def test_the_endpoint_variable_alone_turns_tracing_on(tmp_path: Path) -> None:
    with Receiver() as receiver:
        env = {**clean_env(), "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "PYTHONPATH": str(REPO)}
        args = ["episode", "--data", str(MINI), "--persona", "mini", "--model", "scripted:asker", "--db", str(tmp_path / "r.db")]
        done = subprocess.run([*PBENCH, *args], capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode in (0, 1), done.stderr
    sessions = [s.name for s in receiver.spans if s.name.startswith("session ")]
    assert sessions == ["session a1", "session a2", "session a3"]


def test_an_episode_without_tracing_loads_no_exporter_and_no_otel_module(tmp_path: Path) -> None:
    """Off, pbench imports neither its OpenTelemetry module nor an exporter (langsmith, under LangChain, may load the SDK itself)."""
    args = ["episode", "--data", str(MINI), "--persona", "mini", "--model", "scripted:reference", "--db", str(tmp_path / "r.db")]
    loaded = modules_loaded(*args, env={**clean_env(), "PYTHONPATH": str(REPO)})
    assert "proactive_bench.episode.runner" in loaded  # it did run
    assert "proactive_bench.episode.otel" not in loaded
    assert not {m for m in loaded if m.startswith(("opentelemetry.exporter", "opentelemetry.sdk.trace.export"))}


def test_a_sweep_over_worker_processes_sends_one_trace_per_run(tmp_path: Path) -> None:
    """Each worker process sets up its own exporter from the inherited variables and sends its runs' spans before it exits."""
    with Receiver() as receiver:
        env = {**clean_env(), "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "PYTHONPATH": str(REPO)}
        args = ["sweep", "--data", str(MINI), "--models", "scripted:asker", "--runs", "3", "--workers", "2", "--db", str(tmp_path / "r.db")]
        done = subprocess.run([*PBENCH, *args, "--json"], capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode in (0, 1), done.stderr
    runs = {run["run_id"] for run in json.loads(done.stdout)["runs"]}
    episodes = [s for s in receiver.spans if s.name.startswith("episode ")]
    assert {attributes(s)["pbench.run.id"] for s in episodes} == runs and len(episodes) == 3
    assert len({s.trace_id for s in episodes}) == 3
    sweep_ids = {attributes(s)["pbench.sweep.id"] for s in episodes}
    assert len(sweep_ids) == 1 and all(sweep_ids)
    assert sum(s.name.startswith("session ") for s in receiver.spans) == 9


def test_an_instrumented_agent_s_own_spans_nest_under_its_turn(spans: InMemorySpanExporter, tmp_path: Path) -> None:
    SEEN.clear()
    agent = "tests.helpers.span_seeing_agent:SpanSeeingAgent"  # as a module: its SEEN is the one imported here
    done = run_cli("episode", "--data", str(MINI), "--persona", "mini", "--agent", agent, "--db", str(tmp_path / "r.db"), "--otel")
    assert done.exit_code in (0, 1), done.output
    turns = by_name(list(spans.get_finished_spans()), "turn ")
    assert SEEN and [t.context.span_id for t in turns] == SEEN
