"""Session saves run on the store's writing thread: in order, off the event loop, never cut short by a cancellation."""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
import time

import pytest

from proactive_bench.store.writer import WriteThread


async def test_writes_run_in_order_on_one_thread_while_the_loop_goes_on() -> None:
    writer, done, ticks = WriteThread(), [], [0]

    def write(n: int) -> str:
        time.sleep(0.1)
        done.append(n)
        return threading.current_thread().name

    async def tick() -> None:
        while len(done) < 3:
            ticks[0] += 1
            await asyncio.sleep(0.01)

    names, _ = await asyncio.gather(asyncio.gather(*(writer.run(lambda n=n: write(n)) for n in range(3))), tick())
    assert done == [0, 1, 2] and len(set(names)) == 1 and names[0].startswith("pbench-save")
    assert ticks[0] >= 10, "the event loop ran other work while the writes waited"


async def test_an_error_in_a_write_reaches_its_caller() -> None:
    def write() -> None:
        raise LookupError("run 1 is not in r.db")

    with pytest.raises(LookupError, match="not in r.db"):
        await WriteThread().run(write)


async def test_a_cancelled_caller_waits_for_its_write_to_end() -> None:
    writer, finished = WriteThread(), threading.Event()

    def write() -> None:
        time.sleep(0.3)
        finished.set()

    task = asyncio.ensure_future(writer.run(write))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert finished.is_set(), "the cancellation went on only after the write ended"


def _write_in_child(writer: WriteThread, out: multiprocessing.Queue) -> None:
    out.put(asyncio.run(writer.run(lambda: threading.current_thread().name)))


def test_a_forked_child_gets_its_own_writing_thread() -> None:
    writer = WriteThread()
    asyncio.run(writer.run(lambda: None))  # the parent's thread exists, and does not cross the fork
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    child = context.Process(target=_write_in_child, args=(writer, out))
    child.start()
    assert str(out.get(timeout=30)).startswith("pbench-save")
    child.join(timeout=30)
    assert child.exitcode == 0
