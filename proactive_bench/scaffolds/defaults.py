"""The agent of a run that names only a chat model, and the kinds of agent outside pbench's process, in a module
that loads no agent (stored run settings read it)."""

from __future__ import annotations

DEFAULT_AGENT = "react"
"""The agent of a run that names only a chat model (``--model openai:gpt-4o``)."""
EXTERNAL_KINDS = ("cmd", "http", "a2a")
"""The ``--agent`` prefixes of agents outside pbench's process (``scaffolds/external``'s ``TRANSPORTS``)."""


def is_external(agent: str) -> bool:
    """Whether ``agent`` names an agent outside pbench's process (``cmd:...``, ``http:...``, ``a2a:...``)."""
    prefix, sep, _ = agent.partition(":")
    return bool(sep) and prefix in EXTERNAL_KINDS


def starts_process(agent: str) -> bool:
    """Whether pbench starts ``agent``'s process (``cmd:...``), which so has an environment to pass variables into."""
    return agent.partition(":")[0] == "cmd" and is_external(agent)
