"""The built-in scaffolds, and building the agent under test from its ``--agent`` name.

Importing this module registers the built-ins in :data:`~proactive_bench.scaffolds.protocol.SCAFFOLDS`
(``scripted:<baseline>``, ``scripted:<adversary>``, ``person``; ``react``, by name in :data:`LAZY_SCAFFOLDS`,
its module and model clients imported only when it is built) and grants the scripted ones the reference
solution (:data:`ORACLES`); a third-party scaffold is an entry point of the ``pbench.scaffolds`` group, a
``package.module:attr`` or a ``path/file.py:attr``, and is refused if it declares ``uses_reference_solution``.
Agent names resolve in one place (:func:`agent_loader`): a name of the form ``PREFIX:REST`` whose prefix is
registered in :data:`AGENT_KINDS` is built by that prefix's loader, so a new kind of agent (an external one
over ``cmd:``, ``http:``, ``a2a:``) is one registration.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import proactive_bench.scaffolds.adversarial
import proactive_bench.scaffolds.person
import proactive_bench.scaffolds.scripted
from proactive_bench.registry import PluginError, Registry
from proactive_bench.scaffolds.defaults import DEFAULT_AGENT
from proactive_bench.scaffolds.external import TRANSPORTS, external_agent
from proactive_bench.scaffolds.protocol import (
    SCAFFOLDS,
    Scaffold,
    ScaffoldLoadError,
    ScaffoldOptions,
    grant_reference,
    grants_reference,
)
from proactive_bench.tracebacks import located

LAZY_SCAFFOLDS = {"react": "proactive_bench.scaffolds.react:react_scaffold"}
"""Built-ins declared by ``name -> "module:attr"`` (:meth:`~proactive_bench.registry.Registry.declare`): listed and
checked by name at once, imported when first built (``react`` loads openai and LangChain; ``pbench runs``, a ``--model``
check or a dead endpoint's error need neither)."""
for _name, _target in LAZY_SCAFFOLDS.items():
    SCAFFOLDS.declare(_name, _target)

REFERENCE_ATTRIBUTE = "uses_reference_solution"
"""An agent's claim to the reference solution: a reason to refuse it, since only pbench's grant gives it."""

ORACLES: tuple[str, ...] = tuple(name for name, _ in SCAFFOLDS.items() if name.startswith("scripted:"))
"""pbench's own scripted baselines, every ``scripted:*`` the built-in modules imported above registered: the only
agents given each session's reference solution (granted at the end of this module, before any plugin can load)."""

TOOL_ONLY_BASELINES: frozenset[type] = frozenset(
    {proactive_bench.scaffolds.scripted.ScriptedAgent, proactive_bench.scaffolds.adversarial.AdversarialAgent}
)
"""The classes of pbench's own scripted and adversarial baselines: they change the workspace only through their
session's tools, never by writing files themselves nor leaving anything running that writes after their turn."""


def acts_only_through_tools(agent: object) -> bool:
    """Whether ``agent`` is one of pbench's own baselines (:data:`TOOL_ONLY_BASELINES`), by its exact class: not a
    subclass, nor anything an agent declares (an agent claiming it falsely would be graded on a stale workspace). After
    a turn in which such an agent called no tool, the workspace is as its last walk found it."""
    return type(agent) in TOOL_ONLY_BASELINES


AgentLoader = Callable[[str, ScaffoldOptions], Any]
"""Builds an agent from its full ``--agent`` name and the run's options (a factory's result, checked by :func:`load_agent`)."""

AGENT_KINDS: Registry[AgentLoader] = Registry("agent_kinds")
"""How an ``--agent`` name of the form ``PREFIX:REST`` is built, by prefix (``scripted``, ``react``; the external
agents' ``cmd``, ``http``, ``a2a`` join with one ``AGENT_KINDS.add``); plugins from ``pbench.agent_kinds`` entry points."""


def agent_loader(name: str) -> AgentLoader | None:
    """How the agent ``name`` is built, or None when ``name`` is no agent name (then, given as ``--model``, it is a chat model).

    In order: a registered scaffold name (built-in, entry point, registered in this process); a registered
    prefix (``scripted:NAME``, ``react:MODEL``, ...); ``path/file.py:attr``; ``package.module:attr``.
    """
    if name in SCAFFOLDS:
        return _registered_agent
    prefix, sep, rest = name.partition(":")
    if sep and prefix in AGENT_KINDS:
        return AGENT_KINDS.get(prefix)
    if sep and rest and (prefix.endswith(".py") or "." in prefix):
        return _imported_agent
    return None


def load_agent(name: str, options: ScaffoldOptions) -> Scaffold:
    """Build the agent under test named by ``--agent`` (its chat model, if any, is ``options.model``).

    ``attr`` of a file or module is a class or factory called with the :class:`ScaffoldOptions`
    (or with no arguments if it takes none). An agent not built from a factory :func:`grant_reference`
    marked (pbench's scripted baselines) that declares ``uses_reference_solution`` is refused.
    An unknown name is a one-line :class:`ScaffoldLoadError` listing the close matches.
    """
    loader = agent_loader(name)
    if loader is None:
        raise ScaffoldLoadError(unknown_agent(name))
    agent = _checked(loader(name, options), name)
    if not grants_reference(name) and inspect.getattr_static(agent, REFERENCE_ATTRIBUTE, False):
        raise ScaffoldLoadError(
            f"scaffold {name!r} declares {REFERENCE_ATTRIBUTE}: reference solutions go only to pbench's own scripted baselines; "
            "remove the attribute (an agent under test finds out what the user wants by working and asking)"
        )
    return agent


def unknown_agent(name: str) -> str:
    """The one line refusing an agent name that names nothing, with the known names closest to it."""
    known = [*SCAFFOLDS.names(), *(f"{prefix}:..." for prefix in AGENT_KINDS.names() if prefix not in ("scripted", "react"))]
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    registered = sorted({n if not n.startswith("scripted:") else "scripted:NAME" for n in SCAFFOLDS.names()})
    return (
        f"unknown agent {name!r}; {hint}an agent is a registered name ({', '.join(registered)}), path/file.py:Class or package.module:attr"
    )


def split_agent_model(value: str) -> tuple[str, str | None]:
    """What a 0.1-style ``--model VALUE`` named: ``(agent, chat model)``.

    ``react:MODEL`` is the react agent on MODEL; an agent name (:func:`agent_loader`) is that agent with no chat
    model; anything else is a chat model for the default agent (react).
    """
    if value.startswith(f"{DEFAULT_AGENT}:"):
        return DEFAULT_AGENT, value.split(":", 1)[1]
    if agent_loader(value) is not None:
        return value, None
    return DEFAULT_AGENT, value


def agent_and_model(agent: str | None, model: str | None) -> tuple[str, str | None, str | None]:
    """The ``(agent, chat model, deprecation note)`` that ``--agent`` and ``--model`` name together.

    Without ``--agent``, ``--model`` may still name an agent (0.1's spelling): ``scripted:*`` baselines are
    accepted as a shorthand, any other agent with a note saying to use ``--agent``. With ``--agent``,
    ``--model`` must be a chat model. ValueError (one line) for the rest.
    """
    if agent is None:
        if model is None:
            raise ValueError(
                "--agent or --model is required: --model MODEL runs the react agent on a chat model, --agent NAME another agent"
            )
        agent, model = split_agent_model(model)
        note = (
            None
            if agent.startswith("scripted:") or agent == DEFAULT_AGENT
            else f"--model {agent} names an agent: give it as --agent {agent} (--model names the chat model)"
        )
        return agent, model, note
    if model is not None and agent_loader(model) is not None and not model.startswith(f"{DEFAULT_AGENT}:"):
        raise ValueError(f"--model {model} names an agent; --model names the chat model the agent ({agent}) runs on")
    if agent_loader(agent) is None:
        raise ValueError(unknown_agent(agent))
    if agent == DEFAULT_AGENT and model is None:
        raise ValueError(f"the {DEFAULT_AGENT} agent runs on a chat model: give --model (e.g. openai:gpt-4o-mini)")
    return agent, model, None


def load_scaffold(spec: str, options: ScaffoldOptions) -> Scaffold:
    """Build the agent a 0.1-style ``--model`` value names (:func:`split_agent_model`); kept for scripts, see :func:`load_agent`."""
    agent, model = split_agent_model(spec)
    return load_agent(agent, options if model is None else replace(options, model=model))


def _registered_agent(name: str, options: ScaffoldOptions) -> Any:
    return _instantiate(_registered(name), options, name)


def _imported_agent(name: str, options: ScaffoldOptions) -> Any:
    """``path/file.py:attr`` or ``package.module:attr``: a scaffold class or factory, or a compiled LangGraph graph
    over messages, or a factory ``attr(tools)`` returning one (:mod:`.langgraph_graph`, which loads LangGraph: imported
    here, when such an agent is built)."""
    from proactive_bench.scaffolds.langgraph_graph import GraphAgent, is_graph_attr

    attr = _import_attr(name)
    return GraphAgent(attr, name) if is_graph_attr(attr) else _instantiate(attr, options, name)


def _scripted_agent(name: str, options: ScaffoldOptions) -> Any:
    names = ", ".join(sorted(k for k in SCAFFOLDS.names() if k.startswith("scripted:")))
    raise ScaffoldLoadError(f"unknown scripted baseline {name!r}; known: {names}")


def _react_on(name: str, options: ScaffoldOptions) -> Any:
    """``react:MODEL``: the react agent on MODEL (0.1's spelling of ``--agent react --model MODEL``)."""
    return SCAFFOLDS.get(DEFAULT_AGENT)(replace(options, model=name.split(":", 1)[1]))


AGENT_KINDS.add("scripted", _scripted_agent)  # a registered scripted:NAME is found as a scaffold name first
AGENT_KINDS.add(DEFAULT_AGENT, _react_on)
for _prefix in TRANSPORTS:  # cmd:COMMAND, http:URL, a2a:URL: agents outside pbench (scaffolds/external)
    AGENT_KINDS.add(_prefix, external_agent)


def _registered(spec: str) -> Any:
    """The factory registered as ``spec``: a built-in, one registered in this process, or an entry point (loaded now)."""
    try:
        return SCAFFOLDS.get(spec)
    except PluginError as exc:  # the entry point's module failed to import: say where
        where = located(exc.__cause__) if exc.__cause__ is not None else str(exc)
        raise ScaffoldLoadError(f"scaffold {spec!r} (entry point {SCAFFOLDS.plugins[spec].value}) cannot be loaded: {where}") from exc


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
    except Exception as exc:
        sys.modules.pop(f"pbench_user_scaffold_{Path(target).stem}", None)
        raise ScaffoldLoadError(f"cannot import scaffold module {target!r}: {located(exc)}") from exc
    try:
        return getattr(module, attr)
    except AttributeError as exc:
        raise ScaffoldLoadError(f"module {target!r} has no attribute {attr!r}") from exc


def _instantiate(factory: Any, options: ScaffoldOptions, spec: str) -> Any:
    try:
        takes_args = bool(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        takes_args = False
    try:
        return factory(options) if takes_args else factory()
    except ScaffoldLoadError as exc:
        raise ScaffoldLoadError(f"agent {spec!r}: {exc}") from exc  # already a one-line reason
    except Exception as exc:
        raise ScaffoldLoadError(f"building scaffold {spec!r} failed: {located(exc)}") from exc


def _checked(agent: Any, name: str) -> Scaffold:
    """The agent, if it has the protocol's three methods; ScaffoldLoadError naming those it lacks."""
    missing = [m for m in ("start_session", "respond", "end_session") if not callable(getattr(agent, m, None))]
    if missing:
        raise ScaffoldLoadError(f"scaffold {name!r} lacks method(s): {', '.join(missing)}")
    return agent


for _name in ORACLES:
    grant_reference(_name)
