"""``http:URL``: an agent that is a web service; each event is one JSON POST to URL.

The body of the answer to a ``user`` POST is the reply object; answers to ``session_start`` and ``session_end``
need only a 2xx status (their bodies are ignored). Each POST must be answered by the turn's deadline. One HTTP
client serves the run's sessions (its connections kept alive between them) and closes at the run's end
(:meth:`end_episode`), or at once after a fault. pbench
sends no credentials and reads none from its environment or ``.netrc`` (``trust_env`` off). Faults, each a
one-line :class:`ExternalAgentError`: the service unreachable, a status other than 2xx (with the start of its
body), a body that is not a reply or over ``MAX_LINE_BYTES`` (once decoded: pbench asks for no compression, and decodes
gzip or deflate within the cap if a service compresses anyway; any other encoding is a fault), no answer by the deadline.
"""

from __future__ import annotations

import time
import zlib
from typing import Any

import httpx2

from proactive_bench.content_encoding import CappedDecoder, UnknownEncodingError
from proactive_bench.scaffolds.external.messages import (
    MAX_LINE_BYTES,
    ExternalAgentError,
    parse_reply,
    shown,
)
from proactive_bench.scaffolds.external.session import ExternalAgent, ExternalSettings, tls_context
from proactive_bench.scaffolds.external.tool_server import (
    McpEndpoint,
    ToolServer,
    mcp_tool_server,
)
from proactive_bench.scaffolds.protocol import ScaffoldLoadError, SessionContext


class HttpAgent(ExternalAgent):
    """``http:URL``: see the module's docstring."""

    def __init__(self, target: str, settings: ExternalSettings | None = None, serve_tools: ToolServer = mcp_tool_server) -> None:
        super().__init__(target, settings, serve_tools)
        if not target.startswith(("http://", "https://")) or len(target.split("://", 1)[1]) == 0:
            raise ScaffoldLoadError(
                f"http:{target}: expected http:URL with an http:// or https:// URL, e.g. http:http://127.0.0.1:8000/agent"
            )
        self._client: httpx2.Client | None = None

    def _open(self, ctx: SessionContext, endpoint: McpEndpoint | None) -> None:
        if self._client is None:  # else kept from the run's previous session, with its open connections
            self._client = httpx2.Client(trust_env=False, follow_redirects=False, verify=tls_context())

    def _deliver(self, event: dict[str, Any], deadline: float) -> None:
        self._post(event, deadline)

    def _ask(self, event: dict[str, Any], deadline: float) -> str:
        return parse_reply(self._post(event, deadline), "response body")

    def _close(self) -> None:
        if self._broken:  # the agent misbehaved: its connections are dropped, the next session opens new ones
            self._end_episode()

    def _end_episode(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()

    def _post(self, event: dict[str, Any], deadline: float) -> bytes:
        """POST one event; the response body (at most ``MAX_LINE_BYTES``) of a 2xx answer."""
        if self._client is None:
            raise ExternalAgentError("no session started")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ExternalAgentError(self.timed_out())
        body = b""
        try:
            with self._client.stream("POST", self.target, json=event, timeout=remaining, headers=IDENTITY) as response:
                decoder = _decoder(response, event["type"])
                for chunk in response.iter_raw():  # as sent: a compressed body is decoded here, within the cap
                    body += _decoded(decoder, chunk, event["type"])
                    if decoder.over:
                        raise ExternalAgentError(f"the agent's response to {event['type']} is over {MAX_LINE_BYTES} bytes: {shown(body)}")
                    if time.monotonic() > deadline:
                        raise ExternalAgentError(self.timed_out())
                status = response.status_code
        except httpx2.TimeoutException:
            raise ExternalAgentError(self.timed_out()) from None
        except httpx2.HTTPError as exc:
            raise ExternalAgentError(
                f"cannot reach the agent at {self.target}: {type(exc).__name__}: {' '.join(str(exc).split())}"
            ) from None
        if not 200 <= status < 300:
            raise ExternalAgentError(f"the agent answered {event['type']} with HTTP {status}: {shown(body)}")
        return body


IDENTITY = {"Accept-Encoding": "identity"}
"""pbench asks an agent's service not to compress its answers (one that does anyway is decoded within the cap)."""


def _decoder(response: httpx2.Response, event_type: str) -> CappedDecoder:
    """The decoder of ``response``'s content encoding, capped at ``MAX_LINE_BYTES``; another encoding is a fault."""
    try:
        return CappedDecoder(response.headers.get("Content-Encoding", ""), MAX_LINE_BYTES)
    except UnknownEncodingError as exc:
        raise ExternalAgentError(
            f"the agent's response to {event_type} is in content encoding {str(exc)!r}, which pbench does not decode"
        ) from None


def _decoded(decoder: CappedDecoder, chunk: bytes, event_type: str) -> bytes:
    """``chunk``'s decoded bytes; a body that does not decode is a fault."""
    try:
        return decoder.feed(chunk)
    except zlib.error as exc:
        raise ExternalAgentError(f"the agent's response to {event_type} is a {decoder.encoding} body that does not decode: {exc}") from None
