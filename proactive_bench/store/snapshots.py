"""Session-end snapshots (workspace listing, memory, app state, burden) stored as compressed deltas against the run's previous one.

A snapshot's ``content`` is the zstd frame of its compact JSON; when
``base`` names the run's previous snapshot of the same kind, the frame was
made with that snapshot's JSON as a dictionary, so it holds only what
changed (an app state of 45 kB that a session touched costs under 1 kB).
Reading one (:class:`~proactive_bench.store.reading.SessionReads`) replays its chain of bases, at most ``CHAIN`` long (a whole
snapshot starts a new chain); saving does not, as the store remembers the
last snapshot it wrote per run and kind (:func:`remember`). Rows written
before compression hold their JSON as text and no base; they are read as
they are, and serve as bases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import Connection, bindparam, insert, text as sql_text

from proactive_bench.store.codec import compress, dumps
from proactive_bench.store.direct import direct
from proactive_bench.store.reading import CHAIN, LATEST_PER_KIND, whole_snapshot
from proactive_bench.store.tables import Snapshot


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
    previous: dict[str, int] = {
        kind: snapshot_id for snapshot_id, kind in direct(_latest_per_kind(), db.dialect).execute(db, {"run_id": run_id})
    }
    rows, texts, lengths = [], [], []
    for snapshot in snapshots:
        key, text = (run_id, snapshot["kind"]), dumps(snapshot["content"])
        base: Written | None = None
        if snapshot["kind"] in previous:
            known = last.get(key)
            latest = previous[snapshot["kind"]]
            base = known if known is not None and known.id == latest else Written(latest, *whole_snapshot(_fetch_on(db), latest))
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
    numbered = {f"{column}{n}": value for n, row in enumerate(rows) for column, value in row.items()}
    ids: dict[str, int] = {kind: id_ for id_, kind in direct(_insert_returning_ids(len(rows)), db.dialect).execute(db, numbered)}
    return {(run_id, row["kind"]): Written(ids[row["kind"]], text, length) for row, text, length in zip(rows, texts, lengths, strict=True)}


def remember(last: LastWritten, written: LastWritten) -> None:
    """Keep what a committed save wrote as the next bases, the :data:`REMEMBERED` most recent (run, kind) pairs at most."""
    for key, snapshot in written.items():
        last.pop(key, None)
        last[key] = snapshot
    while len(last) > REMEMBERED:
        del last[next(iter(last))]


def _fetch_on(db: Connection) -> Any:
    """The reads' ``fetch`` (:data:`~proactive_bench.store.reading.Fetch`) inside this transaction."""

    def fetch(sql: str, params: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
        return db.execute(sql_text(sql), params).all()

    return fetch


@cache
def _latest_per_kind() -> Any:
    """:data:`~proactive_bench.store.reading.LATEST_PER_KIND` as a statement, made once (not parsed again at every save)."""
    return sql_text(LATEST_PER_KIND)


@cache
def _insert_returning_ids(count: int) -> Any:
    """An INSERT of ``count`` snapshots in one statement (parameters ``session_run_id0``, ``kind0``, ``content0``,
    ``base0``, ...), returning each one's id with its kind (one per kind: a unique key); built once per count.
    One statement for all: several would each be a round trip to a database server."""
    table = Snapshot.__table__  # type: ignore[attr-defined]  # SQLModel sets __table__ on table classes; its stubs do not declare it
    rows = [{column: bindparam(f"{column}{n}", type_=table.c[column].type) for column in SNAPSHOT_COLUMNS} for n in range(count)]
    return insert(table).values(rows).returning(table.c.id, table.c.kind)


SNAPSHOT_COLUMNS = ("session_run_id", "kind", "content", "base")
"""The columns a session's save sets in a snapshot's row."""
