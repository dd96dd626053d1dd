"""An HTTP body's gzip or deflate content encoding, decoded as it arrives and never past a cap.

A few kilobytes of gzip can inflate to gigabytes, so a body whose size is capped must be capped after decoding, chunk
by chunk: :class:`CappedDecoder` gives at most one byte more than its cap, enough to tell that a body is over it.
pbench asks every server for ``Accept-Encoding: identity``; this is for the ones that compress anyway (the model
transport, ``llm/http_pool.py``, and ``http:`` agents, ``scaffolds/external/http_agent.py``).
"""

from __future__ import annotations

import zlib

ZLIB_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
"""The content encodings decoded (``zlib``'s window bits for each), as aiohttp's and httpx's clients decode them."""


class UnknownEncodingError(ValueError):
    """A content encoding pbench does not decode (it asks for none)."""


class CappedDecoder:
    """One body's content encoding (``identity``, ``gzip``, ``deflate``), decoded chunk by chunk: :meth:`feed` gives the
    decoded bytes, at most ``max_bytes + 1`` in all, and :attr:`over` turns true once the body is past ``max_bytes``.
    A body that does not decode raises ``zlib.error``."""

    def __init__(self, encoding: str, max_bytes: int) -> None:
        """``encoding`` as a ``Content-Encoding`` header gives it (case and spaces aside; empty is identity); any other
        raises :class:`UnknownEncodingError`."""
        self.encoding = encoding.strip().lower() or "identity"
        if self.encoding != "identity" and self.encoding not in ZLIB_WBITS:
            raise UnknownEncodingError(self.encoding)
        self._zlib = zlib.decompressobj(ZLIB_WBITS[self.encoding]) if self.encoding != "identity" else None
        self.max_bytes = max_bytes
        self._room = max_bytes + 1
        self.over = False

    def feed(self, chunk: bytes) -> bytes:
        """The decoded bytes of ``chunk`` (the next bytes of the body as sent), cut where the body passes its cap."""
        if self.over or not chunk:
            return b""
        if self._zlib is None:
            decoded = chunk[: self._room]
        else:  # max_length bounds what one call inflates; input left over means the output reached it
            decoded = self._zlib.decompress(chunk, self._room)
            self.over = bool(self._zlib.unconsumed_tail)
        self._room -= len(decoded)
        self.over = self.over or self._room == 0
        return decoded
