"""One episode run: its settings, its sessions in order, their checkpoints and rows.

- ``settings``: :class:`RunSettings`, the core settings every run takes (declared once;
  the sweep config extends it), and :class:`RunSpec`, the run's one settings object,
  stored with the run and read back by ``run_spec`` without loading a runner or suite;
- ``launch``: ``start_run``, ``build_participants``, ``execute_run``;
- ``runner``: ``run_episode`` over an :class:`EpisodeRun` (store, run row,
  episode, :class:`Participants`, call ledger, cache), ``CallLedger``;
- ``session_world``: ``session_toolbox``, one session's world on its own
  (``pbench mcp``), loading no agent loop nor model client;
- ``session_graph``: the LangGraph agent/user loop of one session, with its
  ``SessionRuntime`` as the graph's run context;
- ``rows``: the one place a session's records become store rows;
- ``checkpoints``: workspace checkpoints, and resuming a run where it stopped;
- ``tracing``: a run's trace hooks, doing nothing unless tracing is on (``--otel``,
  ``OTEL_EXPORTER_OTLP_ENDPOINT``); ``otel``, loaded only then, sends them over OTLP.
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "checkpoints": ("ResumeError", "archive_references", "opened_checkpoint"),
        "launch": ("START_FAILURES", "build_participants", "endpoint_limiter", "execute_run", "load_spec_episode", "start_run"),
        "rows": ("grade_rows",),
        "stored": ("stored_session_result",),
        "settings": ("DEFAULT_MAX_TURNS", "LaunchError", "RunSettings", "RunSpec", "run_spec"),
        "environment": ("episode_env",),
        "runner": ("CallLedger",),
        "session_world": ("session_toolbox",),
        "tracing": ("NO_TRACE", "TRACING_ENV", "RunTrace", "enable_tracing", "run_trace", "tracing_on", "tracing_problem"),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.episode.checkpoints import ResumeError, archive_references, opened_checkpoint
    from proactive_bench.episode.environment import episode_env
    from proactive_bench.episode.launch import (
        START_FAILURES,
        build_participants,
        endpoint_limiter,
        execute_run,
        load_spec_episode,
        start_run,
    )
    from proactive_bench.episode.rows import grade_rows
    from proactive_bench.episode.runner import CallLedger
    from proactive_bench.episode.session_world import session_toolbox
    from proactive_bench.episode.settings import DEFAULT_MAX_TURNS, LaunchError, RunSettings, RunSpec, run_spec
    from proactive_bench.episode.stored import stored_session_result
    from proactive_bench.episode.tracing import NO_TRACE, TRACING_ENV, RunTrace, enable_tracing, run_trace, tracing_on, tracing_problem

__all__ = [
    "DEFAULT_MAX_TURNS",
    "NO_TRACE",
    "START_FAILURES",
    "TRACING_ENV",
    "CallLedger",
    "LaunchError",
    "ResumeError",
    "RunSettings",
    "RunSpec",
    "RunTrace",
    "archive_references",
    "build_participants",
    "enable_tracing",
    "endpoint_limiter",
    "episode_env",
    "execute_run",
    "grade_rows",
    "load_spec_episode",
    "opened_checkpoint",
    "run_spec",
    "run_trace",
    "session_toolbox",
    "start_run",
    "stored_session_result",
    "tracing_on",
    "tracing_problem",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
