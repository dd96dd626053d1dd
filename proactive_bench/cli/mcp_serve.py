"""``pbench mcp``: one session's world served over MCP on its own, for a person exploring it from any MCP client."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from proactive_bench.cli.common import DataOpt
from proactive_bench.dataset import DEFAULT_DATA_ROOT


def mcp(
    persona: Annotated[str, typer.Option(help="The persona whose episode holds the session.")],
    session: Annotated[str, typer.Option(help="The session id: its tools, and its workspace and apps as a run would start it.")],
    transport: Annotated[
        Literal["http", "stdio"],
        typer.Option(help="http: streamable HTTP on 127.0.0.1 with a bearer token; stdio: the MCP client started this command."),
    ] = "http",
    port: Annotated[int, typer.Option(min=0, max=65535, help="With http: the port on 127.0.0.1 (0: a free one).")] = 0,
    workspace: Annotated[
        Path | None, typer.Option(help="A new or empty folder for the session's workspace (default: a new temporary folder, kept).")
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option(help="On exit, write the recorded tool calls here as JSON (the shape the graders read, with turn and seq)."),
    ] = None,
    data: DataOpt = DEFAULT_DATA_ROOT,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log each tool call to stderr.")] = False,
) -> None:
    """Serve one session's tools over MCP, in a workspace prepared as a run prepares it; Ctrl-C stops it.

    The tools, their schemas, the jail and the limits are those an agent has in the session, and every call is recorded
    as in a run. With http, the URL and the bearer token are printed; send the token as Authorization: Bearer TOKEN.
    """
    from proactive_bench.cli.mcp_exec import serve_session  # the world and the MCP SDK load when the command runs, not for its --help

    serve_session(persona, session, transport, port, workspace, record, data, verbose)
