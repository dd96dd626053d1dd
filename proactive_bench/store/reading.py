"""The store's reads of a run's sessions: session runs, their rows, audits and snapshots; and every read query together.

:class:`ReadQueries` is what the read-only commands need (``pbench runs``, ``sweeps``, ``results``): the full
:class:`~proactive_bench.store.database.Store` has it, and so has the SQLite :class:`~proactive_bench.store.reader.Reader`
that answers them without SQLAlchemy. Snapshots are read whole by replaying their chain of deltas (:func:`whole_snapshot`,
also what a save's next delta is made against, :mod:`~proactive_bench.store.snapshots`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from proactive_bench.store.codec import as_stored, decompress
from proactive_bench.store.lookup import LookupQueries
from proactive_bench.store.records import SESSION_RECORDS, StoredAudit, StoredSessionRun
from proactive_bench.store.runs import RunQueries
from proactive_bench.store.sql import SqlReads, one_of

CHAIN = 16
"""The most snapshots a read replays: every ``CHAIN``-th snapshot of a run and kind is stored whole."""
LATEST_PER_KIND = (
    "SELECT MAX(snapshot.id), snapshot.kind FROM snapshot JOIN sessionrun ON snapshot.session_run_id = sessionrun.id"
    " WHERE sessionrun.run_id = :run_id GROUP BY snapshot.kind"
)
"""The id of a run's last saved snapshot of each kind, with its kind (every kind: one statement text, compiled once, where a
list of kinds bound as an IN would be rendered again at every save)."""

Fetch = Callable[[str, Mapping[str, Any]], Sequence[Sequence[Any]]]
"""One statement run, its rows returned."""


class SessionReads(SqlReads):
    """The store's methods that read a run's session runs, their rows, audits and snapshots."""

    def session_runs(self, run_id: str) -> list[StoredSessionRun]:
        return self.select(StoredSessionRun, "run_id = :run", {"run": run_id}, "position")

    def rows(self, table: type[Any], session_run_id: int) -> list[Any]:
        """A session run's rows of one table (a record class of :data:`~proactive_bench.store.records.SESSION_RECORDS`, or
        the table's class), in the order they were written."""
        kind = SESSION_RECORDS[getattr(table, "TABLE", None) or table.__tablename__]
        return self.select(kind, "session_run_id = :session_run", {"session_run": session_run_id}, "id")

    def audits(self, run_ids: Sequence[str]) -> list[StoredAudit]:
        """Every audit of a session run of the given runs."""
        ids, params = one_of("run", run_ids)
        return self.select(StoredAudit, f"session_run_id IN (SELECT id FROM sessionrun WHERE run_id IN {ids})", params, "id")

    def snapshot(self, session_run_id: int, kind: str) -> dict[str, Any] | None:
        """A session run's snapshot of ``kind``, whole."""
        found = self._fetch("SELECT id FROM snapshot WHERE session_run_id = :id AND kind = :kind", {"id": session_run_id, "kind": kind})
        return self._whole(found[0][0] if found else None)

    def latest_snapshot(self, run_id: str, kind: str) -> dict[str, Any] | None:
        """The snapshot of ``kind`` that the run saved last, whole."""
        found = {row_kind: snapshot_id for snapshot_id, row_kind in self._fetch(LATEST_PER_KIND, {"run_id": run_id})}
        return self._whole(found.get(kind))

    def _whole(self, snapshot_id: int | None) -> dict[str, Any] | None:
        return None if snapshot_id is None else json.loads(whole_snapshot(self._fetch, snapshot_id)[0])


def whole_snapshot(fetch: Fetch, snapshot_id: int) -> tuple[bytes, int]:
    """A stored snapshot's JSON text, rebuilt through its chain of bases, and the chain's length (1: stored whole)."""
    chain: list[Any] = []
    next_id: int | None = snapshot_id
    while next_id is not None:
        content, next_id = fetch("SELECT content, base FROM snapshot WHERE id = :id", {"id": next_id})[0]
        chain.append(as_stored(content))
        if len(chain) > 10 * CHAIN:
            raise RuntimeError(f"snapshot {snapshot_id}: its chain of bases does not end")
    text = b""
    for content in reversed(chain):  # the whole one first
        if isinstance(content, str):  # written before compression: JSON text
            text = content.encode("utf-8")
        else:
            text = decompress(content, text or None)
    return text, len(chain)


class ReadQueries(LookupQueries, RunQueries, SessionReads):
    """Every read query of the store: finding runs and sweeps, reading their sessions, rows, audits and snapshots."""
