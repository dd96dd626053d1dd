"""The protocol every agent under test implements, and the registry of scaffolds.

A scaffold is any object with ``start_session(ctx)``, ``respond(message)``
and ``end_session()``; each may be a plain or an ``async`` method (the runner
awaits what returns an awaitable: an agent whose start or end waits on I/O
leaves the event loop free meanwhile). A scaffold may also have
``end_episode()`` (plain or ``async``), called once after the run's sessions
(or when the run stops) to release what it keeps across sessions.
Tools must be called through ``ctx.tools.call(name, args)`` — from an async
``respond``, ``await ctx.tools.acall(name, args)``, which awaits the tools that
call a model (colleagues, embedding search) — or the LangChain tools from
:func:`proactive_bench.scaffolds.langchain_tools.as_langchain_tools`; the
toolbox records every call; evidence the framework did not record does not count.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Protocol,
    runtime_checkable,
)

from proactive_bench.dataset import ReferenceStep, Session
from proactive_bench.env import Memory, ToolBox, Workspace
from proactive_bench.llm import one_line
from proactive_bench.registry import Registry

if TYPE_CHECKING:  # LangChain's types for the options' fields: checking an agent's name loads no LangChain
    from langchain_core.caches import BaseCache
    from langchain_core.rate_limiters import BaseRateLimiter

    from proactive_bench.llm import ChatTransport


@dataclass
class SessionContext:
    """What an agent gets at the start of a session."""

    session_id: str
    trigger: Literal["user", "event"]
    workspace: Workspace
    memory: Memory
    tools: ToolBox
    history: list[list[dict[str, str]]] = field(default_factory=list)
    """Transcripts of the episode's earlier sessions in this run, oldest first, as
    ``{"role", "content"}`` dicts (roles user, event, agent)."""
    reference: Session | None = None
    """The session spec with its reference solution (intents, cues, questions, reveals): given only to
    pbench's own scripted baselines, the scaffolds :func:`grant_reference` marks; None for every other agent."""


EVENT_PREFIX = "[Environment event; this is not a message typed by the user]\n"
"""What pbench's chat agents (react, a LangGraph graph) put before the first message of a session whose trigger is an event."""


@dataclass
class AgentTurn:
    """The agent's answer to one message. Tool calls are recorded by the toolbox, not here."""

    reply: str


@runtime_checkable
class Scaffold(Protocol):
    """The agent under test: the runner calls these three methods.

    Steps are declared on the session's toolbox (``ctx.tools.begin_step()``), not on the agent.
    """

    def start_session(self, ctx: SessionContext) -> None | Awaitable[None]:
        """Begin a session: keep what the agent needs from ``ctx`` until :meth:`end_session` (may be ``async``).

        Args:
            ctx: The session's id and trigger, the workspace, memory and toolbox the agent works with,
                and the transcripts of the episode's earlier sessions.
        """
        ...

    def respond(self, message: str) -> AgentTurn | Awaitable[AgentTurn]:
        """Answer one message of the session, calling tools on ``ctx.tools`` as it works.

        Args:
            message: The user's message (or the event's text, for a session an event starts).

        Returns:
            The reply sent to the user, directly or from a coroutine (an async agent).
        """
        ...

    def end_session(self) -> None | Awaitable[None]:
        """End the session: the agent drops its session state; the runner scores the session after this (may be ``async``)."""
        ...


class ScaffoldLoadError(ValueError):
    """A scaffold name that cannot be turned into an agent."""


WHOLE_NUMBER_DIGITS = 18
"""The most digits a whole-number option takes (a larger count is no setting, and Python refuses to read 4,300 digits)."""


def whole_number_option(extra: Mapping[str, Any], key: str, default: int, *, minimum: int, scaffold: str) -> int:
    """``--agent-option key=N`` (``default`` when not given): ASCII digits only, no sign, at least ``minimum``; else a
    :class:`ScaffoldLoadError` naming the scaffold, the option, its value and what it takes. Every scaffold's counts
    read by this one rule."""
    raw = str(extra.get(key, default))
    value = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= WHOLE_NUMBER_DIGITS else None
    if value is None or value < minimum:
        shown = one_line(raw[:40], 40)  # a newline or tab in the value keeps the refusal on one line
        raise ScaffoldLoadError(f"{scaffold}: --agent-option {key}={shown}: expected a whole number of at least {minimum}")
    return value


@dataclass(frozen=True)
class ScaffoldOptions:
    """Settings the CLI passes to scaffold factories."""

    model: str
    base_url: str | None = None
    api_key: str | None = None
    recorder: Callable[..., None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    cache: BaseCache | None = None
    """Record/replay cache for the scaffold's chat models (pass it to ``make_chat_model``)."""
    rate_limiter: BaseRateLimiter | None = None
    """The endpoint's shared rate limiter, if the run sets one."""
    transport: ChatTransport | None = None
    """Pooled HTTP connections for OpenAI-compatible servers, the run's own or its sweep process's (pass it to ``make_chat_model``)."""
    max_tokens: int | None = None
    """The run's cap on each answer of the agent's model (pass it to ``make_chat_model``); None: uncapped."""
    call_timeout: float | None = None
    """Seconds one model call may take (pass it to ``make_chat_model`` as ``timeout``); None: its default."""
    context_tokens: int | None = None
    """The agent model's context window, when the run knows it (``--context-tokens``); None: unknown."""


ScaffoldFactory = Callable[[ScaffoldOptions], Scaffold]

SCAFFOLDS: Registry[ScaffoldFactory] = Registry("scaffolds")
"""Scaffolds by ``--model`` name: the built-ins (``react``, ``scripted:*``) register when
:mod:`proactive_bench.scaffolds.catalog` imports them; plugins come from the ``pbench.scaffolds`` entry points."""

_REFERENCE_GRANTS: dict[str, ScaffoldFactory] = {}


def grant_reference(name: str) -> None:
    """Mark the scaffold registered as ``name`` as an oracle: the agents its factory builds get each session's
    reference solution (``SessionContext.reference``).

    pbench's catalog grants its own scripted baselines, and tests their test oracles; nothing an agent
    declares grants it. Only a name registered by code in this process can be granted, never an entry
    point, and the grant holds the factory registered at this moment.
    """
    registered = dict(SCAFFOLDS.items())
    if name not in registered or SCAFFOLDS.from_plugin(name):
        raise ScaffoldLoadError(
            f"cannot grant the reference solution to {name!r}: no scaffold is registered under that name in this process"
        )
    _REFERENCE_GRANTS[name] = registered[name]


def grants_reference(name: str) -> bool:
    """Whether ``name`` is a scaffold :func:`grant_reference` marked, still registered with the factory it marked."""
    return name in _REFERENCE_GRANTS and dict(SCAFFOLDS.items()).get(name) is _REFERENCE_GRANTS[name]


async def call_respond(agent: Scaffold, message: str) -> AgentTurn:
    """Call ``respond`` whether it is sync or async, and check what it returns."""
    result = agent.respond(message)
    if inspect.isawaitable(result):
        result = await result
    if isinstance(result, str):
        result = AgentTurn(reply=result)
    if not isinstance(result, AgentTurn):
        raise TypeError(f"respond() must return AgentTurn or str, got {type(result).__name__}")
    return result


async def call_start_session(agent: Scaffold, ctx: SessionContext) -> None:
    """Call ``start_session`` whether it is sync or async."""
    await _settled(agent.start_session(ctx))


async def call_end_session(agent: Scaffold) -> None:
    """Call ``end_session`` whether it is sync or async."""
    await _settled(agent.end_session())


async def call_end_episode(agent: Scaffold) -> None:
    """Call the agent's ``end_episode``, sync or async, if it has one (the run's sessions are over)."""
    end_episode = getattr(agent, "end_episode", None)
    if callable(end_episode):
        await _settled(end_episode())


async def _settled(result: object) -> None:
    if inspect.isawaitable(result):
        await result


__all__ = [
    "SCAFFOLDS",
    "AgentTurn",
    "ReferenceStep",
    "Scaffold",
    "ScaffoldFactory",
    "ScaffoldLoadError",
    "ScaffoldOptions",
    "SessionContext",
    "call_end_episode",
    "call_end_session",
    "call_respond",
    "call_start_session",
    "grant_reference",
    "grants_reference",
]
