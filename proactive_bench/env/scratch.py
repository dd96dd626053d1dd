"""Throwaway folders for worlds that are replayed and probed (``pbench validate``'s checks), in memory where possible.

The checks rewrite the same files many times over (reference steps, stuffed
deliverables, restores). On a disk file system such as ext4 each rewrite of a
file in place waits for the disk (a truncated file's old blocks are flushed),
which costs milliseconds a write; a ``tmpfs`` takes microseconds. Nothing in a
scratch folder outlives the check, so nothing is lost by keeping it in memory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

MEMORY_TEMP = Path("/dev/shm")
"""Where Linux offers a ``tmpfs`` to every user."""


def scratch_directory(prefix: str) -> tempfile.TemporaryDirectory[str]:
    """A temporary folder (removed when its ``with`` block ends) in :data:`MEMORY_TEMP` when that is a writable folder
    of a file system that runs programs (not ``noexec``: a reference's ``shell_exec`` runs there as in a run) and
    ``TMPDIR`` does not name another place; else in the system's temporary folder."""
    return tempfile.TemporaryDirectory(prefix=prefix, dir=None if os.environ.get("TMPDIR") else memory_temp())


def memory_temp() -> str | None:
    """:data:`MEMORY_TEMP` when it is a writable folder of a file system that runs programs, else None."""
    try:
        usable = MEMORY_TEMP.is_dir() and os.access(MEMORY_TEMP, os.W_OK | os.X_OK)
        return str(MEMORY_TEMP) if usable and not os.statvfs(MEMORY_TEMP).f_flag & os.ST_NOEXEC else None
    except OSError:
        return None
