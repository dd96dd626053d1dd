"""The thread a process's session saves run on, off its event loop.

A save is a transaction of about a dozen statements; on a database server each
is a round trip, and the commit waits for the server's disk. Run on the event
loop, those waits stall every other episode of the process. :class:`WriteThread`
runs the saves one after another on a single thread (the order a process's
saves had on the loop, and one writer per process as SQLite wants), while the
loop goes on with the other episodes' model calls.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class WriteThread:
    """One writing thread per process, started on first use (and again in a forked child, where the parent's does not run)."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._pid = 0
        self._lock = threading.Lock()

    async def run(self, write: Callable[[], T]) -> T:
        """``write()`` on the writing thread; its result or its error.

        Cancelled meanwhile, it still waits for the write to end before the
        cancellation goes on (a thread cannot be stopped midway; the write's
        transaction commits or rolls back whole, never after its caller is gone).
        """
        future = asyncio.wrap_future(self._executor().submit(write))
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            await asyncio.wait([future])
            raise

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._pid != os.getpid():
                self._pool, self._pid = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbench-save"), os.getpid()
            return self._pool
