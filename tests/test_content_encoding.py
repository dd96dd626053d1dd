"""``CappedDecoder``: a body's gzip or deflate decoded chunk by chunk, never more than one byte past its cap."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given, strategies as st

from proactive_bench.content_encoding import ZLIB_WBITS, CappedDecoder, UnknownEncodingError
from tests.helpers.bodies import BOMB_INFLATED, gzip_bomb


def packed(body: bytes, encoding: str) -> bytes:
    return body if encoding == "identity" else zlib.compress(body, wbits=ZLIB_WBITS[encoding])


def fed(decoder: CappedDecoder, data: bytes, size: int) -> bytes:
    return b"".join(decoder.feed(data[i : i + size]) for i in range(0, len(data), size))


@given(
    body=st.binary(max_size=3000),
    cap=st.integers(min_value=0, max_value=3000),
    size=st.integers(min_value=1, max_value=500),
    encoding=st.sampled_from(["identity", "gzip", "x-gzip", "deflate"]),
)
def test_a_body_within_its_cap_decodes_whole_and_one_past_it_is_over(body: bytes, cap: int, size: int, encoding: str) -> None:
    decoder = CappedDecoder(f" {encoding.upper()} ", cap)
    out = fed(decoder, packed(body, encoding), size)
    assert decoder.over == (len(body) > cap)
    assert out == body[: cap + 1]


def test_a_bomb_gives_one_byte_past_the_cap_however_it_is_chunked() -> None:
    for size in (64 << 10, len(gzip_bomb())):  # a network read at a time, or all of it at once
        decoder = CappedDecoder("gzip", 1 << 20)
        out = fed(decoder, gzip_bomb(), size)
        assert decoder.over and len(out) == (1 << 20) + 1 < BOMB_INFLATED
        assert decoder.feed(b"more") == b""


def test_other_encodings_and_bodies_that_do_not_decode_are_refused() -> None:
    for encoding in ("br", "zstd", "gzip, gzip", "compress"):
        with pytest.raises(UnknownEncodingError):
            CappedDecoder(encoding, 10)
    assert CappedDecoder("", 10).encoding == "identity"
    with pytest.raises(zlib.error):
        CappedDecoder("gzip", 10).feed(b"\x1f\x8b not gzip")
