"""The agent of a run that names only a chat model, the kinds of agent outside pbench's process and the agents'
shared defaults, in a module that loads no agent (stored run settings read it)."""

from __future__ import annotations

DEFAULT_AGENT = "react"
"""The agent of a run that names only a chat model (``--model openai:gpt-4o``)."""
DEFAULT_MAX_TOOL_CALLS = 500
"""The tool calls one agent turn may make unless ``--agent-option max_tool_calls`` says otherwise (react, external agents; LangGraph graph agents always)."""
EXTERNAL_KINDS = ("cmd", "http", "a2a")
"""The ``--agent`` prefixes of agents outside pbench's process (``scaffolds/external``'s ``TRANSPORTS``)."""


def is_external(agent: str) -> bool:
    """Whether ``agent`` names an agent outside pbench's process (``cmd:...``, ``http:...``, ``a2a:...``)."""
    prefix, sep, _ = agent.partition(":")
    return bool(sep) and prefix in EXTERNAL_KINDS


def starts_process(agent: str) -> bool:
    """Whether pbench starts ``agent``'s process (``cmd:...``), which so has an environment to pass variables into."""
    return agent.partition(":")[0] == "cmd" and is_external(agent)
