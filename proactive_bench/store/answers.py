"""Recorded model answers (table ``modelcall_cache``): written in bursts, read by the record/replay cache.

The cache itself (keys, occurrences, replay rules) is
:class:`proactive_bench.llm.cache.CallCache`; this module only stores and
finds what it recorded, by namespace (``<run id>/<session id>``), key and occurrence.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from sqlalchemy import UniqueConstraint, delete
from sqlmodel import Column, Field, Session, SQLModel, col, select

from proactive_bench.logs import get_logger
from proactive_bench.store.columns import CompressedText
from proactive_bench.store.direct import direct
from proactive_bench.store.engine import bytewise, insert_ignoring
from proactive_bench.store.lease import Fence, Fences, fence_tuple, lost_fences
from proactive_bench.store.writer import WriteThread

log = get_logger(__name__)


class ModelCallEntry(SQLModel, table=True):
    """One recorded model answer."""

    __tablename__ = "modelcall_cache"
    __table_args__ = (UniqueConstraint("namespace", "key", "occurrence"),)
    id: int = Field(default=None, primary_key=True)
    namespace: str = Field(index=True, description="<run id>/<session id>")
    key: str
    occurrence: int
    generations: str = Field(sa_column=Column(CompressedText, nullable=False))
    """The answer as :class:`~proactive_bench.llm.cache.CallCache` recorded it (a server's answer JSON, or LangChain's dump of
    the generations), zstd-compressed when that is smaller (rows written before compression: text)."""


Waiting = tuple[tuple[Fence, ...], dict[str, Any]]
"""An answer not yet written: the leases its run writes under (none: a cache shared by runs) and its row."""


class RecordedAnswers:
    """The recorded answers of one database: writes in bursts, one transaction for all answers that arrive within ``delay_s``.

    Shared by every run on one database, so a sweep's concurrent episodes
    commit together instead of once per model call. Inside an event loop a
    write is deferred by at most ``delay_s`` (a crash loses at most that much
    recording; the answers are then asked again on resume); outside one it is
    written at once. :meth:`flush` writes whatever is waiting; the reads of one session's answers flush first.
    Answers are added on the event loop's thread; the timer's write runs on
    the store's writing thread (``writer``), after the saves already queued there and
    never beside one, and a session save there takes the waiting answers into its
    own transaction: the waiting list is locked, the timer is the loop's alone.

    An answer recorded under a lease (``add(..., fence=...)``, a run's call cache) is
    written only while that lease is still its run's, as session saves are fenced: the
    answers of a run another process took over are dropped (logged), the others written.
    """

    def __init__(self, engine: Any, writer: WriteThread, delay_s: float = 0.25) -> None:
        self.engine = engine
        self.writer = writer
        self.delay_s = delay_s
        self._pending: list[Waiting] = []
        self._lock = threading.Lock()
        self._timer: tuple[asyncio.AbstractEventLoop, asyncio.TimerHandle] | None = None
        """The loop whose timer will write the waiting answers, and that timer (a loop closed before it fired leaves it: the
        next answer, in another loop, sets its own)."""
        self._writing: set[asyncio.Task[None]] = set()
        """The timer's writes queued on the writing thread (held here: the loop keeps only weak references to tasks)."""

    def add(self, namespace: str, key: str, occurrence: int, generations: str, fence: Fences | None = None) -> None:
        """Record an answer (written within ``delay_s``); ``fence``: the lease(s) it is written under, as its run's session saves."""
        row = {"namespace": namespace, "key": key, "occurrence": occurrence, "generations": generations}
        with self._lock:
            self._pending.append((fence_tuple(fence) if fence is not None else (), row))
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        if self._timer is None or self._timer[0] is not loop:
            self._timer = (loop, loop.call_later(self.delay_s, self._flush_on_timer, loop))

    def flush(self) -> None:
        """Write every waiting answer in one transaction; if that fails they stay waiting and the error is raised."""
        rows = self.take()
        if not rows:
            return
        try:
            with self.engine.begin() as db:
                write_answers(db, rows)
        except Exception:
            self.put_back(rows)
            raise

    def take(self) -> list[Waiting]:
        """The waiting answers, for a caller that writes them in its own transaction (and puts them back if it fails)."""
        with self._lock:
            rows, self._pending = self._pending, []
        return rows

    def put_back(self, rows: list[Waiting]) -> None:
        with self._lock:
            self._pending = rows + self._pending

    def _flush_on_timer(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._timer is not None and self._timer[0] is loop:
            self._timer = None
        writing = asyncio.ensure_future(self._flush_off_loop())
        self._writing.add(writing)
        writing.add_done_callback(self._writing.discard)

    async def _flush_off_loop(self) -> None:
        try:
            await self.writer.run(self.flush)
        except Exception as exc:  # kept for the next flush or session save, which reports a failure
            log.warning("answer_write_deferred", waiting=len(self._pending), error=f"{type(exc).__name__}: {exc}")

    def keys(self, namespace: str) -> set[tuple[str, int]]:
        """(key, occurrence) of every answer recorded under ``namespace``."""
        self.flush()
        with Session(self.engine) as db:
            rows = db.exec(select(ModelCallEntry.key, ModelCallEntry.occurrence).where(ModelCallEntry.namespace == namespace))
            return {(key, occurrence) for key, occurrence in rows}

    def sessions(self, run_id: str) -> set[str]:
        """The session ids of ``run_id`` with committed answers (one index range over ``<run>/...``; nothing waiting is flushed)."""
        start, end = f"{run_id}/", f"{run_id}0"  # '0' follows '/'
        with Session(self.engine) as db:
            ordered = bytewise(ModelCallEntry.namespace, self.engine.dialect.name)  # type: ignore[arg-type]  # the class attribute is the column at run time; SQLModel types it as str
            rows = db.exec(select(ModelCallEntry.namespace).where(ordered >= start, ordered < end).distinct())
            return {namespace.removeprefix(start) for namespace in rows}

    def generations(self, namespace: str, key: str, occurrence: int) -> str | None:
        """The serialized answer recorded under ``namespace`` for ``key``'s ``occurrence``-th call, if any."""
        self.flush()
        with Session(self.engine) as db:
            return db.exec(
                select(ModelCallEntry.generations).where(
                    ModelCallEntry.namespace == namespace,
                    ModelCallEntry.key == key,
                    ModelCallEntry.occurrence == occurrence,
                )
            ).first()

    def forget(self, run_id: str) -> None:
        """Delete every answer recorded for ``run_id``."""
        self.flush()
        with self.engine.begin() as db:
            db.execute(delete(ModelCallEntry).where(col(ModelCallEntry.namespace).startswith(f"{run_id}/")))


def write_answers(db: Any, waiting: list[Waiting], lost: set[Fence] | None = None) -> None:
    """Insert answers taken from :class:`RecordedAnswers` through a connection (one statement); an answer already
    recorded under the same (namespace, key, occurrence) stays, as the cache's own rule says (two writers of a shared
    namespace, such as the runs of a sweep summarising one odyssey task, may record the same answer). Answers recorded
    under a lease this process no longer holds are left out: those in ``lost``, as the caller read them in this
    transaction (:func:`~proactive_bench.store.lease.check_fence`), else read here as the transaction's first write
    (:func:`~proactive_bench.store.lease.lost_fences`)."""
    if not waiting:
        return
    if lost is None:
        lost = lost_fences(db, answer_fences(waiting))
    rows = [row for fences, row in waiting if lost.isdisjoint(fences)]
    if len(rows) < len(waiting):
        dropped = sorted({fence.scope for fences, _ in waiting for fence in fences if fence in lost})
        log.warning("answers_dropped_lease_lost", answers=len(waiting) - len(rows), leases=dropped)
    direct(insert_ignoring(ModelCallEntry, db.dialect.name), db.dialect, ANSWER_COLUMNS, many=True).executemany(db, rows)


def answer_fences(waiting: list[Waiting]) -> set[Fence]:
    """Every lease the waiting answers are written under."""
    return {fence for fences, _ in waiting for fence in fences}


ANSWER_COLUMNS = ("namespace", "key", "occurrence", "generations")
"""The columns of a recorded answer's row (:meth:`RecordedAnswers.add`)."""
