"""A run's trace as OpenTelemetry spans, exported over OTLP/HTTP: the one module that imports the OpenTelemetry SDK.

Loaded only when tracing is on (:func:`~proactive_bench.episode.tracing.run_trace`).
One trace per run: ``episode`` → ``session`` → ``turn`` → model calls (``chat
MODEL``, ``embeddings MODEL``) and tool calls (``execute_tool NAME``), with the
GenAI semantic conventions' attribute names where they have one and ``pbench.*``
for the rest (docs/traces.md lists them). Intent labels are span events on their
turn and session. No prompt, answer, tool argument or API key is ever an attribute.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from opentelemetry import context as otel_context, trace
from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from proactive_bench.data_model import IntentLabel, SessionOutcome
from proactive_bench.env import ToolRecord
from proactive_bench.episode.tracing import RunTrace
from proactive_bench.llm import LLMCallRecord
from proactive_bench.logs import get_logger
from proactive_bench.scoring import EpisodeResult, SessionResult
from proactive_bench.store import RunLike

log = get_logger(__name__)

SCOPE = "proactive_bench"
FLUSH_MS = 5000
"""How long a run's end waits for its spans to be sent (a worker process may exit right after, without the SDK's exit hook)."""
TEXT_LIMIT = 300
"""An error text kept on a span is cut to this many characters."""
ROLE_ATTRIBUTE = "pbench.role"
"""Who made a model call: agent, user (the simulated user), judge, npc (a simulated colleague), embedder."""

_provider: TracerProvider | None = None


def use_provider(provider: TracerProvider | None) -> None:
    """Send the runs' spans to ``provider`` (tests, an application with exporters of its own); None: the default again."""
    global _provider
    _provider = provider


def tracer_provider() -> TracerProvider:
    """The provider runs export through: one set by :func:`use_provider`, else an SDK provider the application installed
    globally, else (once per process) pbench's own, batching to the OTLP/HTTP endpoint the ``OTEL_EXPORTER_OTLP_*``
    variables name (by default http://localhost:4318/v1/traces)."""
    global _provider
    if _provider is None:
        installed = trace.get_tracer_provider()
        if isinstance(installed, TracerProvider):
            _provider = installed
        else:
            _provider = TracerProvider(resource=_resource())
            _provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
            endpoint = urlsplit(
                os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
                or "http://localhost:4318"
            )
            log.info("otel_exporting", host=endpoint.hostname, port=endpoint.port)  # never a user:password the URL may hold
    return _provider


def _resource() -> Resource:
    """The standard resource (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``), its service named pbench unless they name it."""
    detected = Resource.create()
    if str(detected.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        return detected.merge(Resource({SERVICE_NAME: "pbench"}))
    return detected


def _present(attributes: dict[str, Any]) -> dict[str, Any]:
    """The attributes that have a value (OpenTelemetry refuses None)."""
    return {k: v for k, v in attributes.items() if v is not None}


class OtelRunTrace(RunTrace):
    """One run's spans; the episode span starts with it."""

    def __init__(self, run: RunLike) -> None:
        self.provider = tracer_provider()
        self.tracer = self.provider.get_tracer(SCOPE)
        self.run_id = run.id
        self.episode = self.tracer.start_span(
            f"episode {run.persona}",
            attributes=_present(
                {
                    "pbench.run.id": run.id,
                    "pbench.sweep.id": run.sweep_id,
                    "pbench.persona": run.persona,
                    "pbench.agent": run.agent,
                    "pbench.model": run.model,
                    "pbench.user": run.user_backend,
                    "pbench.judge_model": run.judge_model,
                    "pbench.suite": run.config.get("suite"),
                    "pbench.protocol": run.config.get("protocol"),
                    "gen_ai.agent.name": run.agent,
                }
            ),
        )
        self.session: Span | None = None
        self.session_id = ""
        self.turn: Span | None = None

    def _inside(self) -> Context:
        """The context of the innermost open span: the turn, else the session, else the episode."""
        return trace.set_span_in_context(self.turn or self.session or self.episode)

    def begin_session(self, session_id: str, position: int) -> None:
        self.session_id = session_id
        self.session = self.tracer.start_span(
            f"session {session_id}",
            context=trace.set_span_in_context(self.episode),
            attributes={
                "pbench.run.id": self.run_id,
                "pbench.session.id": session_id,
                "pbench.session.position": position,
                "gen_ai.conversation.id": f"{self.run_id}/{session_id}",
            },
        )

    def end_session(self, result: SessionResult) -> None:
        self._close_turn()
        if self.session is None:
            return
        counts = result.counts
        self.session.set_attributes(
            _present(
                {
                    "pbench.session.outcome": str(result.status),
                    "pbench.turns": result.turns,
                    "pbench.intents.total": counts.total,
                    "pbench.intents.completed": counts.completed,
                    "pbench.intents.inferred": counts.inferred,
                    "pbench.intents.provided": counts.provided,
                    "pbench.proc": counts.proc,
                    "pbench.comp": result.comp,
                }
            )
        )
        if result.status == SessionOutcome.ERROR:
            self.session.set_status(Status(StatusCode.ERROR, (result.error or "")[:TEXT_LIMIT]))
        self.session.end()
        self.session = None

    def begin_turn(self, turn: int) -> None:
        self._close_turn()
        self.turn = self.tracer.start_span(
            f"turn {turn}",
            context=trace.set_span_in_context(self.session or self.episode),
            attributes={"pbench.session.id": self.session_id, "pbench.turn": turn},
        )

    def end_turn(self, labels: list[IntentLabel]) -> None:
        for label in labels:
            event: dict[str, str | int] = {
                "pbench.intent.id": label.intent_id,
                "pbench.intent.status": str(label.status),
                "pbench.intent.stage": str(label.stage),
                "pbench.intent.decided_by": label.decided_by,
                "pbench.turn": label.turn,
            }
            for span in (self.turn, self.session):
                if span is not None:
                    span.add_event("intent_label", event)
        self._close_turn()

    @contextmanager
    def agent_answering(self) -> Iterator[object]:
        token = otel_context.attach(self._inside())
        try:
            yield None
        finally:
            otel_context.detach(token)

    def _close_turn(self) -> None:
        if self.turn is not None:
            self.turn.end()
            self.turn = None

    def model_call(self, record: LLMCallRecord) -> None:
        ended = time.time_ns()
        provider, _, model = record.model.rpartition(":")
        operation = "embeddings" if record.role == "embedder" else "chat"
        span = self.tracer.start_span(
            f"{operation} {model}",
            context=self._inside(),
            kind=SpanKind.CLIENT,
            start_time=ended - int(record.latency_ms * 1_000_000),
            attributes=_present(
                {
                    "gen_ai.operation.name": operation,
                    "gen_ai.request.model": model,
                    "gen_ai.system": provider or None,
                    "gen_ai.provider.name": provider or None,
                    "gen_ai.usage.input_tokens": record.prompt_tokens,
                    "gen_ai.usage.output_tokens": record.completion_tokens,
                    ROLE_ATTRIBUTE: record.role,
                    "pbench.purpose": record.purpose,
                    "pbench.method": record.method,
                    "pbench.attempt": record.attempt,
                    "pbench.cached": record.cached,
                    "pbench.call.error": record.error[:TEXT_LIMIT] if record.error else None,
                }
            ),
        )
        if not record.ok:
            span.set_status(Status(StatusCode.ERROR, (record.error or "")[:TEXT_LIMIT]))
        span.end(end_time=ended)

    def tool_call(self, record: ToolRecord, started_ns: int) -> None:
        span = self.tracer.start_span(
            f"execute_tool {record.tool_name}",
            context=self._inside(),
            kind=SpanKind.INTERNAL,
            start_time=started_ns or None,
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": record.tool_name,
                "pbench.turn": record.turn,
                "pbench.tool.seq": record.seq,
                "pbench.tool.ok": record.ok,
            },
        )
        if not record.ok:
            span.set_status(Status(StatusCode.ERROR, str(record.result.get("error", ""))[:TEXT_LIMIT]))
        span.end()

    async def end(self, result: EpisodeResult | None, status: str) -> None:
        self._close_turn()
        if self.session is not None:
            self.session.set_status(Status(StatusCode.ERROR, "the run ended inside this session"))
            self.session.end()
            self.session = None
        self.episode.set_attribute("pbench.run.status", str(status))
        if result is not None:
            self.episode.set_attributes(
                _present({"pbench.proc": result.proc, "pbench.comp": result.comp, "pbench.sessions": len(result.sessions)})
            )
        else:
            self.episode.set_status(Status(StatusCode.ERROR, "the run stopped on an exception"))
        self.episode.end()
        if not await asyncio.to_thread(self.provider.force_flush, FLUSH_MS):
            log.warning("otel_flush_timeout", run=self.run_id, waited_ms=FLUSH_MS)
