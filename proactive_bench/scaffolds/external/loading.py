"""From an agent name to an external agent: ``cmd:COMMAND``, ``http:URL`` and ``a2a:URL`` (:data:`TRANSPORTS`)."""

from __future__ import annotations

from proactive_bench.scaffolds.external.a2a_agent import A2aAgent
from proactive_bench.scaffolds.external.command_agent import CommandAgent
from proactive_bench.scaffolds.external.http_agent import HttpAgent
from proactive_bench.scaffolds.external.session import ExternalAgent, ExternalSettings
from proactive_bench.scaffolds.external.tool_server import ToolServer, mcp_tool_server
from proactive_bench.scaffolds.protocol import ScaffoldOptions

TRANSPORTS: dict[str, type[ExternalAgent]] = {"cmd": CommandAgent, "http": HttpAgent, "a2a": A2aAgent}
"""The agent-name prefixes of external agents and the class that carries each."""


def external_agent(spec: str, options: ScaffoldOptions, serve_tools: ToolServer = mcp_tool_server) -> ExternalAgent:
    """The agent named ``PREFIX:TARGET`` (a prefix of :data:`TRANSPORTS`), with ``--agent-option`` settings
    (``turn_timeout``, ``env``, ``exit_grace``); a bad name or option is a ``ScaffoldLoadError``. Nothing starts yet:
    the process or client opens with each session."""
    prefix, _, target = spec.partition(":")
    return TRANSPORTS[prefix](target.strip(), ExternalSettings.from_options(options.extra), serve_tools)
