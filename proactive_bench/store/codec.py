"""How the results database compresses what it stores: zstd frames, optionally against a dictionary (a delta); the column
types that compress are in :mod:`~proactive_bench.store.columns` (this module loads no SQLAlchemy).

zstd, not zlib, by measurement (``scripts/bench_results_size.py``): on a
pharmacist reference run both shrink JSON about 5×, but only zstd can use a
previous app-state snapshot (about 45 kB) as a dictionary, which turns the
next snapshot into a delta of under 1 kB; zlib's 32 kB window cannot.
Values written before compression existed are read as they are: SQLite keeps
each value's storage class, so a column that now holds zstd bytes (BLOB)
still returns older rows' text (TEXT) unchanged. PostgreSQL's binary columns
return bytes either way, so the column types below tell a zstd frame from
text by the frame's magic number (which no UTF-8 text starts with): :func:`as_stored`.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import zstandard

LEVEL = 9
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""The first four bytes of every zstd frame."""
"""zstd level: within 3 % of level 19's size on results data, at a tenth of its time."""


def compress(data: bytes, dictionary: bytes | None = None) -> bytes:
    """A zstd frame of ``data``; with ``dictionary`` (raw content, e.g. the previous version of the same document) a delta against it."""
    return _compressor(dictionary).compress(data)


def decompress(frame: bytes, dictionary: bytes | None = None) -> bytes:
    """The bytes a :func:`compress` frame holds; a delta needs the same ``dictionary`` it was made with."""
    if dictionary is None:
        return zstandard.ZstdDecompressor().decompress(frame)
    return zstandard.ZstdDecompressor(dict_data=_raw_dictionary(dictionary)).decompress(frame)


def compress_if_smaller(data: bytes) -> tuple[bytes, str | None]:
    """``data`` compressed and ``"zstd"``, or as it is and None when compressing does not make it smaller (images, archives)."""
    frame = compress(data)
    return (frame, "zstd") if len(frame) < len(data) else (data, None)


def dumps(value: Any) -> bytes:
    """JSON in its compact form, the text every compressed JSON value holds."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def as_stored(value: Any) -> Any:
    """A stored value as written: a zstd frame (bytes), or text (a database's binary column may return it as bytes)."""
    if isinstance(value, bytes) and value[:4] != ZSTD_MAGIC:
        return value.decode("utf-8")
    return value


_plain = threading.local()
"""Each thread's compressor without a dictionary: setting one up costs about twice a small value's compression, and a
compressor serves one thread at a time (its frames are the same as a new compressor's)."""


def _compressor(dictionary: bytes | None) -> zstandard.ZstdCompressor:
    if dictionary is None:
        compressor = getattr(_plain, "compressor", None)
        if compressor is None:
            compressor = _plain.compressor = zstandard.ZstdCompressor(level=LEVEL)
        return compressor
    return zstandard.ZstdCompressor(level=LEVEL, dict_data=_raw_dictionary(dictionary))


def _raw_dictionary(content: bytes) -> zstandard.ZstdCompressionDict:
    return zstandard.ZstdCompressionDict(content, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
