"""Answer bodies a hostile server sends: small gzip that inflates far past any cap."""

from __future__ import annotations

import zlib
from functools import cache

BOMB_INFLATED = 64 << 20
"""What :func:`gzip_bomb` inflates to: 64 MiB of spaces, sent as about 64 KB."""


@cache
def gzip_bomb() -> bytes:
    """A gzip body of ``BOMB_INFLATED`` spaces (JSON whitespace, so nothing fails before the size does)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b" " * (1 << 20)
    return b"".join(packer.compress(chunk) for _ in range(BOMB_INFLATED >> 20)) + packer.flush()
