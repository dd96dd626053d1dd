"""``ExternalAgent``: an agent pbench does not load, seen as a scaffold. One session's lifecycle, shared by
every transport: serve the session's tools, send ``session_start`` before the first user message, enforce the
turn timeout, send ``session_end``, and tear everything down whatever happened.

A transport subclass only carries events: ``_open`` (start a process, open a client), ``_deliver`` (an event
that gets no reply), ``_ask`` (a ``user`` event, returning the reply's text), ``_close`` and, for what it keeps
across sessions, ``_end_episode``. They block (a process's pipes, an HTTP client), so each runs in a thread of its
own (:func:`off_loop`) and the session's ``start_session``, ``respond`` and ``end_session`` are coroutines the
runner awaits: the event loop stays free for the session's tool calls and for the other sessions of a sweep. Any
failure of the agent is an :class:`ExternalAgentError` with a one-line message; the runner then ends the session
as ``error`` with that reason, and the next session starts afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import secrets
import ssl
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar, get_args

from proactive_bench.env import ToolBox
from proactive_bench.llm import note_request_sent
from proactive_bench.logs import get_logger
from proactive_bench.scaffolds.defaults import DEFAULT_MAX_TOOL_CALLS
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
    enter_served,
    mcp_tool_server,
)
from proactive_bench.scaffolds.protocol import (
    AgentTurn,
    ScaffoldLoadError,
    SessionContext,
    whole_number_option,
)

log = get_logger(__name__)

DEFAULT_TURN_TIMEOUT_S = 300.0
DEFAULT_EXIT_GRACE_S = 5.0
BACKSTOP_S = 2.0
"""How long past the turn timeout pbench waits for a transport stuck outside its own deadline (a blocked write)."""
Lifetime = Literal["session", "episode"]
"""How long a ``cmd:`` agent's process lives: one session (the default), or the run's sessions (``--agent-lifetime``)."""
LIFETIMES: tuple[Lifetime, ...] = get_args(Lifetime)
OPTIONS = {
    "turn_timeout": "seconds one turn may take (default 300; also --turn-timeout)",
    "env": "comma-separated names of pbench's environment variables to pass to a cmd: agent (also --agent-env NAME)",
    "exit_grace": "seconds a cmd: agent has to exit once its stdin closes (after session_end, or the run's end with lifetime=episode) before it is killed (default 5)",
    "max_tool_calls": f"tool calls one turn may make; the next ends the session as error (default {DEFAULT_MAX_TOOL_CALLS})",
    "lifetime": "session or episode: a cmd: agent's process per session (default) or kept across the run's sessions (set by --agent-lifetime)",
}
T = TypeVar("T")


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The certificate-checking TLS context every session's HTTP client shares: building one reads the CA bundle,
    0.1 to 0.3 s, which a client made per session would pay each time (read-only once made, so shared safely)."""
    return ssl.create_default_context()


@dataclass(frozen=True)
class ExternalSettings:
    """An external agent's settings, from ``--agent-option KEY=VALUE``, ``--agent-env``, ``--turn-timeout`` and ``--agent-lifetime``."""

    turn_timeout: float = DEFAULT_TURN_TIMEOUT_S
    env: tuple[str, ...] = ()
    exit_grace: float = DEFAULT_EXIT_GRACE_S
    lifetime: Lifetime = "session"
    max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS

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
        lifetime = str(extra.get("lifetime", "session"))
        if lifetime not in LIFETIMES:
            raise ScaffoldLoadError(f"external agent: --agent-option lifetime={lifetime}: expected {' or '.join(LIFETIMES)}")
        return cls(
            _seconds(extra, "turn_timeout", DEFAULT_TURN_TIMEOUT_S),
            env,
            _seconds(extra, "exit_grace", DEFAULT_EXIT_GRACE_S),
            lifetime,
            whole_number_option(extra, "max_tool_calls", DEFAULT_MAX_TOOL_CALLS, minimum=1, scaffold="external agent"),
        )


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

    starts_process: ClassVar[bool] = False
    """Whether pbench starts the agent's process (``cmd:``), so that ``lifetime`` applies to it."""

    def __init__(self, target: str, settings: ExternalSettings | None = None, serve_tools: ToolServer = mcp_tool_server) -> None:
        self.target = target
        self.settings = settings or ExternalSettings()
        if self.settings.lifetime != "session" and not self.starts_process:
            raise ScaffoldLoadError(
                f"external agent {target}: lifetime={self.settings.lifetime} applies to cmd: agents, whose process pbench starts"
            )
        self.serve_tools = serve_tools
        self.session_id = ""
        self._calls_spent = asyncio.Event()
        self._conversation = ""
        self._stack: AsyncExitStack | None = None
        self._pending: list[dict[str, Any]] = []
        self._broken = False

    async def start_session(self, ctx: SessionContext) -> None:
        self._stack, self._broken, self.session_id = AsyncExitStack(), False, ctx.session_id
        self._conversation = secrets.token_hex(8)
        self._limit_calls(ctx.tools)
        try:
            endpoint = await enter_served(self._stack, self.serve_tools(ctx.tools))
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
            await off_loop(self._open, ctx, endpoint)
        except BaseException:
            await self._teardown()
            raise

    async def respond(self, message: str) -> AgentTurn:
        timeout = self.settings.turn_timeout
        note_request_sent()  # the agent is at work: the previous session's save may be written meanwhile, as during a model call
        try:
            turn = asyncio.wait_for(off_loop(self._turn, message, time.monotonic() + timeout), timeout + BACKSTOP_S)
            reply = await self._within_call_limit(turn)
        except TimeoutError:
            self._broken = True
            raise ExternalAgentError(self.timed_out()) from None
        except BaseException:
            self._broken = True  # the agent is in an unknown state: no session_end, just teardown
            raise
        return AgentTurn(reply)

    async def _within_call_limit(self, turn: Coroutine[Any, Any, str]) -> str:
        """The turn's reply, unless the agent makes more tool calls in it than ``max_tool_calls`` first: then the turn ends
        there (the toolbox refuses the calls past the limit and records none of them)."""
        replied, limited = asyncio.ensure_future(turn), asyncio.ensure_future(self._calls_spent.wait())
        try:
            await asyncio.wait((replied, limited), return_when=asyncio.FIRST_COMPLETED)
        finally:
            limited.cancel()
            if not replied.done():
                replied.cancel()  # the limit was reached, or the session is cancelled
        if self._calls_spent.is_set():
            if replied.done() and not replied.cancelled():
                replied.exception()  # the turn ended meanwhile too: its outcome is read (so never reported unread), then set aside
            raise ExternalAgentError(f"the agent made more than {self.settings.max_tool_calls} tool calls in one turn (max_tool_calls)")
        return replied.result()

    def _limit_calls(self, tools: ToolBox) -> None:
        """Bound the session's tool calls per turn by ``max_tool_calls``; the first call past it sets :attr:`_calls_spent`."""
        loop, spent = asyncio.get_running_loop(), asyncio.Event()
        self._calls_spent = spent
        tools.max_calls_per_turn = self.settings.max_tool_calls
        tools.on_call_limit = functools.partial(loop.call_soon_threadsafe, spent.set)

    async def end_session(self) -> None:
        try:
            if self._stack is not None and not self._broken and not self._pending:
                await off_loop(self._say_session_end)
        finally:
            await self._teardown()

    async def end_episode(self) -> None:
        """The run's sessions are over (or it stops): release what the agent kept across them (a ``cmd:`` agent's process
        under ``--agent-lifetime episode``). The runner calls it once per run; a later session would start afresh."""
        await off_loop(self._end_episode)

    def timed_out(self) -> str:
        return f"no reply within the turn timeout ({self.settings.turn_timeout:g} s)"

    def _turn(self, message: str, deadline: float) -> str:
        for event in self._pending:
            self._deliver(event, deadline)
        self._pending = []
        return self._ask(user_message(self._conversation, message), deadline)

    def _say_session_end(self) -> None:
        try:
            self._deliver(session_end(self._conversation), time.monotonic() + self.settings.exit_grace)
        except ExternalAgentError as exc:
            log.warning("external_agent_session_end_failed", session=self.session_id, agent=self.target, error=str(exc))

    async def _teardown(self) -> None:
        stack, self._stack = self._stack, None
        if stack is None:
            return
        try:
            await off_loop(self._close)
        finally:
            await stack.aclose()  # the session's tool server stops after the agent let go of the session

    def _end_episode(self) -> None:
        """Release what is kept across sessions: nothing, unless a transport keeps something (``cmd:``, its process)."""
        return None

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
        """Release what the session held (a process, a client), but for what a transport keeps for the run's next
        session when this one went well (released by ``_end_episode``); must not raise for an agent that misbehaved."""


async def off_loop(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in a thread of its own, awaited: an agent's blocking I/O never holds the event loop, and never
    waits for a worker of the loop's shared pool (a turn takes as long as the agent does, and a sweep runs many at
    once). The thread sees the caller's context variables. Cancelling the await abandons the thread's result."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            result = context.run(work, *args)
        except BaseException as exc:
            outcome = functools.partial(_fail, future, exc)
        else:
            outcome = functools.partial(_resolve, future, result)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits for the result
            loop.call_soon_threadsafe(outcome)

    threading.Thread(target=run, name=f"external-agent-{getattr(work, '__name__', 'io')}", daemon=True).start()
    return await future


def _resolve(future: asyncio.Future[T], result: T) -> None:
    if not future.done():  # done: the await was cancelled (a turn past its timeout)
        future.set_result(result)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)
