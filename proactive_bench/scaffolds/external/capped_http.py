"""An ``httpx`` client whose answers are read at most to a cap, decoded: for clients pbench does not read itself.

The A2A SDK reads each answer whole (``response.json()``), so a service that streams without end, or a small gzip body
that inflates to gigabytes, would fill pbench's memory until the turn's deadline. :func:`capped_client` asks for no
compression and cuts every answer at ``max_bytes`` once decoded, raising :class:`httpx.DecodingError` (a request
error, which the SDK reports as one).
"""

from __future__ import annotations

import ssl
import zlib
from collections.abc import AsyncIterator

import httpx

from proactive_bench.content_encoding import CappedDecoder, UnknownEncodingError

UNSENT_HEADERS = ("content-encoding", "content-length")
"""Headers of the answer as sent that no longer hold once its body is decoded here."""


def capped_client(max_bytes: int, verify: ssl.SSLContext) -> httpx.AsyncClient:
    """A client (no credentials or proxies from the environment, no redirects) whose answers are cut at ``max_bytes``."""
    inner = httpx.AsyncHTTPTransport(verify=verify, trust_env=False)
    return httpx.AsyncClient(
        transport=CappedTransport(inner, max_bytes),
        trust_env=False,
        follow_redirects=False,
        headers={"Accept-Encoding": "identity"},
    )


class CappedTransport(httpx.AsyncBaseTransport):
    """``inner``'s answers with their bodies decoded (identity, gzip, deflate) and cut at ``max_bytes``."""

    def __init__(self, inner: httpx.AsyncBaseTransport, max_bytes: int) -> None:
        self._inner, self.max_bytes = inner, max_bytes

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        try:
            decoder = CappedDecoder(response.headers.get("Content-Encoding", ""), self.max_bytes)
        except UnknownEncodingError as exc:
            await response.aclose()
            raise httpx.DecodingError(
                f"the answer is in content encoding {str(exc)!r}, which pbench does not decode", request=request
            ) from None
        headers = [(name, value) for name, value in response.headers.multi_items() if name.lower() not in UNSENT_HEADERS]
        body = CappedStream(response, decoder, request)
        return httpx.Response(response.status_code, headers=headers, stream=body, extensions=response.extensions, request=request)

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedStream(httpx.AsyncByteStream):
    """An answer's body as ``decoder`` gives it; past its cap, or not decodable, a :class:`httpx.DecodingError`."""

    def __init__(self, response: httpx.Response, decoder: CappedDecoder, request: httpx.Request) -> None:
        self._response, self._decoder, self._request = response, decoder, request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        stream = self._response.stream
        assert isinstance(stream, httpx.AsyncByteStream)  # an async transport's answer
        async for chunk in stream:
            try:
                decoded = self._decoder.feed(chunk)
            except zlib.error as exc:
                raise httpx.DecodingError(f"a {self._decoder.encoding} answer that does not decode: {exc}", request=self._request) from None
            if self._decoder.over:
                raise httpx.DecodingError(f"an answer over {self._decoder.max_bytes} bytes", request=self._request)
            yield decoded

    async def aclose(self) -> None:
        await self._response.aclose()
