"""Session-end snapshots (workspace listing, memory, app state, burden) stored as compressed deltas against the run's previous one.

A snapshot's ``content`` is the zstd frame of its compact JSON; when
``base`` names the run's previous snapshot of the same kind, the frame was
made with that snapshot's JSON as a dictionary, so it holds only what
changed (an app state of 45 kB that a session touched costs under 1 kB).
Reading one replays its chain of bases, at most :data:`CHAIN` long (a whole
snapshot starts a new chain); saving does not, as the store remembers the
last snapshot it wrote per run and kind (:func:`remember`). Rows written
before compression hold their JSON as text and no base; they are read as
they are, and serve as bases.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, func, insert, select
from sqlmodel import col

from proactive_bench.store.codec import compress, decompress, dumps
from proactive_bench.store.tables import SessionRun, Snapshot

CHAIN = 16
"""The most snapshots a read replays: every ``CHAIN``-th snapshot of a run and kind is stored whole."""


class SnapshotQueries:
    """The :class:`~proactive_bench.store.database.Store` methods that read snapshots."""

    engine: Engine

    def snapshot(self, session_run_id: int, kind: str) -> dict[str, Any] | None:
        """A session run's snapshot of ``kind``, whole."""
        stmt = select(col(Snapshot.id)).where(col(Snapshot.session_run_id) == session_run_id, col(Snapshot.kind) == kind)
        return self._snapshot_by(stmt)

    def latest_snapshot(self, run_id: str, kind: str) -> dict[str, Any] | None:
        """The snapshot of ``kind`` that the run saved last, whole."""
        with self.engine.connect() as db:
            snapshot_id = _latest_per_kind(db, run_id).get(kind)
            return None if snapshot_id is None else json.loads(_whole(db, snapshot_id)[0])

    def _snapshot_by(self, stmt: Any) -> dict[str, Any] | None:
        with self.engine.connect() as db:
            snapshot_id = db.execute(stmt).scalars().first()
            return None if snapshot_id is None else json.loads(_whole(db, snapshot_id)[0])


@dataclass(frozen=True, slots=True)
class Written:
    """A snapshot as written: its row id, its whole JSON text and the length of its chain (1: stored whole)."""

    id: int
    text: bytes
    length: int


REMEMBERED = 2560
"""(run, kind) pairs whose last snapshot a process keeps: five kinds of 512 concurrent episodes (a Ray runner of a large sweep
holds hundreds; when the pairs cycle through fewer slots, every save replays its bases' chains). Tens of MB at most."""

LastWritten = dict[tuple[str, str], Written]
"""Per (run id, kind), the snapshot this process wrote last: the next one's base, without replaying its chain."""


def write_snapshots(
    db: Connection, run_id: str, session_run_id: int, snapshots: Sequence[dict[str, Any]], last: LastWritten
) -> LastWritten:
    """Inside a session's save: insert its snapshots (``kind`` and ``content`` each, one per kind), each a delta against the
    run's previous one of its kind, in two statements (the run's latest snapshot per kind; the inserts).

    ``last`` is what this process wrote before (used only when it is still the run's latest row); the return value is what
    to remember once the transaction commits.
    """
    if not snapshots:
        return {}
    previous = _latest_per_kind(db, run_id)
    rows, texts, lengths = [], [], []
    for snapshot in snapshots:
        key, text = (run_id, snapshot["kind"]), dumps(snapshot["content"])
        base: Written | None = None
        if snapshot["kind"] in previous:
            known = last.get(key)
            latest = previous[snapshot["kind"]]
            base = known if known is not None and known.id == latest else Written(latest, *_whole(db, latest))
            if base.length >= CHAIN:
                base = None
        rows.append(
            {
                "session_run_id": session_run_id,
                "kind": snapshot["kind"],
                "content": compress(text, base.text if base else None),
                "base": base.id if base else None,
            }
        )
        texts.append(text)
        lengths.append(1 + (base.length if base else 0))
    ids: dict[str, int] = {kind: id_ for id_, kind in db.execute(_insert_returning_ids(), rows)}
    return {(run_id, row["kind"]): Written(ids[row["kind"]], text, length) for row, text, length in zip(rows, texts, lengths, strict=True)}


def remember(last: LastWritten, written: LastWritten) -> None:
    """Keep what a committed save wrote as the next bases, the :data:`REMEMBERED` most recent (run, kind) pairs at most."""
    for key, snapshot in written.items():
        last.pop(key, None)
        last[key] = snapshot
    while len(last) > REMEMBERED:
        del last[next(iter(last))]


def _whole(db: Connection, snapshot_id: int) -> tuple[bytes, int]:
    """A stored snapshot's JSON text, rebuilt through its chain of bases, and the chain's length (1: stored whole)."""
    chain: list[Any] = []
    next_id: int | None = snapshot_id
    while next_id is not None:
        content, next_id = db.execute(_content_of(), {"id": next_id}).one()
        chain.append(content)
        if len(chain) > 10 * CHAIN:
            raise RuntimeError(f"snapshot {snapshot_id}: its chain of bases does not end")
    text = b""
    for content in reversed(chain):  # the whole one first
        if isinstance(content, str):  # written before compression: JSON text
            text = content.encode("utf-8")
        else:
            text = decompress(content, text or None)
    return text, len(chain)


@cache
def _content_of() -> Any:
    return select(col(Snapshot.content), col(Snapshot.base)).where(col(Snapshot.id) == bindparam("id"))


def _latest_per_kind(db: Connection, run_id: str) -> dict[str, int]:
    """Per kind, the id of the run's last saved snapshot of that kind."""
    return {kind: snapshot_id for snapshot_id, kind in db.execute(_latest_per_kind_query(), {"run_id": run_id})}


@cache
def _latest_per_kind_query() -> Any:
    """Every kind of a run's snapshots, with the id of its last one: one statement whose compiled form is reused (a list of
    kinds bound as an expanding IN would be rendered again at every save)."""
    return (
        select(func.max(Snapshot.id), col(Snapshot.kind))
        .join(SessionRun, col(Snapshot.session_run_id) == col(SessionRun.id))
        .where(col(SessionRun.run_id) == bindparam("run_id"))
        .group_by(Snapshot.kind)
    )


@cache
def _insert_returning_ids() -> Any:
    """A session's snapshots' INSERT, returning each one's id with its kind (one per kind: a unique key); built once.
    Returned in no particular order, so the rows go in one statement (in parameter order, SQLite would take a statement per row)."""
    return insert(Snapshot).returning(col(Snapshot.id), col(Snapshot.kind))
