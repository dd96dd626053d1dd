"""External agents: agents that run outside pbench's process, reached over a transport (``cmd:``, ``http:``, ``a2a:``).

Every transport carries the same messages (``messages``) through the same session lifecycle (``session``:
tools served per session, ``session_start``, one reply per ``user`` message, ``session_end``, the turn timeout);
``command_agent`` (a process per session, or per run: ``lifetime``), ``http_agent`` and ``a2a_agent`` (the
Agent2Agent protocol) carry them, each blocking step in a thread of its own so the runner's event loop stays
free; ``environment`` is what a process may see of pbench's environment; ``tool_server`` is the narrow interface
to the per-session MCP server; ``loading`` builds an agent from its name. The agent's failures are one-line :class:`ExternalAgentError`\\ s, which end its session as ``error``.
Each name loads on first use (``proactive_bench/exports.py``): building a ``cmd:`` agent loads no A2A SDK.
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "a2a_agent": ("A2aAgent",),
        "command_agent": ("CommandAgent",),
        "environment": ("KEPT", "SESSION_VARIABLES", "AgentEnvError", "agent_environment"),
        "http_agent": ("HttpAgent",),
        "loading": ("TRANSPORTS", "external_agent"),
        "messages": ("MAX_LINE_BYTES", "MAX_UNREAD_BYTES", "ExternalAgentError", "parse_reply"),
        "session": ("ExternalAgent", "ExternalSettings"),
        "tool_server": ("McpEndpoint", "ToolServer", "mcp_tool_server"),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use: the A2A SDK with an a2a: agent only)
    from proactive_bench.scaffolds.external.a2a_agent import A2aAgent
    from proactive_bench.scaffolds.external.command_agent import CommandAgent
    from proactive_bench.scaffolds.external.environment import (
        KEPT,
        SESSION_VARIABLES,
        AgentEnvError,
        agent_environment,
    )
    from proactive_bench.scaffolds.external.http_agent import HttpAgent
    from proactive_bench.scaffolds.external.loading import TRANSPORTS, external_agent
    from proactive_bench.scaffolds.external.messages import (
        MAX_LINE_BYTES,
        MAX_UNREAD_BYTES,
        ExternalAgentError,
        parse_reply,
    )
    from proactive_bench.scaffolds.external.session import ExternalAgent, ExternalSettings
    from proactive_bench.scaffolds.external.tool_server import (
        McpEndpoint,
        ToolServer,
        mcp_tool_server,
    )

__all__ = [
    "KEPT",
    "MAX_LINE_BYTES",
    "MAX_UNREAD_BYTES",
    "SESSION_VARIABLES",
    "TRANSPORTS",
    "A2aAgent",
    "AgentEnvError",
    "CommandAgent",
    "ExternalAgent",
    "ExternalAgentError",
    "ExternalSettings",
    "HttpAgent",
    "McpEndpoint",
    "ToolServer",
    "agent_environment",
    "external_agent",
    "mcp_tool_server",
    "parse_reply",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
