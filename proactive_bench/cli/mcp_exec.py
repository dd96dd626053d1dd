"""``pbench mcp``'s work: the session's world prepared as a run prepares it, served over MCP until stopped."""

from __future__ import annotations

import asyncio
import json
import signal
import tempfile
import threading
from pathlib import Path
from typing import Literal

import typer

from proactive_bench.cli.common import err_console, fail
from proactive_bench.cli.episodes import load_or_exit
from proactive_bench.env import SeedError, ToolBox, WorkspaceSeedError
from proactive_bench.episode import session_toolbox
from proactive_bench.logs import configure_logging
from proactive_bench.mcp_world import McpWorld, WorldStartError, serve_stdio


def serve_session(
    persona: str,
    session: str,
    transport: Literal["http", "stdio"],
    port: int,
    workspace: Path | None,
    record: Path | None,
    data: Path,
    verbose: bool,
) -> None:
    """Serve ``persona``'s session ``session`` (the ``pbench mcp`` command's options) until the client or Ctrl-C stops it."""
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
