"""An A2A agent built with the official ``a2a-sdk``, served on a loopback port in a thread: for the ``a2a:`` tests.

``serve(executor)`` yields the agent's base URL; its card (at ``/.well-known/agent-card.json``) names one JSON-RPC
interface at that URL. The executor is any ``a2a.server.agent_execution.AgentExecutor``.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import uvicorn
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette


def agent_card(url: str, name: str = "pbench test agent") -> AgentCard:
    """A minimal card: one JSON-RPC interface at ``url``, text in and out, no streaming."""
    return AgentCard(
        name=name,
        description="an agent for pbench's a2a: tests",
        version="1.0",
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="assist", name="assist", description="answers a user", tags=["test"])],
    )


def a2a_app(executor: AgentExecutor, url: str) -> Starlette:
    """The agent's card and its JSON-RPC endpoint at ``/``."""
    card = agent_card(url)
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
    return Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")])


@contextmanager
def loopback(build: Callable[[str], Starlette]) -> Iterator[str]:
    """Serve ``build(url)`` on a free 127.0.0.1 port in a thread; yields the URL, ``http://127.0.0.1:PORT`` (the app
    is built once the URL is known: an agent card names its own URL)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as the example does: else 40 ms a request (delayed ACK)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = uvicorn.Server(uvicorn.Config(build(url), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        threading.Event().wait(0.02)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def serve(executor: AgentExecutor) -> Iterator[str]:
    """The executor as an A2A agent on a loopback port; its base URL."""
    with loopback(build=lambda url: a2a_app(executor, url)) as url:
        yield url
