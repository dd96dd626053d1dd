"""``pbench view``: browse a results database in a local web app, read-only."""

from __future__ import annotations

import ipaddress
import webbrowser
from typing import Annotated

import typer

from proactive_bench.cli.common import DEFAULT_DB, DbOpt, err_console, fail, open_store, warn
from proactive_bench.logs import configure_logging

DEFAULT_PORT = 8765


def view(
    db: DbOpt = DEFAULT_DB,
    host: Annotated[
        str, typer.Option(help="The address to listen on; anything but a loopback address lets other machines read the results.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="The port to listen on (0: any free one).")] = DEFAULT_PORT,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="Open the start page in a web browser.")] = False,
) -> None:
    """Browse runs and sweeps in a local web app: reports, trajectories, two runs side by side, a sweep's live progress (read-only)."""
    from proactive_bench.reporting.view import ViewServer, ViewServerError, view_app  # the web app loads when the command runs

    configure_logging()
    store = open_store(db, read_only=True)
    try:
        server = ViewServer(view_app(store), host, port)
    except ViewServerError as exc:
        raise fail(f"{exc} (pick another with --port)") from None
    if not _loopback(host):
        warn(f"listening on {host}: anyone who can reach this machine can read {store.name}")
    err_console.print(f"pbench view: {server.url} (results {store.name}, read-only; Ctrl-C stops)", highlight=False)
    if open_browser:
        webbrowser.open(server.url)
    server.serve()


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"
