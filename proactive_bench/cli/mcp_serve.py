"""``pbench mcp``: one session's world served over MCP on its own, for a person exploring it from any MCP client."""

from __future__ import annotations

import asyncio
import json
import signal
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from proactive_bench.cli.common import DataOpt, err_console, fail
from proactive_bench.cli.episodes import load_or_exit
from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.logs import configure_logging

if TYPE_CHECKING:
    from proactive_bench.env import ToolBox


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
    # the session's world and the MCP server load when the command runs, not for its --help
    from proactive_bench.env import SeedError, WorkspaceSeedError
    from proactive_bench.episode import session_toolbox
    from proactive_bench.mcp_world import serve_stdio

    configure_logging(verbose)
    loaded = load_or_exit(data, persona)
    chosen = next((s for s in loaded.sessions if s.id == session), None)
    if chosen is None:
        raise fail(f"--session {session}: not a session of {persona} (its sessions: {', '.join(s.id for s in loaded.sessions)})")
    root = _workspace_folder(workspace, persona)
    try:
        toolbox = session_toolbox(loaded, chosen, root)
    except (SeedError, WorkspaceSeedError) as exc:
        raise fail(f"session {session}: {str(exc).splitlines()[0]}") from None
    about = [
        f"pbench MCP world: {persona} / {session}, {len(toolbox.specs)} tools",
        f"workspace  {root}",
        f"opening    {chosen.trigger.message.strip().splitlines()[0] if chosen.trigger.message.strip() else '(an event)'}",
    ]
    if transport == "stdio":
        err_console.print("\n".join(about), highlight=False, markup=False)
        try:
            asyncio.run(serve_stdio(toolbox))
        except KeyboardInterrupt:  # Ctrl-C in the terminal that started it: stop as when the client closes stdin
            pass
    else:
        _serve_http(toolbox, port, about)
    _report(toolbox, root, record)


def _workspace_folder(given: Path | None, persona: str) -> Path:
    """The workspace's folder: the one given when it is new or empty, else a new temporary one."""
    if given is None:
        return Path(tempfile.mkdtemp(prefix=f"pbench-mcp-{persona}-")) / "workspace"
    if given.exists() and (not given.is_dir() or any(given.iterdir())):
        raise fail(f"--workspace {given}: not a new or empty folder (the session's seed would be copied over what is there)")
    return given


def _serve_http(toolbox: ToolBox, port: int, about: list[str]) -> None:
    """Serve on 127.0.0.1 until SIGINT or SIGTERM; the URL and token on stdout."""
    from proactive_bench.mcp_world import McpWorld, WorldStartError

    try:
        world = McpWorld(toolbox, port=port).start()
    except WorldStartError as exc:
        raise fail(str(exc)) from None
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        typer.echo(
            "\n".join(
                [
                    *about,
                    f"url        {world.url}",
                    f"token      {world.token}",
                    f"header     Authorization: Bearer {world.token}",
                    "Ctrl-C stops it.",
                ]
            )
        )
        while not stop.wait(0.2):
            pass
    finally:
        world.stop()


def _report(toolbox: ToolBox, root: Path, record: Path | None) -> None:
    failed = sum(not r.ok for r in toolbox.records)
    err_console.print(
        f"{len(toolbox.records)} tool calls recorded ({failed} failed); the workspace is kept at {root}", highlight=False, markup=False
    )
    if record is not None:
        rows = [{**r.as_pibench(), "turn": r.turn, "seq": r.seq} for r in toolbox.records]
        record.write_text(json.dumps(rows, indent=2, ensure_ascii=False, default=str))
