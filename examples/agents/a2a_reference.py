"""An ``a2a:`` agent that replays a recorded run through each session's MCP tools: a replay baseline (see replay.py).

    pbench export latest --db ref.db --out reference.jsonl          # a scripted:reference run, as in cmd_reference.py
    python examples/agents/a2a_reference.py reference.jsonl --port 9999 &
    pbench episode --persona pharmacist --agent a2a:http://127.0.0.1:9999

An Agent2Agent service (official ``a2a-sdk``): card at ``/.well-known/agent-card.json``, JSON-RPC at ``/``, its URL
printed once it listens. A message's metadata holds pbench's ``session`` and ``mcp``; a context is a session, with one MCP session
from its first message on.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from pathlib import Path

import uvicorn
from a2a.helpers import new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette

sys.path.insert(0, str(Path(__file__).resolve().parent))  # replay.py, next to this file
from replay import Conversation, Turn, recorded_turns

TURNS: dict[str, list[Turn]] = {}
CONVERSATIONS: dict[str, Conversation] = {}  # context id (one per session): its MCP session and turns to come


class Replay(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        pbench = MessageToDict(context.message.metadata)["pbench"]
        if pbench.get("type") == "session_end":  # the session is over: its MCP client goes, no idle task kept per context
            if conversation := CONVERSATIONS.pop(context.context_id, None):
                await conversation.close()
            return await event_queue.enqueue_event(new_text_message("bye", context_id=context.context_id))
        if context.context_id not in CONVERSATIONS:
            CONVERSATIONS[context.context_id] = Conversation(pbench["mcp"]["url"], pbench["mcp"]["token"], TURNS.get(pbench["session"], []))
        reply = await CONVERSATIONS[context.context_id].next_turn()
        await event_queue.enqueue_event(new_text_message(reply, context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Nothing to stop: a turn runs to its end."""


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("recording")
    parser.add_argument("--port", type=int, default=9999)
    args = parser.parse_args()
    TURNS.update(recorded_turns(args.recording))
    sock = socket.create_server(("127.0.0.1", args.port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # asyncio sets it only on sockets it makes: 40 ms a reply
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    card = AgentCard(
        name="replay",
        description="replays a recorded pbench run",
        version="1.0",
        capabilities=AgentCapabilities(),
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="replay", name="replay", description="replays a recorded run", tags=["baseline"])],
    )
    handler = DefaultRequestHandler(agent_executor=Replay(), task_store=InMemoryTaskStore(), agent_card=card)
    print(url, flush=True)
    app = Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")])
    asyncio.run(uvicorn.Server(uvicorn.Config(app, log_level="warning")).serve(sockets=[sock]))
