"""A scriptable OpenAI-compatible chat server on 127.0.0.1, for tests and benchmarks.

It speaks real HTTP so that the real ``langchain-openai`` client is exercised.
A *responder* function maps each request body to a reply: a completion dict
(see :func:`text_reply` and :func:`tool_call_reply`), an ``(http_status,
body)`` pair to simulate faults, or a :class:`RawReply`.
"""

from __future__ import annotations

import json
import random
import re
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass(frozen=True)
class RawReply:
    """A reply sent as given: for bodies that are not JSON, and for extra headers such as ``Retry-After``."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


Reply = dict[str, Any] | tuple[int, dict[str, Any]] | RawReply
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


def silent_user_judgment(body: dict[str, Any]) -> Reply | None:
    """For a judging-stage request of the simulated user: nothing completed, nothing targeted (so every
    intent ends up volunteered). None for any other request."""
    prompt = prompt_text(body)
    ids = open_requirement_ids(prompt)
    if "already satisfied" in prompt:
        return structured_reply(body, {"findings": [{"intent_id": i, "completed": False, "evidence": ""} for i in ids]})
    if "asks a question that targets" in prompt:
        return structured_reply(body, {"findings": [{"intent_id": i, "targeted": False, "question": ""} for i in ids], "relevance_order": ids})
    return None


def _completion(message: dict[str, Any], finish: str, model: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def requested_format(body: dict[str, Any]) -> str:
    """Which structured-output method a request uses: json_schema, json_object, tools or text."""
    fmt = (body.get("response_format") or {}).get("type")
    if fmt:
        return str(fmt)
    return "tools" if body.get("tools") else "text"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # a sweep opens many connections at once

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the client hung up (after its timeout, for instance)
        super().handle_error(request, client_address)


@dataclass
class StubServer:
    """Serve ``responder`` on a free loopback port until :meth:`stop`."""

    responder: Responder
    delay: float = 0.0
    jitter: float = 0.0
    """Each reply waits ``delay`` × a uniform factor in [1 − jitter, 1 + jitter], as real servers vary."""
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real model servers do
            disable_nagle_algorithm = True  # headers and body go out in separate writes

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(body)
                if server.delay:
                    time.sleep(server.delay * random.uniform(1 - server.jitter, 1 + server.jitter))
                reply = server.responder(body) if self.path.rstrip("/").endswith("/chat/completions") else error_reply(404, f"no route {self.path}")
                if not isinstance(reply, RawReply):
                    status, payload = reply if isinstance(reply, tuple) else (200, reply)
                    reply = RawReply(status, json.dumps(payload).encode())
                self.send_response(reply.status)
                for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            def log_message(self, *args: Any) -> None:
                return

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> StubServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
