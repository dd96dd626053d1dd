"""A run's trace: the hooks the runner calls (episode, session, turn, model call, tool call), doing nothing unless tracing is on.

Tracing is on when ``PBENCH_OTEL`` is set (``--otel`` sets it) or when the standard
``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` is. Off,
:func:`run_trace` returns :data:`NO_TRACE` and the OpenTelemetry SDK is never
imported by pbench; on, it returns an :class:`~proactive_bench.episode.otel.OtelRunTrace`
(the only module that imports the SDK). The setting is read from the environment
at each run's start, so a sweep's worker processes, which inherit it, each export
their runs' traces through a provider of their own.
"""

from __future__ import annotations

import importlib.util
import os
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from proactive_bench.episode.settings import LaunchError

if TYPE_CHECKING:  # annotations only: the CLI reads the switch without loading the tools or the scoring
    from proactive_bench.data_model import IntentLabel
    from proactive_bench.env import ToolRecord
    from proactive_bench.llm import LLMCallRecord
    from proactive_bench.scoring import EpisodeResult, SessionResult
    from proactive_bench.store import RunLike

TRACING_ENV = "PBENCH_OTEL"
"""Set to 1 (``--otel``) to export each run's trace over OTLP (to ``OTEL_EXPORTER_OTLP_ENDPOINT``, by default http://localhost:4318)."""
ENDPOINT_ENVS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
"""The standard OTLP endpoint variables: either one set turns tracing on as well."""


def tracing_on() -> bool:
    """Whether runs started now export their traces (see the module's docstring)."""
    flag = os.environ.get(TRACING_ENV, "").strip().lower()
    if flag in ("0", "false", "no", "off"):
        return False
    return bool(flag) or any(os.environ.get(name) for name in ENDPOINT_ENVS)


EXPORTER_MODULES = ("opentelemetry.sdk.trace", "opentelemetry.exporter.otlp.proto.http.trace_exporter")
"""What exporting needs: the SDK and its OTLP/HTTP exporter (the ``otel`` extra)."""


def tracing_problem() -> str | None:
    """Why runs started now cannot export their traces (tracing on, the ``otel`` extra not installed); None if they can or it is off."""
    if not tracing_on():
        return None
    missing = [name for name in EXPORTER_MODULES if not _installed(name)]
    if not missing:
        return None
    why = f"--otel or {TRACING_ENV}" if os.environ.get(TRACING_ENV) else f"{next(n for n in ENDPOINT_ENVS if os.environ.get(n))} is set"
    return f"tracing is on ({why}) but {', '.join(missing)} is not installed: pip install 'pbench[otel]'"


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def enable_tracing() -> None:
    """Turn tracing on for the runs of this process and of the worker processes it starts (``--otel``)."""
    os.environ[TRACING_ENV] = "1"


class RunTrace:
    """The trace of one run; this base does nothing (tracing off). Sessions of a run are played one after another, so a run's
    trace has at most one open session and one open turn: a model or tool call belongs to whichever is open."""

    def begin_session(self, session_id: str, position: int) -> None:
        """A session starts (before its world is opened)."""

    def end_session(self, result: SessionResult) -> None:
        """The session is graded: its outcome, label counts, Proc and Comp."""

    def begin_turn(self, turn: int) -> None:
        """The agent is handed the pending message of ``turn`` (the turn goes on through the user's answer)."""

    def end_turn(self, labels: list[IntentLabel]) -> None:
        """The user has answered the turn, with these intent labels."""

    def agent_answering(self) -> AbstractContextManager[object]:
        """Around the agent's answer: the turn is the current span, so an instrumented agent's own spans nest under it."""
        return nullcontext()

    def model_call(self, record: LLMCallRecord) -> None:
        """One attempt at a model call has just ended (the call ledger's record)."""

    def tool_call(self, record: ToolRecord, started_ns: int) -> None:
        """One tool call has just been recorded; it started at ``started_ns`` (``time.time_ns()``)."""

    async def end(self, result: EpisodeResult | None, status: str) -> None:
        """The run ends (``result``: its scores, None when it stopped on an exception); open spans close and are sent."""


NO_TRACE = RunTrace()
"""Tracing off: every hook does nothing."""


def run_trace(run: RunLike) -> RunTrace:
    """The trace of a run starting now: :data:`NO_TRACE` unless :func:`tracing_on`; LaunchError when on and the SDK is not installed."""
    if not tracing_on():
        return NO_TRACE
    if (problem := tracing_problem()) is not None:
        raise LaunchError(problem)
    from proactive_bench.episode.otel import OtelRunTrace  # the OpenTelemetry SDK loads only when tracing is on

    return OtelRunTrace(run)
