"""A lean HTTP path to OpenAI-compatible chat completion servers.

The OpenAI SDK spends a few milliseconds of CPU on every request (type-driven
transformation of the payload, its own HTTP stack, response models) — at
tens of thousands of calls in a sweep that, not the server, limits how many
episodes one machine can drive. :class:`ChatTransport` posts the JSON that
LangChain's ``ChatOpenAI`` already builds over pooled keep-alive connections
(:mod:`~proactive_bench.llm.http_pool`; through ``aiohttp`` when a proxy is
set) and returns the decoded answer;
:class:`~proactive_bench.llm.http_chat.HttpChatOpenAI` is ``ChatOpenAI`` with
its async calls sent that way.

Failures keep the SDK's contract: HTTP errors raise the matching
``openai.APIStatusError`` subclass, timeouts ``openai.APITimeoutError``, lost
connections ``openai.APIConnectionError``, an answer that is not a JSON
object (or one over ``max_response_bytes``, read no further)
:class:`MalformedBodyError`. Which faults are retried is
:func:`~proactive_bench.llm.faults.classify`'s word: transient ones
``max_retries`` times with full-jitter exponential backoff (``Retry-After``
honoured, capped), other 5xx unless the same answer came twice in a row,
rejections never. Every retried attempt is reported to the caller's
:mod:`~proactive_bench.llm.retry_log` listener.

Every run opens a transport; a scripted run sends nothing on it. So the SDK,
``aiohttp`` and ``httpx2`` (~1 s of CPU to import) load with the first request
or fault, in the methods that use them, not with this module.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
import urllib.request
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from proactive_bench.exports import moved_names
from proactive_bench.json_text import escapes_a_surrogate, parse_json
from proactive_bench.llm.answer_shape import mend_chat_answer
from proactive_bench.llm.endpoints import EndpointHealth
from proactive_bench.llm.faults import Fault, MalformedBodyError, classify
from proactive_bench.llm.http_pool import PostPool
from proactive_bench.llm.retry_log import note_retry
from proactive_bench.llm.sent import note_request_sent
from proactive_bench.logs import get_logger

if TYPE_CHECKING:
    import aiohttp
    import httpx2
    import openai

log = get_logger(__name__)

MAX_RETRY_AFTER_S = 60.0
FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 8.0
DEFAULT_BASE_URL = "https://api.openai.com/v1"
CHAT_PATH = "/chat/completions"
EMBEDDINGS_PATH = "/embeddings"
MAX_RESPONSE_BYTES_ENV = "PBENCH_MAX_RESPONSE_BYTES"
DEFAULT_MAX_RESPONSE_BYTES = 8 * 2**20
"""The largest answer body read (a chat completion is kilobytes; a bigger one is a server fault, cut and retried)."""
CapField = Literal["max_completion_tokens", "max_tokens"]
CAP_FIELDS: tuple[CapField, CapField] = ("max_completion_tokens", "max_tokens")
STATUS_ERRORS = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    409: "ConflictError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
}
"""The SDK's exception (its name in ``openai``) for each HTTP error status it names."""


class ChatTransport:
    """Pooled connections for chat completion requests, used inside one event loop.

    Open it with ``async with`` (or call :meth:`aclose` when done); the
    ``aiohttp`` session is created on first use, inside the running loop.
    """

    def __init__(
        self, connections_per_host: int = 256, health: EndpointHealth | None = None, max_response_bytes: int | None = None
    ) -> None:
        """``health``: told each request's outcome (a sweep pauses the runs of a server that went away);
        ``max_response_bytes``: the largest body read (default: ``PBENCH_MAX_RESPONSE_BYTES``, else 8 MiB)."""
        self.connections_per_host = connections_per_host
        self.health = health
        self.max_response_bytes = max_response_bytes or max_response_bytes_setting()
        self.cap_fields: dict[str, CapField] = {}
        """The answer-cap field each endpoint (base URL) reads, learnt from its probe or a 400 naming the other."""
        self._refused_caps: dict[str, set[CapField]] = {}
        self.tokenizers: dict[str, str | None] = {}
        """The ``/tokenize`` shape each server answers (:mod:`~proactive_bench.llm.tokens`), None: it counts no tokens."""
        self._session: aiohttp.ClientSession | None = None
        self._pool = PostPool(connections_per_host)
        """Where chat requests go (:mod:`~proactive_bench.llm.http_pool`), unless a proxy is set (:attr:`_proxied`)."""
        self._proxied: bool | None = None

    async def __aenter__(self) -> ChatTransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._pool.close()
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _client(self) -> aiohttp.ClientSession:
        import aiohttp

        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=0, limit_per_host=self.connections_per_host)
            # HTTP(S)_PROXY as the SDK honours it; read per request only when a proxy is set.
            self._session = aiohttp.ClientSession(connector=connector, trust_env=bool(urllib.request.getproxies()))
        return self._session

    async def complete(
        self, url: str, headers: dict[str, str], payload: dict[str, Any], timeout: float, max_retries: int
    ) -> dict[str, Any]:
        """POST ``payload`` to ``url`` (chat completions or embeddings); the decoded JSON answer, retried on transient faults."""
        return await self.send(url, headers, json.dumps(payload).encode(), timeout, max_retries)

    async def send(self, url: str, headers: dict[str, str], body: bytes, timeout: float, max_retries: int) -> dict[str, Any]:
        """POST a JSON ``body`` already encoded, as :meth:`complete` does."""
        return (await self.exchange(url, headers, body, timeout, max_retries))[0]

    async def exchange(
        self, url: str, headers: dict[str, str], body: bytes, timeout: float, max_retries: int
    ) -> tuple[dict[str, Any], bytes]:
        """:meth:`send`, with the answer's body as it came (to be stored without encoding the decoded answer again)."""
        import openai

        if self.health is not None and self.health.paused and base_url_of(url) in self.health.paused:
            raise openai.APIConnectionError(
                message=f"Connection error: {base_url_of(url)} is paused ({self.health.paused[base_url_of(url)]})",
                request=_request(url),
            )
        note_request_sent()  # set now, what waits on it runs once the request below is out and this task waits
        previous = ""
        for attempt in range(max_retries + 1):
            started = time.perf_counter()
            try:
                exchanged = await self._post(url, headers, body, timeout)
                if self.health is not None:
                    self.health.succeeded(base_url_of(url))
                return exchanged
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

    def cap_field(self, base_url: str) -> CapField:
        """The one answer-cap field to send ``base_url``: what it is known to honour, else ``max_completion_tokens`` for
        OpenAI's API and ``max_tokens`` (which every other server reads) elsewhere."""
        return self.cap_fields.get(base_url, "max_completion_tokens" if base_url == DEFAULT_BASE_URL else "max_tokens")

    def refused_cap(self, base_url: str, field: CapField) -> CapField | None:
        """Note that ``base_url`` answered a 400 naming ``field``: the other field from now on, or None when it refused
        that one too (the 400 is about something else)."""
        refused = self._refused_caps.setdefault(base_url, set())
        refused.add(field)
        other = CAP_FIELDS[1 - CAP_FIELDS.index(field)]
        if other in refused:
            return None
        self.cap_fields[base_url] = other
        log.info("answer_cap_field_switched", base_url=base_url, refused=field, now=other)
        return other

    async def get_json(self, url: str, headers: dict[str, str], timeout: float) -> Any:
        """GET ``url``'s JSON, or None when there is no JSON answer (for optional server facts such as ``/models``)."""
        import aiohttp

        try:
            async with self._client().get(url, headers=headers, timeout=aiohttp.ClientTimeout(total=timeout)) as response:
                return await response.json(content_type=None) if response.status == 200 else None
        except (TimeoutError, aiohttp.ClientError, ValueError):
            return None

    async def post_json(self, url: str, headers: dict[str, str], payload: dict[str, Any], timeout: float) -> Any:
        """POST ``payload`` and return the JSON answer, or None when there is no JSON answer (for optional server
        facts such as a token count); tried once, its body capped as a chat answer's."""
        import aiohttp

        try:
            async with self._client().post(url, json=payload, headers=headers, timeout=aiohttp.ClientTimeout(total=timeout)) as response:
                content = await _read_capped(response, self.max_response_bytes, url)
                return parse_json(content) if response.status == 200 else None
        except (TimeoutError, aiohttp.ClientError, ValueError, MalformedBodyError):
            return None

    async def _post(self, url: str, headers: dict[str, str], body: bytes, timeout: float) -> tuple[dict[str, Any], bytes]:
        import aiohttp
        import openai

        try:
            if self._proxied is None:  # HTTP(S)_PROXY as the SDK honours it, read once: aiohttp goes through the proxy
                self._proxied = bool(urllib.request.getproxies())
            if self._proxied:
                status, reply_headers, content = await self._post_aiohttp(url, headers, body, timeout)
            else:
                status, reply_headers, content = await self._pool.post(url, headers, body, timeout, self.max_response_bytes)
        except TimeoutError:
            raise openai.APITimeoutError(request=_request(url)) from None
        except aiohttp.ClientError as exc:
            raise openai.APIConnectionError(message=f"Connection error: {type(exc).__name__}: {exc}", request=_request(url)) from exc
        if status >= 400:
            raise _status_error(url, status, dict(reply_headers), content)
        if 300 <= status < 400:  # followed, the request could reach another host with the key: named instead, not retried
            raise _redirect_error(url, status, dict(reply_headers), content)
        try:
            answer = parse_json(content)
        except ValueError:
            raise MalformedBodyError(f"{url} answered HTTP {status} with a body that is not JSON: {content[:200]!r}") from None
        if not isinstance(answer, dict):
            raise MalformedBodyError(f"{url} answered with JSON that is not an object: {content[:200]!r}")
        if url.endswith(CHAT_PATH):
            try:
                mended = mend_chat_answer(answer)
            except ValueError as exc:
                raise MalformedBodyError(f"{url} answered with JSON that is not a chat completion ({exc}): {content[:200]!r}") from None
            if mended or escapes_a_surrogate(content):
                content = json.dumps(answer).encode()  # what was read (mended, lone surrogates replaced) is what a replay reads
        return answer, content

    async def _post_aiohttp(self, url: str, headers: dict[str, str], body: bytes, timeout: float) -> tuple[int, Mapping[str, str], bytes]:
        """The POST through ``aiohttp``'s client (which goes through the proxy): status, headers, body."""
        import aiohttp

        async with self._client().post(url, data=body, headers=headers, timeout=aiohttp.ClientTimeout(total=timeout)) as response:
            return response.status, response.headers, await _read_capped(response, self.max_response_bytes, url)


def max_response_bytes_setting() -> int:
    """``PBENCH_MAX_RESPONSE_BYTES`` (a positive whole number of bytes), else the default; one line naming it when bad."""
    raw = os.environ.get(MAX_RESPONSE_BYTES_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_RESPONSE_BYTES
    if not raw.isdigit() or int(raw) == 0:
        raise ValueError(f"{MAX_RESPONSE_BYTES_ENV}: expected a positive whole number of bytes, got {raw!r}")
    return int(raw)


async def _read_capped(response: aiohttp.ClientResponse, cap: int, url: str) -> bytes:
    """The body, or :class:`MalformedBodyError` as soon as it is announced or found to be over ``cap`` bytes (a body
    streaming without end is cut there, not read until the call's timeout)."""
    if response.content_length is not None and response.content_length > cap:
        response.close()  # the connection too: the rest of the body is never read
        raise MalformedBodyError(f"{url} announced a {response.content_length}-byte body, over the {cap}-byte cap")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_any():
        size += len(chunk)
        if size > cap:
            response.close()
            raise MalformedBodyError(f"{url} sent a body over the {cap}-byte cap; cut there")
        chunks.append(chunk)
    return b"".join(chunks)


def base_url_of(url: str) -> str:
    """The base URL a chat completions or embeddings URL was made from."""
    return url.removesuffix(CHAT_PATH).removesuffix(EMBEDDINGS_PATH)


def _status_error(url: str, status: int, headers: dict[str, str], content: bytes) -> openai.APIStatusError:
    """The SDK's exception for an HTTP error answer."""
    import httpx2
    import openai

    try:
        body: Any = parse_json(content)
    except ValueError:
        body = content.decode(errors="replace")
    error = body.get("error") if isinstance(body, dict) else None
    detail = error.get("message") if isinstance(error, dict) else error
    message = f"Error code: {status} - {detail or body}"
    response = httpx2.Response(status, headers=headers, content=content, request=_request(url))
    kind: type[openai.APIStatusError] = (
        getattr(openai, STATUS_ERRORS[status])
        if status in STATUS_ERRORS
        else openai.InternalServerError
        if status >= 500
        else openai.APIStatusError
    )
    return kind(message, response=response, body=body)


def _redirect_error(url: str, status: int, headers: dict[str, str], content: bytes) -> openai.APIStatusError:
    """A redirect as the SDK's exception for an answer that is not a success, naming where it points."""
    import httpx2
    import openai

    location = next((value for key, value in headers.items() if key.lower() == "location"), None)
    message = f"Error code: {status} - a redirect to {location or 'nowhere named'}; pbench does not follow redirects: give the address it points to as the base URL"
    return openai.APIStatusError(
        message, response=httpx2.Response(status, headers=headers, content=content, request=_request(url)), body=None
    )


def _request(url: str) -> httpx2.Request:
    """The request the SDK's exceptions carry: a POST to ``url``."""
    import httpx2

    return httpx2.Request("POST", url)


def _retryable(exc: BaseException, repeated: bool) -> bool:
    """Whether a failed attempt is worth repeating; ``repeated``: it failed exactly as the attempt before."""
    fault = classify(exc)
    return fault is Fault.TRANSIENT or (fault is Fault.SERVER_ERROR and not repeated)


def retry_delay(exc: BaseException, attempt: int) -> float:
    """The server's ``Retry-After`` when it gives one (capped), else full-jitter exponential backoff."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        try:
            return min(max(float(exc.response.headers.get("retry-after", "")), 0.0), MAX_RETRY_AFTER_S)
        except ValueError:
            pass
    return random.uniform(0, min(MAX_BACKOFF_S, FIRST_BACKOFF_S * 2**attempt))


__getattr__ = moved_names(
    __name__,
    {
        "is_context_length_error": "proactive_bench.llm",
        "HttpChatOpenAI": "proactive_bench.llm.http_chat",
        "response_format_param": "proactive_bench.llm.http_chat",
        "UNSET_TIMEOUT_S": "proactive_bench.llm.http_chat",
    },
)
