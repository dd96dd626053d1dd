"""The environment an agent process starts with: a few harmless variables of pbench's own, the session's, and
only the others the person running pbench names (``--agent-env NAME``, or ``--agent-option env=NAME,...``).

pbench's keys and the user's and judge's endpoints live in its environment; none of them reaches the agent
unless named. Nothing else is inherited: not ``PYTHONPATH``, not proxies, not a provider's key.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

KEPT = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM", "SYSTEMROOT")
"""Variables every agent process inherits from pbench when they are set: where programs are, whose home, which locale."""
SESSION_VARIABLES = ("PBENCH_MCP_URL", "PBENCH_MCP_TOKEN", "PBENCH_WORKSPACE")
"""Set by pbench for each session; a person cannot pass their own."""
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class AgentEnvError(ValueError):
    """A variable named to pass to the agent that cannot be passed; the message says which and why."""


def check_passed(names: Iterable[str], environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The names a person asked to pass, checked: each a variable name, not a session variable, set in pbench's environment."""
    environ = os.environ if environ is None else environ
    checked = []
    for name in names:
        if not _NAME.fullmatch(name):
            raise AgentEnvError(f"--agent-env {name!r}: not an environment variable name")
        if name in SESSION_VARIABLES:
            raise AgentEnvError(f"--agent-env {name}: set by pbench for each session, it cannot be passed")
        if name not in environ:
            raise AgentEnvError(f"--agent-env {name}: not set in pbench's environment, so there is nothing to pass to the agent")
        checked.append(name)
    return tuple(dict.fromkeys(checked))


def agent_environment(
    passed: Iterable[str],
    workspace: Path,
    mcp_url: str | None,
    mcp_token: str | None,
    environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of one session's agent process: :data:`KEPT`, the ``passed`` names, the session's variables
    (the MCP variables only when the session has a server)."""
    environ = os.environ if environ is None else environ
    env = {name: environ[name] for name in (*KEPT, *passed) if name in environ}
    env["PBENCH_WORKSPACE"] = str(workspace)
    if mcp_url is not None and mcp_token is not None:
        env["PBENCH_MCP_URL"], env["PBENCH_MCP_TOKEN"] = mcp_url, mcp_token
    return env
