"""Agents under test: the scaffold protocol, the built-in scaffolds and loading one from ``--model``.

``protocol`` is the three-method interface every agent implements and the
``SCAFFOLDS`` registry; ``react``, ``scripted`` and ``adversarial`` are the
built-ins, ``person`` the person at the terminal (``pbench play``); ``catalog`` registers them, grants the scripted ones each session's
reference solution (:data:`ORACLES`) and builds the agent of a run
(:func:`load_scaffold`). A new agent is a ``package.module:attr``, a
``path/file.py:attr`` or an entry point of the ``pbench.scaffolds`` group; it never
sees a reference solution (declaring ``uses_reference_solution`` is refused).
``external/`` holds the agents outside pbench's process, ``cmd:COMMAND`` and
``http:URL`` (docs/external-agents.md).
"""

from proactive_bench.scaffolds.adversarial import (
    ADVERSARY_MODES,
    WORK_DIMENSIONS,
    stuffing_words,
    workspace_texts,
    written_paths,
)
from proactive_bench.scaffolds.catalog import ORACLES, load_scaffold
from proactive_bench.scaffolds.langchain_tools import as_langchain_tools
from proactive_bench.scaffolds.person import PERSON_AGENT, PersonAgent
from proactive_bench.scaffolds.protocol import (
    SCAFFOLDS,
    AgentTurn,
    Scaffold,
    ScaffoldFactory,
    ScaffoldLoadError,
    ScaffoldOptions,
    SessionContext,
    call_respond,
    grant_reference,
    grants_reference,
)
from proactive_bench.scaffolds.scripted import reference_problem

__all__ = [
    "ADVERSARY_MODES",
    "ORACLES",
    "PERSON_AGENT",
    "SCAFFOLDS",
    "WORK_DIMENSIONS",
    "AgentTurn",
    "PersonAgent",
    "Scaffold",
    "ScaffoldFactory",
    "ScaffoldLoadError",
    "ScaffoldOptions",
    "SessionContext",
    "as_langchain_tools",
    "call_respond",
    "grant_reference",
    "grants_reference",
    "load_scaffold",
    "reference_problem",
    "stuffing_words",
    "workspace_texts",
    "written_paths",
]
