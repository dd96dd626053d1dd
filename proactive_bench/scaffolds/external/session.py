"""``ExternalAgent``: an agent pbench does not load, seen as a scaffold. One session's lifecycle, shared by
every transport: serve the session's tools, send ``session_start`` before the first user message, enforce the
turn timeout, send ``session_end``, and tear everything down whatever happened.

A transport subclass only carries events: ``_open`` (start a process, open a client), ``_deliver`` (an event
that gets no reply), ``_ask`` (a ``user`` event, returning the reply's text) and ``_close``. Any failure of the
agent is an :class:`ExternalAgentError` with a one-line message; the runner then ends the session as
``error`` with that reason, and the next session starts afresh.
"""

from __future__ import annotations

import asyncio
import functools
import secrets
import ssl
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import structlog

from proactive_bench.llm import note_request_sent
from proactive_bench.scaffolds.external.environment import check_passed
from proactive_bench.scaffolds.external.messages import (
    ExternalAgentError,
    SessionOpening,
    session_end,
    session_start,
    user_message,
)
from proactive_bench.scaffolds.external.tool_server import (
    McpEndpoint,
    ToolServer,
    mcp_tool_server,
)
from proactive_bench.scaffolds.protocol import (
    AgentTurn,
    ScaffoldLoadError,
    SessionContext,
)

log = structlog.get_logger(__name__)

DEFAULT_TURN_TIMEOUT_S = 300.0
DEFAULT_EXIT_GRACE_S = 5.0
BACKSTOP_S = 2.0
"""How long past the turn timeout pbench waits for a transport stuck outside its own deadline (a blocked write)."""
OPTIONS = {
    "turn_timeout": "seconds one turn may take (default 300; also --turn-timeout)",
    "env": "comma-separated names of pbench's environment variables to pass to a cmd: agent (also --agent-env NAME)",
    "exit_grace": "seconds a cmd: agent has to exit after session_end before it is killed (default 5)",
}


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The certificate-checking TLS context every session's HTTP client shares: building one reads the CA bundle,
    0.1 to 0.3 s, which a client made per session would pay each time (read-only once made, so shared safely)."""
    return ssl.create_default_context()


@dataclass(frozen=True)
class ExternalSettings:
    """An external agent's settings, from ``--agent-option KEY=VALUE``, ``--agent-env`` and ``--turn-timeout``."""

    turn_timeout: float = DEFAULT_TURN_TIMEOUT_S
    env: tuple[str, ...] = ()
    exit_grace: float = DEFAULT_EXIT_GRACE_S

    @classmethod
    def from_options(cls, extra: Mapping[str, Any]) -> ExternalSettings:
        """The settings in ``extra``; an unknown key, a bad number or an unpassable variable is a :class:`ScaffoldLoadError`."""
        unknown = sorted(set(extra) - set(OPTIONS))
        if unknown:
            known = "; ".join(f"{k}: {why}" for k, why in OPTIONS.items())
            raise ScaffoldLoadError(f"external agent: unknown --agent-option {', '.join(unknown)} (known: {known})")
        try:
            env = check_passed(n.strip() for n in str(extra.get("env", "")).split(",") if n.strip())
        except ValueError as exc:
            raise ScaffoldLoadError(str(exc)) from None
        return cls(_seconds(extra, "turn_timeout", DEFAULT_TURN_TIMEOUT_S), env, _seconds(extra, "exit_grace", DEFAULT_EXIT_GRACE_S))


def _seconds(extra: Mapping[str, Any], key: str, default: float) -> float:
    raw = extra.get(key, default)
    try:
        value = float(raw)
    except (TypeError, ValueError):
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise ScaffoldLoadError(f"external agent: --agent-option {key}={raw}: expected a positive number of seconds")
    return value


class ExternalAgent(ABC):
    """A scaffold whose agent lives outside pbench; subclasses carry the events (one per transport)."""

    def __init__(self, target: str, settings: ExternalSettings | None = None, serve_tools: ToolServer = mcp_tool_server) -> None:
        self.target = target
        self.settings = settings or ExternalSettings()
        self.serve_tools = serve_tools
        self.session_id = ""
        self._conversation = ""
        self._stack: ExitStack | None = None
        self._pending: list[dict[str, Any]] = []
        self._broken = False

    def start_session(self, ctx: SessionContext) -> None:
        self._stack, self._broken, self.session_id = ExitStack(), False, ctx.session_id
        self._conversation = secrets.token_hex(8)
        try:
            endpoint = self._stack.enter_context(self.serve_tools(ctx.tools))
            self._pending = [
                session_start(
                    SessionOpening(
                        self._conversation,
                        ctx.session_id,
                        len(ctx.history) + 1,
                        ctx.trigger,
                        str(ctx.workspace.root),
                        endpoint.url if endpoint else None,
                        endpoint.token if endpoint else None,
                        ctx.history,
                    )
                )
            ]
            self._open(ctx, endpoint)
        except BaseException:
            self._teardown()
            raise

    async def respond(self, message: str) -> AgentTurn:
        timeout = self.settings.turn_timeout
        note_request_sent()  # the agent is at work: the previous session's save may be written meanwhile, as during a model call
        try:
            reply = await asyncio.wait_for(asyncio.to_thread(self._turn, message, time.monotonic() + timeout), timeout + BACKSTOP_S)
        except TimeoutError:
            self._broken = True
            raise ExternalAgentError(self.timed_out()) from None
        except BaseException:
            self._broken = True  # the agent is in an unknown state: no session_end, just teardown
            raise
        return AgentTurn(reply)

    def end_session(self) -> None:
        try:
            if self._stack is not None and not self._broken and not self._pending:
                try:
                    self._deliver(session_end(self._conversation), time.monotonic() + self.settings.exit_grace)
                except ExternalAgentError as exc:
                    log.warning("external_agent_session_end_failed", session=self.session_id, agent=self.target, error=str(exc))
        finally:
            self._teardown()

    def timed_out(self) -> str:
        return f"no reply within the turn timeout ({self.settings.turn_timeout:g} s)"

    def _turn(self, message: str, deadline: float) -> str:
        for event in self._pending:
            self._deliver(event, deadline)
        self._pending = []
        return self._ask(user_message(self._conversation, message), deadline)

    def _teardown(self) -> None:
        stack, self._stack = self._stack, None
        if stack is None:
            return
        try:
            self._close()
        finally:
            stack.close()

    @abstractmethod
    def _open(self, ctx: SessionContext, endpoint: McpEndpoint | None) -> None:
        """Get ready to carry the session's events (start the process, open the client)."""

    @abstractmethod
    def _deliver(self, event: dict[str, Any], deadline: float) -> None:
        """Send an event that gets no reply (``session_start``, ``session_end``)."""

    @abstractmethod
    def _ask(self, event: dict[str, Any], deadline: float) -> str:
        """Send a ``user`` event and return the reply's text by ``deadline`` (``time.monotonic()``)."""

    @abstractmethod
    def _close(self) -> None:
        """Release the session's process or client; must not raise for an agent that misbehaved."""
