"""Agents under test: the scaffold protocol, the built-in scaffolds and loading one from ``--agent``.

``protocol`` is the three-method interface every agent implements and the
``SCAFFOLDS`` registry; ``react``, ``scripted`` and ``adversarial`` are the
built-ins, ``person`` the person at the terminal (``pbench play``); ``recorded`` an external agent's recorded run served again (``pbench replay``); ``catalog`` registers them, grants the scripted ones each session's
reference solution (:data:`ORACLES`) and builds the agent of a run
(:func:`load_agent`; ``AGENT_KINDS`` maps a name's prefix to how it is built). ``react`` is declared by name
(``catalog.LAZY_SCAFFOLDS``, ``name -> "module:attr"``), so its model clients load when it is built, not when a
name is checked; ``langgraph_graph`` loads when a ``module:attr`` agent is built (tests/test_architecture.py's
``DEFERRED``). A new agent is a ``package.module:attr``, a
``path/file.py:attr`` or an entry point of the ``pbench.scaffolds`` group; it never
sees a reference solution (declaring ``uses_reference_solution`` is refused).
``external/`` holds the agents outside pbench's process, ``cmd:COMMAND`` and
``http:URL``; ``langgraph_graph`` drives a compiled LangGraph graph named as ``module:attr`` (or a factory
building one from the session's LangChain tools) (docs/external-agents.md). ``defaults`` names the default agent
without loading one. Each name loads on first use (``proactive_bench/exports.py``).
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "adversarial": ("ADVERSARY_MODES", "WORK_DIMENSIONS", "stuffed_call", "stuffing_words", "workspace_texts", "written_paths"),
        "catalog": (
            "AGENT_KINDS",
            "ORACLES",
            "AgentLoader",
            "acts_only_through_tools",
            "agent_and_model",
            "agent_loader",
            "load_agent",
            "load_scaffold",
            "split_agent_model",
            "starts_process",
            "unknown_agent",
        ),
        "defaults": ("DEFAULT_AGENT", "EXTERNAL_KINDS", "is_external", "starts_process"),
        "langchain_tools": ("as_langchain_tools",),
        "person": ("PERSON_AGENT", "PersonAgent"),
        "protocol": (
            "AgentTurn",
            "Scaffold",
            "ScaffoldFactory",
            "ScaffoldLoadError",
            "ScaffoldOptions",
            "SessionContext",
            "call_end_episode",
            "call_end_session",
            "call_respond",
            "call_start_session",
        ),
        "recorded": ("RecordedAgent", "RecordedCall", "RecordedTurn", "ReplayMismatchError"),
        "scripted": ("reference_problem",),
    },
    # through the catalog, which registers the built-in agents and grants the scripted ones the reference solution
    renamed={
        "SCAFFOLDS": "catalog:SCAFFOLDS",
        "grant_reference": "catalog:grant_reference",
        "grants_reference": "catalog:grants_reference",
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.scaffolds.adversarial import (
        ADVERSARY_MODES,
        WORK_DIMENSIONS,
        stuffed_call,
        stuffing_words,
        workspace_texts,
        written_paths,
    )
    from proactive_bench.scaffolds.catalog import (
        AGENT_KINDS,
        ORACLES,
        SCAFFOLDS,
        AgentLoader,
        acts_only_through_tools,
        agent_and_model,
        agent_loader,
        grant_reference,
        grants_reference,
        load_agent,
        load_scaffold,
        split_agent_model,
        unknown_agent,
    )
    from proactive_bench.scaffolds.defaults import DEFAULT_AGENT, EXTERNAL_KINDS, is_external, starts_process
    from proactive_bench.scaffolds.langchain_tools import as_langchain_tools
    from proactive_bench.scaffolds.person import PERSON_AGENT, PersonAgent
    from proactive_bench.scaffolds.protocol import (
        AgentTurn,
        Scaffold,
        ScaffoldFactory,
        ScaffoldLoadError,
        ScaffoldOptions,
        SessionContext,
        call_end_episode,
        call_end_session,
        call_respond,
        call_start_session,
    )
    from proactive_bench.scaffolds.recorded import RecordedAgent, RecordedCall, RecordedTurn, ReplayMismatchError
    from proactive_bench.scaffolds.scripted import reference_problem

__all__ = [
    "ADVERSARY_MODES",
    "AGENT_KINDS",
    "DEFAULT_AGENT",
    "EXTERNAL_KINDS",
    "ORACLES",
    "PERSON_AGENT",
    "SCAFFOLDS",
    "WORK_DIMENSIONS",
    "AgentLoader",
    "AgentTurn",
    "PersonAgent",
    "RecordedAgent",
    "RecordedCall",
    "RecordedTurn",
    "ReplayMismatchError",
    "Scaffold",
    "ScaffoldFactory",
    "ScaffoldLoadError",
    "ScaffoldOptions",
    "SessionContext",
    "acts_only_through_tools",
    "agent_and_model",
    "agent_loader",
    "as_langchain_tools",
    "call_end_episode",
    "call_end_session",
    "call_respond",
    "call_start_session",
    "grant_reference",
    "grants_reference",
    "is_external",
    "load_agent",
    "load_scaffold",
    "reference_problem",
    "split_agent_model",
    "starts_process",
    "stuffing_words",
    "unknown_agent",
    "workspace_texts",
    "written_paths",
    "stuffed_call",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
