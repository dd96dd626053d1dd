"""A lean HTTP path to OpenAI-compatible chat completion servers.

The OpenAI SDK spends a few milliseconds of CPU on every request (type-driven
transformation of the payload, its own HTTP stack, response models) — at
tens of thousands of calls in a sweep that, not the server, limits how many
episodes one machine can drive. :class:`ChatTransport` posts the JSON that
LangChain's ``ChatOpenAI`` already builds over one pooled ``aiohttp``
session and returns the decoded answer; :func:`chat_model` builds a
``ChatOpenAI`` whose async calls travel it, through the SDK's public
extension point (an ``httpx2.AsyncClient`` given as ``http_async_client``,
its transport this one): everything else — message conversion, tools,
structured output, result parsing — is LangChain's and the SDK's own.

Failures keep the SDK's contract: HTTP errors raise the matching
``openai.APIStatusError`` subclass, timeouts ``openai.APITimeoutError``, lost
connections ``openai.APIConnectionError``, an answer that is not a JSON
object :class:`MalformedBodyError`. Transient faults are retried
``max_retries`` times with full-jitter exponential backoff (``Retry-After``
honoured, capped): 429, timeouts, lost connections and truncated or non-JSON
bodies always; 408/409/5xx unless the body names a request feature
(``response_format``, ``tools``, ...: the server rejects the request itself,
see :func:`names_request_feature`); 5xx other than 502/503/504 also not when
the same answer came twice in a row. Every retried attempt is reported to the caller's
:mod:`~proactive_bench.llm.retry_log` listener.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import urllib.request
from typing import Any, NamedTuple

import aiohttp
import httpx2
import openai
import structlog
from langchain_core.caches import BaseCache
from langchain_core.rate_limiters import BaseRateLimiter
from langchain_openai import ChatOpenAI

from proactive_bench.llm.endpoints import EndpointHealth
from proactive_bench.llm.retry_log import note_retry
from proactive_bench.llm.sent import note_request_sent

log = structlog.get_logger(__name__)

RETRY_STATUSES = frozenset({408, 409, 429, 502, 503, 504})
"""Always transient; other 5xx are retried unless they name a request feature or repeat."""
REQUEST_FEATURE = re.compile(r"response_format|json_schema|json_object|tool_choice|\btools?\b|\bfunctions?\b|function.?call", re.IGNORECASE)
CONTEXT_LENGTH = re.compile(r"context (length|window|size)|maximum context|too many tokens|prompt is too long|reduce the length", re.IGNORECASE)
MAX_RETRY_AFTER_S = 60.0
FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 8.0
DEFAULT_BASE_URL = "https://api.openai.com/v1"
CHAT_PATH = "/chat/completions"
UNSET_TIMEOUT_S = 600.0
"""The whole-request limit when the model sets none (the OpenAI SDK's default)."""
STATUS_ERRORS: dict[int, type[openai.APIStatusError]] = {
    400: openai.BadRequestError,
    401: openai.AuthenticationError,
    403: openai.PermissionDeniedError,
    404: openai.NotFoundError,
    409: openai.ConflictError,
    422: openai.UnprocessableEntityError,
    429: openai.RateLimitError,
}


SENDER_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection"})
"""Request headers the sending session writes itself."""
DECODED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
"""Answer headers that no longer hold once the session has decoded the body."""


class Reply(NamedTuple):
    """A 200 answer whose body is a JSON object: decoded, as sent, and its headers."""

    answer: dict[str, Any]
    content: bytes
    headers: dict[str, str]


class MalformedBodyError(ValueError):
    """The server answered 200 with a body that is not a JSON object (cut short, an HTML error page, ...)."""


def names_request_feature(exc: BaseException) -> bool:
    """Whether an HTTP error's message names a request feature: the server rejects the request's shape, retrying cannot help."""
    return isinstance(exc, openai.APIStatusError) and REQUEST_FEATURE.search(str(exc.message)) is not None


def is_context_length_error(exc: BaseException) -> bool:
    """Whether an HTTP error says the prompt is longer than the model's context."""
    return isinstance(exc, openai.APIStatusError) and CONTEXT_LENGTH.search(str(exc.message)) is not None


class ChatTransport:
    """Pooled connections for chat completion requests, used inside one event loop.

    Open it with ``async with`` (or call :meth:`aclose` when done); the
    ``aiohttp`` session is created on first use, inside the running loop.
    """

    def __init__(self, connections_per_host: int = 256, health: EndpointHealth | None = None) -> None:
        """``health``: told each request's outcome (a sweep pauses the runs of a server that went away)."""
        self.connections_per_host = connections_per_host
        self.health = health
        self._session: aiohttp.ClientSession | None = None
        self.templates: dict[str, ChatOpenAI] = {}
        """Validated chat models per settings (see :func:`chat_model`)."""

    async def __aenter__(self) -> ChatTransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=0, limit_per_host=self.connections_per_host)
            # HTTP(S)_PROXY as the SDK honours it; read per request only when a proxy is set.
            self._session = aiohttp.ClientSession(connector=connector, trust_env=bool(urllib.request.getproxies()))
        return self._session

    async def complete(self, url: str, headers: dict[str, str], payload: dict[str, Any], timeout: float, max_retries: int) -> dict[str, Any]:
        """POST ``payload`` to ``url``; the decoded JSON answer, retried on transient faults."""
        reply = await self.send(url, headers, json.dumps(payload).encode(), timeout, max_retries)
        return reply.answer

    async def send(self, url: str, headers: dict[str, str], body: bytes, timeout: float, max_retries: int) -> Reply:
        """POST the JSON ``body`` to ``url``; the answer, retried on transient faults."""
        if self.health is not None and self.health.paused and base_url_of(url) in self.health.paused:
            raise openai.APIConnectionError(message=f"Connection error: {base_url_of(url)} is paused ({self.health.paused[base_url_of(url)]})", request=httpx2.Request("POST", url))
        note_request_sent()  # set now, what waits on it runs once the request below is out and this task waits
        previous = ""
        for attempt in range(max_retries + 1):
            started = time.perf_counter()
            try:
                reply = await self._post(url, headers, body, timeout)
                if self.health is not None:
                    self.health.succeeded(base_url_of(url))
                return reply
            except (openai.APIStatusError, openai.APIConnectionError, MalformedBodyError) as exc:
                error = f"{type(exc).__name__}: {exc}"
                if self.health is not None and isinstance(exc, openai.APIConnectionError):
                    self.health.failed(base_url_of(url), error)
                if attempt == max_retries or not _retryable(exc, repeated=error == previous):
                    raise
                previous = error
                delay = retry_delay(exc, attempt)
                log.info("model_request_retry", url=url, attempt=attempt + 1, wait_s=round(delay, 2), error=error)
                note_retry(error, (time.perf_counter() - started) * 1000)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    async def get_json(self, url: str, headers: dict[str, str], timeout: float) -> Any:
        """GET ``url``'s JSON, or None when there is no JSON answer (for optional server facts such as ``/models``)."""
        try:
            async with self._client().get(url, headers=headers, timeout=aiohttp.ClientTimeout(total=timeout)) as response:
                return await response.json(content_type=None) if response.status == 200 else None
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
            return None

    async def _post(self, url: str, headers: dict[str, str], body: bytes, timeout: float) -> Reply:
        try:
            async with self._client().post(url, data=body, headers=headers, timeout=aiohttp.ClientTimeout(total=timeout)) as response:
                content = await response.read()
                status = response.status
                reply_headers = dict(response.headers)
        except asyncio.TimeoutError:
            raise openai.APITimeoutError(request=httpx2.Request("POST", url)) from None
        except aiohttp.ClientError as exc:
            raise openai.APIConnectionError(message=f"Connection error: {type(exc).__name__}: {exc}", request=httpx2.Request("POST", url)) from exc
        if status >= 400:
            raise _status_error(url, status, reply_headers, content)
        try:
            answer = json.loads(content)
        except ValueError:
            raise MalformedBodyError(f"{url} answered HTTP {status} with a body that is not JSON: {content[:200]!r}") from None
        if not isinstance(answer, dict):
            raise MalformedBodyError(f"{url} answered with JSON that is not an object: {content[:200]!r}")
        return Reply(answer, content, reply_headers)


def base_url_of(chat_url: str) -> str:
    """The base URL a chat completions URL was made from."""
    return chat_url.removesuffix(CHAT_PATH)


def _status_error(url: str, status: int, headers: dict[str, str], content: bytes) -> openai.APIStatusError:
    """The SDK's exception for an HTTP error answer."""
    try:
        body: Any = json.loads(content)
    except ValueError:
        body = content.decode(errors="replace")
    error = body.get("error") if isinstance(body, dict) else None
    detail = error.get("message") if isinstance(error, dict) else error
    message = f"Error code: {status} - {detail or body}"
    response = httpx2.Response(status, headers=headers, content=content, request=httpx2.Request("POST", url))
    kind = STATUS_ERRORS.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return kind(message, response=response, body=body)


def _retryable(exc: BaseException, repeated: bool) -> bool:
    """Whether a failed attempt is worth repeating; ``repeated``: it failed exactly as the attempt before."""
    if isinstance(exc, openai.APIStatusError):
        if exc.status_code == 429:
            return True
        if names_request_feature(exc):
            return False
        return exc.status_code in RETRY_STATUSES or (exc.status_code >= 500 and not repeated)
    return isinstance(exc, openai.APIConnectionError | MalformedBodyError)  # connection errors include timeouts


def retry_delay(exc: BaseException, attempt: int) -> float:
    """The server's ``Retry-After`` when it gives one (capped), else full-jitter exponential backoff."""
    if isinstance(exc, openai.APIStatusError):
        try:
            return min(max(float(exc.response.headers.get("retry-after", "")), 0.0), MAX_RETRY_AFTER_S)
        except ValueError:
            pass
    return random.uniform(0, min(MAX_BACKOFF_S, FIRST_BACKOFF_S * 2**attempt))


class SessionTransport(httpx2.AsyncBaseTransport):
    """httpx's public transport interface over a :class:`ChatTransport`, for the OpenAI SDK's client.

    It answers only with a 200 whose body is a JSON object and raises the
    SDK's own exceptions otherwise, which the SDK passes on unchanged (so its
    own retries never start: this transport's do, as :meth:`ChatTransport.send`).
    """

    def __init__(self, transport: ChatTransport, timeout_s: float, max_retries: int) -> None:
        self.transport = transport
        self.timeout_s = timeout_s
        self.max_retries = max_retries

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        headers = {k: v for k, v in request.headers.items() if k not in SENDER_HEADERS}
        reply = await self.transport.send(str(request.url), headers, await request.aread(), self.timeout_s, self.max_retries)
        kept = {k: v for k, v in reply.headers.items() if k.lower() not in DECODED_HEADERS}
        return httpx2.Response(200, headers=kept, content=reply.content, request=request)


def chat_model(transport: ChatTransport, cache: BaseCache | None = None, rate_limiter: BaseRateLimiter | None = None, **settings: Any) -> ChatOpenAI:
    """A ``ChatOpenAI`` with these (JSON) settings whose async calls travel ``transport``.

    Serialises (and so keys the record/replay cache) exactly as a ``ChatOpenAI``
    without it; synchronous calls still use the SDK's own client. Models share
    one validated template per transport and settings (building one costs ~1 ms
    and an SDK client); each copy has its own cache and rate limiter.
    """
    key = json.dumps(settings, sort_keys=True)
    template = transport.templates.get(key)
    if template is None:
        sender = SessionTransport(transport, _timeout_s(settings.get("timeout")), int(settings.get("max_retries") or 0))
        template = ChatOpenAI(**settings, http_async_client=httpx2.AsyncClient(transport=sender))
        getattr(template, "_serialized", None)  # LangChain's cached dump of the settings (~0.3 ms), copied with the template
        transport.templates[key] = template
    return template.model_copy(update={"cache": cache, "rate_limiter": rate_limiter})


def _timeout_s(timeout: Any) -> float:
    """A whole-request timeout from a chat model's ``timeout`` setting (a number, or a (connect, read) pair)."""
    if isinstance(timeout, int | float):
        return float(timeout)
    if isinstance(timeout, tuple) and timeout:
        return float(sum(t for t in timeout if t))
    return UNSET_TIMEOUT_S
