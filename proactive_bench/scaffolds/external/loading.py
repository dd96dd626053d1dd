"""From an agent name to an external agent: ``cmd:COMMAND``, ``http:URL`` and ``a2a:URL`` (:data:`TRANSPORTS`)."""

from __future__ import annotations

import importlib

from proactive_bench.scaffolds.external.session import ExternalAgent, ExternalSettings
from proactive_bench.scaffolds.external.tool_server import ToolServer, mcp_tool_server
from proactive_bench.scaffolds.protocol import ScaffoldOptions

TRANSPORTS: dict[str, str] = {"cmd": "command_agent:CommandAgent", "http": "http_agent:HttpAgent", "a2a": "a2a_agent:A2aAgent"}
"""The agent-name prefixes of external agents and the class that carries each (``module:class`` of this package, imported
when an agent of that prefix is built: the A2A SDK loads for an ``a2a:`` agent only; tests/test_architecture.py ``DEFERRED``)."""


def transport(prefix: str) -> type[ExternalAgent]:
    """The class that carries the agents named ``PREFIX:...`` (a prefix of :data:`TRANSPORTS`), its module imported now."""
    module, _, name = TRANSPORTS[prefix].partition(":")
    found: type[ExternalAgent] = getattr(importlib.import_module(f"{__package__}.{module}"), name)
    return found


def external_agent(spec: str, options: ScaffoldOptions, serve_tools: ToolServer = mcp_tool_server) -> ExternalAgent:
    """The agent named ``PREFIX:TARGET`` (a prefix of :data:`TRANSPORTS`), with ``--agent-option`` settings
    (``turn_timeout``, ``env``, ``exit_grace``); a bad name or option is a ``ScaffoldLoadError``. Nothing starts yet:
    the process or client opens with each session."""
    prefix, _, target = spec.partition(":")
    return transport(prefix)(target.strip(), ExternalSettings.from_options(options.extra), serve_tools)
