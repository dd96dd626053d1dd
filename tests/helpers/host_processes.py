"""The processes running on the host, found by their command lines (for tests that check what outlived a call)."""

from __future__ import annotations

from pathlib import Path


def host_processes(marker: str) -> list[int]:
    """Host pids whose command line contains ``marker``."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes().replace(b"\0", b" "):
                pids.append(int(cmdline.parent.name))
        except OSError:
            continue
    return pids
