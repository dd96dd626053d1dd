"""The column types that compress (zstd, :mod:`~proactive_bench.store.codec`): values written compressed, rows written
before compression read as written (a frame told from text by zstd's magic number)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import LargeBinary
from sqlalchemy.types import TypeDecorator

from proactive_bench.store.codec import as_stored, compress, compress_if_smaller, decompress, dumps


class _Blob(LargeBinary):
    """A BLOB column whose values reach the driver as they are: bytes, or text for a value that compression would not shrink."""

    def bind_processor(self, dialect: Any) -> None:
        return None


class CompressedJSON(TypeDecorator[Any]):
    """A JSON value stored as a zstd frame of its text (BLOB); a row written before compression (JSON text) is read as it is."""

    impl = _Blob
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> bytes | None:
        return None if value is None else compress(dumps(value))

    def process_result_value(self, value: Any, dialect: Any) -> Any:
        value = as_stored(value)
        if value is None:
            return None
        return json.loads(decompress(value) if isinstance(value, bytes) else value)


class CompressedText(TypeDecorator[str]):
    """Text stored as a zstd frame (BLOB) when that is smaller, else as text; rows written before compression are text."""

    impl = _Blob
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Any) -> bytes | str | None:
        if value is None:
            return None
        frame, codec = compress_if_smaller(value.encode("utf-8"))
        return frame if codec or dialect.name != "sqlite" else value  # a binary column of PostgreSQL takes bytes only

    def process_result_value(self, value: Any, dialect: Any) -> str | None:
        value = as_stored(value)
        return decompress(value).decode("utf-8") if isinstance(value, bytes) else value


class StoredBytes(TypeDecorator[Any]):
    """A column whose values are bytes (current encoding) or text (written before it); returned as stored, for the store to decode."""

    impl = _Blob
    cache_ok = True

    def process_result_value(self, value: Any, dialect: Any) -> Any:
        return as_stored(value)
