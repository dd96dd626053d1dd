"""HTTP/1.1 POSTs over pooled keep-alive connections: the chat transport's requests, at a third of ``aiohttp``'s CPU.

A model call is one small POST and one JSON answer; ``aiohttp``'s client spends
~120 µs of CPU on it (request and response objects, tracing hooks, cookies, a
task to write the body), this pool ~40 µs: it writes the request head itself and
reads the answer with ``httptools``' parser. Connections to one host are capped
(queued beyond) and reused while the server keeps them alive; ``https`` URLs go
over the default TLS context. Requests through a proxy are not for it: the
transport sends them with ``aiohttp``.

Faults are those ``aiohttp`` raises, for the transport to map as before: a
connection that cannot be made, or that closes before the answer is complete,
is an ``aiohttp.ClientConnectionError`` or ``ClientPayloadError``; the whole
exchange (queueing, connecting, sending, reading) is bounded by ``timeout``
(``TimeoutError``); an answer announced or read beyond ``max_bytes`` is cut
there (:class:`~proactive_bench.llm.faults.MalformedBodyError`, the connection closed).
``aiohttp`` is imported where one of its exceptions is raised: opening a pool loads none of it.
"""

from __future__ import annotations

import asyncio
import ssl
import sys
import zlib
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import urlsplit

import httptools

from proactive_bench.content_encoding import CappedDecoder, UnknownEncodingError
from proactive_bench.llm.faults import MalformedBodyError

USER_AGENT = f"Python/{sys.version_info[0]}.{sys.version_info[1]} proactive-bench"


class Target(NamedTuple):
    """Where a URL's requests go: the pool's key (scheme, host, port), and the request line's target and Host header."""

    scheme: str
    host: str
    port: int
    path: str
    authority: str


@lru_cache(maxsize=256)
def target_of(url: str) -> Target:
    """The :class:`Target` of an ``http``/``https`` URL (``aiohttp.InvalidURL`` for another scheme or no host)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        import aiohttp

        raise aiohttp.InvalidURL(url, "not an http(s) URL with a host")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return Target(parts.scheme, parts.hostname, port, path, parts.netloc.rpartition("@")[2])


class Answer(NamedTuple):
    status: int
    headers: dict[str, str]
    body: bytes


class _Connection(asyncio.Protocol):
    """One connection: sends a request, reads its answer with ``httptools``; reusable when the server keeps it alive."""

    def __init__(self, max_bytes: int, url: str) -> None:
        self.max_bytes = max_bytes
        self.url = url
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.reusable = False
        self._parser = httptools.HttpResponseParser(self)
        self._answer: asyncio.Future[Answer] | None = None
        self._begun = False
        self._until_close = False
        self._headers: dict[str, str] = {}
        self._chunks: list[bytes] = []
        self._size = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # a TCP (or TLS) connection: a full Transport

    def connection_lost(self, exc: Exception | None) -> None:
        import aiohttp

        self.closed = True
        if self._until_close and exc is None:  # an answer with neither a length nor chunks ends with its connection
            self._until_close = False
            self.on_message_complete()
        if self._begun:
            self._fail(aiohttp.ClientPayloadError(f"Response payload is not completed{f': {exc}' if exc else ''}"))
        else:
            self._fail(aiohttp.ServerDisconnectedError())

    def data_received(self, data: bytes) -> None:
        if self._answer is None or self._answer.done():  # nothing asked (or given up on): the connection is spoilt
            self.close()
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            import aiohttp

            self._fail(aiohttp.ClientPayloadError(f"invalid HTTP answer: {exc}"))

    async def exchange(self, head: bytes, body: bytes) -> Answer:
        """Send one request and wait for its whole answer."""
        assert self.transport is not None
        self._answer = asyncio.get_running_loop().create_future()
        self._begun, self._until_close, self.reusable, self._headers, self._chunks, self._size = False, False, False, {}, [], 0
        self.transport.write(head + body)
        try:
            return await self._answer
        finally:
            self._answer = None

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _fail(self, exc: BaseException) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_exception(exc)
        self.close()

    # httptools' callbacks
    def on_message_begin(self) -> None:
        self._begun = True

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers[name.decode("latin-1")] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        names = {name.lower(): value for name, value in self._headers.items()}
        length = names.get("content-length")
        if length is not None and length.strip().isdigit() and int(length) > self.max_bytes:
            self._fail(MalformedBodyError(f"{self.url} announced a {int(length)}-byte body, over the {self.max_bytes}-byte cap"))
        bodiless = self._parser.get_status_code() < 200 or self._parser.get_status_code() in (204, 304)
        self._until_close = not bodiless and length is None and "chunked" not in names.get("transfer-encoding", "").lower()

    def on_body(self, body: bytes) -> None:
        self._size += len(body)
        if self._size > self.max_bytes:
            self._fail(MalformedBodyError(f"{self.url} sent a body over the {self.max_bytes}-byte cap; cut there"))
            return
        self._chunks.append(body)

    def on_message_complete(self) -> None:
        if self._answer is None or self._answer.done() or self._until_close:
            return
        status = self._parser.get_status_code()
        if status < 200:  # an interim answer (103 Early Hints, an unasked-for 100): the real one follows
            self._begun, self._headers, self._chunks, self._size = False, {}, [], 0
            return
        self.reusable = not self.closed and self._parser.should_keep_alive()
        self._answer.set_result(Answer(status, self._headers, b"".join(self._chunks)))


class PostPool:
    """Keep-alive connections per (scheme, host, port), at most ``connections_per_host`` at once; used inside one event loop."""

    def __init__(self, connections_per_host: int) -> None:
        self.connections_per_host = connections_per_host
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._limits: dict[tuple[str, str, int], asyncio.Semaphore] = {}
        self._open: set[_Connection] = set()
        self._tls: ssl.SSLContext | None = None

    async def post(self, url: str, headers: dict[str, str], body: bytes, timeout: float, max_bytes: int) -> Answer:
        """POST ``body`` with ``headers`` (and ``Host``, ``Content-Length``, ``Accept``, ``Accept-Encoding: identity``,
        ``User-Agent``); the answer, its body decoded if the server compressed it anyway (:func:`_decoded`)."""
        target = target_of(url)
        key = (target.scheme, target.host, target.port)
        head = _head(target, headers, len(body))
        limit = self._limits.get(key)
        if limit is None:
            limit = self._limits[key] = asyncio.Semaphore(self.connections_per_host)
        async with asyncio.timeout(timeout), limit:
            connection = self._reuse(key) or await self._connect(target, url)
            connection.max_bytes, connection.url = max_bytes, url
            try:
                answer = await connection.exchange(head, body)
            except BaseException:  # a fault, a timeout or a cancellation: the connection is in an unknown state
                self._discard(connection)
                raise
        if connection.reusable and not connection.closed:
            self._idle.setdefault(key, []).append(connection)
        else:
            self._discard(connection)
        return _decoded(answer, url, max_bytes)

    def close(self) -> None:
        """Close every connection (those in use fail their request)."""
        for connection in list(self._open):
            connection.close()
        self._open.clear()
        self._idle.clear()
        self._limits.clear()  # bound to this event loop once contended; a reopened transport may run in another

    def _reuse(self, key: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if not connection.closed:
                return connection
            self._open.discard(connection)
        return None

    async def _connect(self, target: Target, url: str) -> _Connection:
        tls = None
        if target.scheme == "https":
            if self._tls is None:
                self._tls = ssl.create_default_context()
            tls = self._tls
        loop = asyncio.get_running_loop()
        try:
            _, connection = await loop.create_connection(
                lambda: _Connection(0, url), target.host, target.port, ssl=tls, server_hostname=target.host if tls else None
            )
        except OSError as exc:  # refused, unreachable, a name that does not resolve, a TLS handshake refused
            import aiohttp

            raise aiohttp.ClientConnectionError(
                f"Cannot connect to host {target.host}:{target.port} ssl:{'default' if tls else False} [{exc.strerror or exc}]"
            ) from exc
        self._open.add(connection)
        return connection

    def _discard(self, connection: _Connection) -> None:
        connection.close()
        self._open.discard(connection)


def _head(target: Target, headers: dict[str, str], length: int) -> bytes:
    """The request line and headers; a header with a line break is refused (it would start another header)."""
    lines = [f"POST {target.path} HTTP/1.1", f"Host: {target.authority}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    lines += [f"Content-Length: {length}", "Accept: */*", "Accept-Encoding: identity", f"User-Agent: {USER_AGENT}", "", ""]
    text = "\r\n".join(lines)
    if text.count("\n") != len(lines) - 1 or text.count("\r") != len(lines) - 1:
        raise ValueError("a request header holds a line break")
    return text.encode("latin-1")


def _decoded(answer: Answer, url: str, max_bytes: int) -> Answer:
    """``answer`` with a gzip or deflate body decoded (a server may compress though asked not to), at most ``max_bytes`` of
    it: more, a body that does not decode or another encoding is a :class:`MalformedBodyError`."""
    encoding = next((value for name, value in answer.headers.items() if name.lower() == "content-encoding"), "")
    if encoding.strip().lower() in ("", "identity") or not answer.body:  # nearly every answer: no decoder made
        return answer
    try:
        decoder = CappedDecoder(encoding, max_bytes)
    except UnknownEncodingError as exc:
        raise MalformedBodyError(f"{url} answered in content encoding {str(exc)!r}, which pbench does not decode") from None
    try:
        body = decoder.feed(answer.body)
    except zlib.error as exc:
        raise MalformedBodyError(f"{url} sent a {decoder.encoding} body that does not decode: {exc}") from exc
    if decoder.over:
        raise MalformedBodyError(f"{url} sent a {decoder.encoding} body over the {max_bytes}-byte cap once decoded; cut there")
    return answer._replace(body=body)
