"""The protocol every agent under test implements, and how scaffolds are loaded.

A scaffold is any object with ``start_session(ctx)``, ``respond(message)``
and ``end_session()``. ``respond`` may be a plain or an ``async`` method.
Tools must be called through ``ctx.tools.call(name, args)`` (or the LangChain
tools from :func:`proactive_bench.scaffolds.langchain_tools.as_langchain_tools`),
which records every call; evidence the framework did not record does not count.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Awaitable,
    Callable,
    Literal,
    Protocol,
    runtime_checkable,
)

from langchain_core.caches import BaseCache
from langchain_core.rate_limiters import BaseRateLimiter

from proactive_bench.dataset.schema import ReferenceStep, Session
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox
from proactive_bench.env.workspace import Workspace

if TYPE_CHECKING:
    from proactive_bench.llm.transport import ChatTransport

ENTRY_POINT_GROUP = "pbench.scaffolds"


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
    """The session spec with its reference solution: only given to scaffolds with
    ``uses_reference_solution = True`` (the scripted baselines)."""


@dataclass
class AgentTurn:
    """The agent's answer to one message. Tool calls are recorded by the toolbox, not here."""

    reply: str


@runtime_checkable
class Scaffold(Protocol):
    def start_session(self, ctx: SessionContext) -> None: ...

    def respond(self, message: str) -> AgentTurn | Awaitable[AgentTurn]: ...

    def end_session(self) -> None: ...


class ScaffoldLoadError(ValueError):
    """A scaffold name that cannot be turned into an agent."""


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


def _builtin_factories() -> dict[str, ScaffoldFactory]:
    from proactive_bench.scaffolds import BUILTIN_SCAFFOLDS

    return BUILTIN_SCAFFOLDS


@cache
def _installed_plugins() -> dict[str, EntryPoint]:
    """Scaffolds installed under the ``pbench.scaffolds`` entry point group (read once: scanning is slow)."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def load_scaffold(spec: str, options: ScaffoldOptions) -> Scaffold:
    """Build the agent under test from ``--model``.

    ``spec`` is ``scripted:NAME``, a provider model such as ``openai:gpt-4o``
    (the ``react`` scaffold on that model), ``react:openai:NAME``, an
    installed entry point name, ``package.module:attr`` or ``path/file.py:attr``.
    ``attr`` is a class or factory called with the :class:`ScaffoldOptions`
    (or with no arguments if it takes none).
    """
    builtins = _builtin_factories()
    head = spec.split(":", 1)[0]
    if spec.startswith("scripted:"):
        if spec not in builtins:
            names = ", ".join(sorted(k for k in builtins if k.startswith("scripted:")))
            raise ScaffoldLoadError(f"unknown scripted baseline {spec!r}; known: {names}")
        return builtins[spec](options)
    if head == "react":
        return builtins["react"](ScaffoldOptions(**{**options.__dict__, "model": spec.split(":", 1)[1]}))
    plugins = _installed_plugins()
    if spec in plugins:
        return _instantiate(plugins[spec].load(), options, spec)
    if ":" in spec and (spec.split(":", 1)[0].endswith(".py") or "." in head):
        return _instantiate(_import_attr(spec), options, spec)
    # Anything else is a chat model for the default scaffold.
    return builtins["react"](options)


def _import_attr(spec: str) -> Any:
    target, attr = spec.rsplit(":", 1)
    try:
        if target.endswith(".py"):
            path = Path(target).resolve()
            if not path.is_file():
                raise ScaffoldLoadError(f"scaffold file not found: {target}")
            module_name = f"pbench_user_scaffold_{path.stem}"
            module_spec = importlib.util.spec_from_file_location(module_name, path)
            assert module_spec is not None and module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[module_name] = module
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except ScaffoldLoadError:
        raise
    except Exception as exc:  # noqa: BLE001 (the user's module: missing, a syntax error, a bug at import)
        raise ScaffoldLoadError(f"cannot import scaffold module {target!r}: {exc}") from exc
    try:
        return getattr(module, attr)
    except AttributeError as exc:
        raise ScaffoldLoadError(f"module {target!r} has no attribute {attr!r}") from exc


def _instantiate(factory: Any, options: ScaffoldOptions, spec: str) -> Scaffold:
    try:
        takes_args = bool(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        takes_args = False
    try:
        agent = factory(options) if takes_args else factory()
    except Exception as exc:  # noqa: BLE001 (the user's factory)
        raise ScaffoldLoadError(f"building scaffold {spec!r} failed: {exc!r}") from exc
    missing = [m for m in ("start_session", "respond", "end_session") if not callable(getattr(agent, m, None))]
    if missing:
        raise ScaffoldLoadError(f"scaffold {spec!r} lacks method(s): {', '.join(missing)}")
    return agent


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


__all__ = [
    "AgentTurn",
    "ReferenceStep",
    "Scaffold",
    "ScaffoldLoadError",
    "ScaffoldOptions",
    "SessionContext",
    "call_respond",
    "load_scaffold",
]
