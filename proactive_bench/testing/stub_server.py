"""A scriptable OpenAI-compatible chat server on 127.0.0.1, for tests and benchmarks.

It speaks real HTTP so that the real ``langchain-openai`` client is exercised.
A *responder* function maps each chat request body to a reply: a completion dict
(see :func:`text_reply` and :func:`tool_call_reply`), an ``(http_status,
body)`` pair to simulate faults, a :class:`RawReply` (any body, headers, or
a body cut short), :data:`DROP` (the connection is closed unanswered) or
:data:`ENDLESS` (a body streaming without end).
:mod:`proactive_bench.testing.stub_zoo` builds responders that imitate real servers' quirks.
An *embedder* function answers ``/v1/embeddings`` the same way (:func:`hashed_embeddings`
gives bag-of-words vectors, so that similar texts get similar vectors).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from proactive_bench.campaign import loop_factory


@dataclass(frozen=True)
class RawReply:
    """A reply sent as given: for bodies that are not JSON, and for extra headers such as ``Retry-After``."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    cut_at: int | None = None
    """Announce the whole body's length, send only this many bytes, then close the connection."""


class Dropped:
    """The connection is closed without an answer."""


DROP = Dropped()


class Endless:
    """A 200 whose JSON body starts and never ends (chunked, written until the client goes away)."""


ENDLESS = Endless()
Reply = dict[str, Any] | tuple[int, dict[str, Any]] | RawReply | Dropped | Endless
Responder = Callable[[dict[str, Any]], Reply]


def text_reply(content: str, model: str = "stub") -> dict[str, Any]:
    """A chat completion whose message is plain text."""
    return _completion({"role": "assistant", "content": content}, "stop", model)


def tool_call_reply(calls: list[tuple[str, dict[str, Any]]], model: str = "stub", content: str = "") -> dict[str, Any]:
    """A chat completion that calls tools: ``[(name, arguments), ...]``."""
    tool_calls = [
        {
            "id": f"call_{uuid.uuid4().hex[:12]}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        for name, arguments in calls
    ]
    return _completion({"role": "assistant", "content": content, "tool_calls": tool_calls}, "tool_calls", model)


def error_reply(status: int, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"error": {"message": message, "type": "stub_error", "code": status}}


def structured_reply(body: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` in whatever shape the request asked for: JSON text, or a call of its forced tool."""
    if requested_format(body) == "tools":
        return tool_call_reply([(body["tools"][0]["function"]["name"], payload)])
    return text_reply(json.dumps(payload))


def prompt_text(body: dict[str, Any]) -> str:
    """All message texts of a request, joined, so responders can tell requests apart."""
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        parts.extend([content] if isinstance(content, str) else [c.get("text", "") for c in content or [] if isinstance(c, dict)])
    return "\n".join(parts)


def prompt_section(prompt: str, title: str) -> str:
    """The body of a ``## title`` section of a prompt (up to the next ``## `` heading), or ""."""
    match = re.search(rf"## {re.escape(title)}\n(.*?)(?=\n## |\Z)", prompt, re.DOTALL)
    return match.group(1) if match else ""


def open_requirement_ids(prompt: str) -> list[str]:
    """The intent ids a judging-stage prompt of the simulated user lists under "Open requirements"."""
    return re.findall(r"^- ([\w.-]+): ", prompt_section(prompt, "Open requirements"), re.MULTILINE)


def silent_user_judgment(
    body: dict[str, Any], answer: Callable[[dict[str, Any], dict[str, Any]], Reply] = structured_reply
) -> Reply | None:
    """For a judging-stage request of the simulated user (pbench's or the π-Bench release's, whose prompts share these
    phrases and the "Open requirements" section): nothing completed, nothing targeted (so every intent ends up
    volunteered), shaped by ``answer``. None for any other request."""
    prompt = prompt_text(body)
    ids = open_requirement_ids(prompt)
    if "already satisfied" in prompt:
        return answer(body, {"findings": [{"intent_id": i, "completed": False, "evidence": ""} for i in ids]})
    if "asks a question that targets" in prompt:
        return answer(body, {"findings": [{"intent_id": i, "targeted": False, "question": ""} for i in ids], "relevance_order": ids})
    return None


def unremarkable_exchange(body: dict[str, Any]) -> Reply:
    """The benchmarks' workload: an agent that answers "Done.", a simulated user who notices nothing done and asks for the rest."""
    judged = silent_user_judgment(body)
    if judged is not None:
        return judged
    return text_reply("Please also take care of that." if "role-playing the user" in prompt_text(body) else "Done.")


def _completion(message: dict[str, Any], finish: str, model: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def embedding_reply(vectors: list[list[float]], model: str = "stub-embed") -> dict[str, Any]:
    """An ``/embeddings`` answer with one vector per input, in order."""
    data = [{"object": "embedding", "index": n, "embedding": vector} for n, vector in enumerate(vectors)]
    return {"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": 3, "total_tokens": 3}}


EMBEDDING_DIMENSIONS = 64


def hashed_embeddings(body: dict[str, Any]) -> dict[str, Any]:
    """Bag-of-words vectors (each lower-cased word hashed into one of 64 dimensions) for the request's inputs."""
    inputs = body.get("input")
    texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
    vectors = []
    for text in texts:
        vector = [0.0] * EMBEDDING_DIMENSIONS
        for word in re.findall(r"\w+", str(text).lower()):
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % EMBEDDING_DIMENSIONS] += 1.0
        vectors.append(vector)
    return embedding_reply(vectors)


def requested_format(body: dict[str, Any]) -> str:
    """Which structured-output method a request uses: json_schema, json_object, tools or text."""
    fmt = (body.get("response_format") or {}).get("type")
    if fmt:
        return str(fmt)
    return "tools" if body.get("tools") else "text"


@dataclass
class StubServer:
    """Serve ``responder`` on a free loopback port until :meth:`stop`.

    The server is an aiohttp application on its own event loop in a
    background thread: a delayed reply is an ``asyncio.sleep``, so hundreds
    of concurrent requests cost no threads and no lock contention (a thread
    per connection added about 8 ms per call, on average, at 32 concurrent
    episodes). The responder runs on that loop and must not block.
    """

    responder: Responder
    delay: float = 0.0
    jitter: float = 0.0
    """Each reply waits ``delay`` × a uniform factor in [1 − jitter, 1 + jitter], as real servers vary."""
    port: int = 0
    """The port to listen on; 0: any free one."""
    embedder: Responder | None = None
    """The answer to ``POST /v1/embeddings`` (None: 404), e.g. :func:`hashed_embeddings`."""
    models: dict[str, Any] | None = None
    """The answer to ``GET /v1/models`` (None: 404), e.g. ``{"data": [{"id": "m", "max_model_len": 4096}]}``."""
    tokenizer: Responder | None = None
    """The answer to ``POST /tokenize`` at the server's root (None: 404), as llama.cpp or vLLM answer it; these
    requests are kept in :attr:`tokenize_requests`, not :attr:`requests` (they are no model call)."""
    tokenize_requests: list[dict[str, Any]] = field(default_factory=list, init=False, repr=False)
    authorizations: list[str] = field(default_factory=list, init=False, repr=False)
    """The ``Authorization`` header of every request, in order."""
    _received: list[bytes] = field(default_factory=list, init=False, repr=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False, repr=False)
    _thread: threading.Thread | None = field(default=None, init=False, repr=False)
    _port: int | None = field(default=None, init=False, repr=False)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request body received so far, in order.

        Kept as raw bytes and parsed when asked: thousands of parsed prompts
        kept alive made the garbage collector stall replies by up to 0.2 s.
        """
        return [json.loads(raw or b"{}") for raw in self._received]

    @property
    def base_url(self) -> str:
        if self._port is None:
            raise RuntimeError("the stub server is not running: call start() or use it as a context manager")
        return f"http://127.0.0.1:{self._port}/v1"

    def start(self) -> StubServer:
        listening = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(listening,), name="stub-server", daemon=True)
        self._thread.start()
        if not listening.wait(30) or self._port is None:
            raise RuntimeError("the stub server did not start listening on 127.0.0.1")
        return self

    def stop(self) -> None:
        if self._thread is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._thread = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self, listening: threading.Event) -> None:
        """The server thread: listen, report the port, serve until stopped, then cancel replies still waiting."""
        make_loop = loop_factory() or asyncio.new_event_loop
        loop = self._loop = make_loop()
        runner = web.AppRunner(self._app(), access_log=None, handle_signals=False, shutdown_timeout=0.1)
        try:
            loop.run_until_complete(runner.setup())
            loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", self.port, backlog=1024).start())  # a sweep connects all at once
            self._port = int(runner.addresses[0][1])
        finally:
            listening.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 2**20)  # long prompts
        app.router.add_post("/{path:.*}", self._answer)
        app.router.add_get("/{path:.*}", self._listing)
        return app

    async def _listing(self, request: web.Request) -> web.Response:
        if self.models is None or not request.path.rstrip("/").endswith("/models"):
            return web.json_response(error_reply(404, f"no route {request.path}")[1], status=404)
        return web.json_response(self.models)

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        if request.path.rstrip("/").endswith("/tokenize"):
            return self._count(json.loads(raw or b"{}"))
        self._received.append(raw)
        self.authorizations.append(request.headers.get("Authorization", ""))
        body = json.loads(raw or b"{}")
        if self.delay:
            await asyncio.sleep(self.delay * random.uniform(1 - self.jitter, 1 + self.jitter))
        reply = self._route(request.path.rstrip("/"), body)
        if isinstance(reply, Dropped):
            return await _cut_short(request, RawReply(200, b"", cut_at=0))
        if isinstance(reply, Endless):
            return await _stream_forever(request)
        if not isinstance(reply, RawReply):
            status, payload = reply if isinstance(reply, tuple) else (200, reply)
            reply = RawReply(status, json.dumps(payload).encode())
        if reply.cut_at is not None:
            return await _cut_short(request, reply)
        return web.Response(status=reply.status, body=reply.body, headers={"Content-Type": "application/json", **reply.headers})

    def _count(self, body: dict[str, Any]) -> web.Response:
        self.tokenize_requests.append(body)
        reply = self.tokenizer(body) if self.tokenizer is not None else error_reply(404, "no route /tokenize")
        status, payload = reply if isinstance(reply, tuple) else (200, reply)
        return web.json_response(payload, status=status)

    def _route(self, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/chat/completions"):
            return self.responder(body)
        if path.endswith("/embeddings") and self.embedder is not None:
            return self.embedder(body)
        return error_reply(404, f"no route {path}")


async def _stream_forever(request: web.Request) -> web.StreamResponse:
    """Start a JSON answer and keep writing it until the client closes the connection (or the server stops)."""
    response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
    response.enable_chunked_encoding()
    await response.prepare(request)
    await response.write(b'{"choices": [{"message": {"role": "assistant", "content": "')
    chunk = b"and so on " * 6554  # 64 KiB
    try:
        while True:
            await response.write(chunk)
            await asyncio.sleep(0)
    except (ConnectionError, RuntimeError):  # the client went away (aiohttp raises either)
        return response


async def _cut_short(request: web.Request, reply: RawReply) -> web.StreamResponse:
    """Close the connection after ``reply.cut_at`` bytes of the body (0: before any answer)."""
    transport = request.transport
    if reply.cut_at == 0 or transport is None:
        if transport is not None:
            transport.close()
        raise asyncio.CancelledError  # aiohttp ends the handler without writing
    response = web.StreamResponse(status=reply.status, headers={"Content-Type": "application/json", **reply.headers})
    response.content_length = len(reply.body)
    await response.prepare(request)
    await response.write(reply.body[: reply.cut_at])
    transport.close()
    return response
