"""``a2a:URL``: an agent that speaks the Agent2Agent protocol, through the official ``a2a-sdk`` client.

The run's first session reads the agent card at ``URL/.well-known/agent-card.json`` (``URL`` may also be the card's
own address, ending in ``.json``) and opens a client on the interface it names; that client (its event loop, its
thread, its kept-alive connections) serves the run's sessions and closes at the run's end (:meth:`end_episode`), or
at once after a fault (the next session reads the card again). The session is one A2A context (its
id is the session's ``conversation``); each user turn is one message, answered by a message or by a task. A
task the agent leaves ``input-required`` goes on with the next turn's message, so a session is one task when
the agent keeps it open. Every message carries the session's ``session_start`` fields in its metadata under
``pbench`` (``mcp``: the tool server's ``url`` and ``token``; ``history`` only on the first message).
``session_end`` is one more message in the context (on the open task, if any) whose metadata ``pbench`` is
``{"type": "session_end", "conversation": ...}`` and whose one part is the data ``{"type": "session_end"}``; its
answer is not read, and a task it leaves open is canceled (``tasks/cancel``), so no task outlives its session.

The reply is the text parts of the answer: a message's, or a task's artifacts added since the previous turn, or
else its status message (an ``input-required`` task's question). A task still ``submitted`` or ``working`` is polled until the turn's deadline. Faults, each a one-line
:class:`ExternalAgentError`: the card unreachable or invalid, an error answer, a task ending ``failed``,
``rejected``, ``canceled`` or ``auth-required``, an answer with no text or over ``MAX_ANSWER_BYTES`` (once decoded:
pbench asks for no compression), no answer by the deadline.
pbench sends no credentials and reads none from its environment (``trust_env`` off).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Coroutine
from typing import Any
from uuid import uuid4

import httpx
from a2a.client import (
    A2ACardResolver,
    A2AClientError,
    A2AClientTimeoutError,
    Client,
    ClientConfig,
    ClientFactory,
)
from a2a.helpers import get_artifact_text, get_message_text, new_data_part
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    Task,
    TaskState,
)

from proactive_bench.json_text import TOO_DEEP
from proactive_bench.logs import get_logger
from proactive_bench.scaffolds.external.capped_http import capped_client
from proactive_bench.scaffolds.external.messages import ExternalAgentError, shown
from proactive_bench.scaffolds.external.session import ExternalAgent, ExternalSettings, tls_context
from proactive_bench.scaffolds.external.tool_server import (
    McpEndpoint,
    ToolServer,
    mcp_tool_server,
)
from proactive_bench.scaffolds.protocol import ScaffoldLoadError, SessionContext

log = get_logger(__name__)

MAX_ANSWER_BYTES = 8 << 20
"""The most an A2A answer (the card, a message, a task with its artifacts and history) may hold once decoded: 8 MiB.
A longer one, or one that does not end, is cut there and fails the turn, never read until its deadline."""
POLL_S = 0.2
"""How often, at most, a task still ``submitted`` or ``working`` is asked for again."""
FIRST_POLL_S = 0.01
"""The first wait before asking again, doubled after each ask up to ``POLL_S``: a short task is seen done within
milliseconds, not at the next 0.2 s."""
RUNNING = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)
ANSWERED = (TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_INPUT_REQUIRED)
CLOSED = (TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED)


class A2aAgent(ExternalAgent):
    """``a2a:URL``: see the module's docstring."""

    def __init__(self, target: str, settings: ExternalSettings | None = None, serve_tools: ToolServer = mcp_tool_server) -> None:
        super().__init__(target, settings, serve_tools)
        if not target.startswith(("http://", "https://")) or len(target.split("://", 1)[1]) == 0:
            raise ScaffoldLoadError(f"a2a:{target}: expected a2a:URL with an http:// or https:// URL, e.g. a2a:http://127.0.0.1:9999")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._http: httpx.AsyncClient | None = None
        self._client: Client | None = None
        self._metadata: dict[str, Any] = {}
        self._task_id = ""
        self._seen_artifacts: set[str] = set()

    def _open(self, ctx: SessionContext, endpoint: McpEndpoint | None) -> None:
        self._task_id, self._seen_artifacts = "", set()
        if self._client is not None:  # kept from the run's previous session: its loop, connections and card
            return
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="a2a-client", daemon=True)
        self._thread.start()
        self._call(self._connect(), time.monotonic() + self.settings.turn_timeout)

    def _deliver(self, event: dict[str, Any], deadline: float) -> None:
        if event["type"] == "session_start":  # travels in the first message's metadata
            self._metadata = {key: value for key, value in event.items() if key != "type"}
        elif event["type"] == "session_end":
            self._call(self._end(event), deadline)

    def _ask(self, event: dict[str, Any], deadline: float) -> str:
        metadata, self._metadata = self._metadata, {k: v for k, v in self._metadata.items() if k != "history"}
        message = Message(role=Role.ROLE_USER, parts=[Part(text=event["text"])], message_id=uuid4().hex, context_id=event["conversation"])
        if self._task_id:
            message.task_id = self._task_id
        message.metadata.update({"pbench": metadata})
        return self._call(self._send(message, deadline), deadline)

    def _close(self) -> None:
        if self._broken or self._client is None:  # a fault, or no card read: the next session starts afresh
            self._end_episode()

    def _end_episode(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None:
            return
        http, self._client, self._http = self._http, None, None
        if http is not None:  # the client's transport shares it
            try:
                asyncio.run_coroutine_threadsafe(http.aclose(), loop).result(timeout=5)
            except (TimeoutError, httpx.HTTPError) as exc:  # a misbehaving agent's connection: nothing left to save
                log.warning("a2a_agent_close_failed", session=self.session_id, agent=self.target, error=one_line(exc))
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)
        if not loop.is_running():
            loop.close()

    async def _connect(self) -> None:
        self._http = capped_client(MAX_ANSWER_BYTES, tls_context())
        card_path = None
        base = self.target
        if base.endswith(".json"):
            base, _, card_path = base.rpartition("/")
        try:
            card = await A2ACardResolver(self._http, base).get_agent_card(relative_card_path=card_path)
            self._client = ClientFactory(ClientConfig(streaming=False, httpx_client=self._http)).create(card)
        except (A2AClientError, ValueError) as exc:
            raise ExternalAgentError(f"cannot use the agent card of {self.target}: {one_line(exc)}") from None
        except RecursionError:  # the SDK's JSON parser on a card nested too deep
            raise ExternalAgentError(f"cannot use the agent card of {self.target}: {TOO_DEEP}") from None

    async def _end(self, event: dict[str, Any]) -> None:
        """The session's last message (see the module's docstring); a task still open after it is canceled."""
        if self._client is None:
            raise ExternalAgentError("no session started")
        message = Message(
            role=Role.ROLE_USER, parts=[new_data_part({"type": "session_end"})], message_id=uuid4().hex, context_id=event["conversation"]
        )
        if self._task_id:
            message.task_id = self._task_id
        message.metadata.update({"pbench": dict(event)})
        open_task = ""
        async for response in self._client.send_message(SendMessageRequest(message=message)):
            if response.HasField("task"):
                open_task = "" if response.task.status.state in CLOSED else response.task.id
            elif response.HasField("message"):
                open_task = ""
        if open_task:
            await self._client.cancel_task(CancelTaskRequest(id=open_task))

    async def _send(self, message: Message, deadline: float) -> str:
        if self._client is None:
            raise ExternalAgentError("no session started")
        answer: Message | Task | None = None
        async for response in self._client.send_message(SendMessageRequest(message=message)):
            answer = response.message if response.HasField("message") else response.task if response.HasField("task") else answer
        if isinstance(answer, Message):
            self._task_id = ""
            return _text(get_message_text(answer), "message")
        if answer is None:
            raise ExternalAgentError("the agent answered the message with neither a message nor a task")
        wait = FIRST_POLL_S
        while answer.status.state in RUNNING:
            if time.monotonic() + wait > deadline:
                raise ExternalAgentError(self.timed_out())
            await asyncio.sleep(wait)
            wait = min(2 * wait, POLL_S)
            answer = await self._client.get_task(GetTaskRequest(id=answer.id))
        return self._task_reply(answer)

    def _task_reply(self, task: Task) -> str:
        state = task.status.state
        said = get_message_text(task.status.message) if task.status.HasField("message") else ""
        if state not in ANSWERED:
            raise ExternalAgentError(f"the agent's task ended {TaskState.Name(state).removeprefix('TASK_STATE_').lower()}: {shown(said)}")
        self._task_id = task.id if state == TaskState.TASK_STATE_INPUT_REQUIRED else ""
        new = [a for a in task.artifacts if a.artifact_id not in self._seen_artifacts]
        self._seen_artifacts |= {a.artifact_id for a in new}
        return _text("\n".join(filter(None, map(get_artifact_text, new))) or said, "task")

    def _call(self, coroutine: Coroutine[Any, Any, str | None], deadline: float) -> Any:
        """Run ``coroutine`` on the session's loop by ``deadline``; the SDK's and HTTP faults as one line."""
        if self._loop is None:
            coroutine.close()
            raise ExternalAgentError("no session started")
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(timeout=max(deadline - time.monotonic(), 0))
        except TimeoutError:
            future.cancel()
            raise ExternalAgentError(self.timed_out()) from None
        except ExternalAgentError:
            raise
        except (A2AClientTimeoutError, httpx.TimeoutException):
            raise ExternalAgentError(self.timed_out()) from None
        except httpx.HTTPError as exc:
            raise ExternalAgentError(f"cannot reach the agent at {self.target}: {type(exc).__name__}: {one_line(exc)}") from None
        except (A2AClientError, ValueError) as exc:  # the SDK's errors for a bad answer
            raise ExternalAgentError(f"the agent's A2A answer failed: {type(exc).__name__}: {one_line(exc)}") from None
        except RecursionError:  # the SDK's JSON parser on an answer nested too deep
            raise ExternalAgentError(f"the agent's A2A answer failed: {TOO_DEEP}") from None


def _text(text: str, what: str) -> str:
    if not text:
        raise ExternalAgentError(f"the agent's {what} has no text part")
    return text


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]
