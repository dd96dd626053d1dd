"""The store's zstd codec: a compressor kept per thread writes the frames a new one would, from any number of threads."""

from __future__ import annotations

import json
import os
import threading

import zstandard

from proactive_bench.store.codec import LEVEL, compress, compress_if_smaller, decompress


def values() -> list[bytes]:
    return [
        b"",
        b"x",
        json.dumps({"rows": [{"turn": i, "text": "the quarterly summary " * (i % 7)} for i in range(200)]}).encode(),
        os.urandom(4096),
        b"same text " * 5000,
    ]


def test_frames_equal_those_of_a_new_compressor_and_read_back() -> None:
    for data in values() * 2:  # the second pass reuses the thread's compressor
        frame = compress(data)
        assert frame == zstandard.ZstdCompressor(level=LEVEL).compress(data)
        assert decompress(frame) == data


def test_a_delta_against_a_dictionary_still_needs_that_dictionary() -> None:
    base, data = b"the previous version of the file " * 100, b"the previous version of the file, changed " * 100
    frame = compress(data, base)
    assert decompress(frame, base) == data
    assert frame != compress(data)


def test_threads_compressing_at_once_each_get_their_own_values_back() -> None:
    errors: list[str] = []
    start = threading.Barrier(8)

    def work(seed: int) -> None:
        start.wait()
        for n in range(200):
            data = f"thread {seed} value {n} ".encode() * (1 + (seed * n) % 50)
            stored, codec = compress_if_smaller(data)
            back = decompress(stored) if codec == "zstd" else stored
            if back != data:
                errors.append(f"thread {seed} value {n}")

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
