"""Finding runs and sweeps: an id given as a unique prefix or ``latest``, and lists filtered by persona, model, status and age."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from proactive_bench.store.records import StoredRun, StoredSweep
from proactive_bench.store.sql import SqlReads, like_escaped, one_of

LATEST = "latest"
"""The id word that names the newest run or sweep."""
CANDIDATES_SHOWN = 8
"""How many matches an ambiguous prefix's error lists."""

Listed = TypeVar("Listed", StoredRun, StoredSweep)


class IdLookupError(LookupError):
    """An id that names no run or sweep, or more than one; the message is one line and lists the candidates."""


@dataclass(frozen=True)
class ListFilter:
    """What ``pbench runs`` and ``pbench sweeps`` keep: every given condition holds (None: any)."""

    persona: str | None = None
    model: str | None = None
    """Text the model name contains."""
    status: str | None = None
    since: datetime | None = None
    limit: int | None = None

    def of_runs(self, reads: SqlReads) -> list[tuple[str, dict[str, Any]]]:
        """The conditions on a run (SQL over ``run``'s columns, and their parameters): its persona and its model."""
        conditions = []
        if self.persona is not None:
            conditions.append((f"(persona = :persona OR {reads.json_text('config', 'persona')} = :persona)", {"persona": self.persona}))
        if self.model is not None:
            conditions.append(("model LIKE '%' || :model || '%' ESCAPE '/'", {"model": like_escaped(self.model)}))
        return conditions

    def of_rows(self, reads: SqlReads) -> list[tuple[str, dict[str, Any]]]:
        """The conditions on a run's or a sweep's own row: its status and when it started."""
        conditions = []
        if self.status is not None:
            conditions.append(("status = :status", {"status": self.status}))
        if self.since is not None:
            conditions.append(("created >= :since", {"since": reads.when(self.since)}))
        return conditions


class LookupQueries(SqlReads):
    """The store's methods that find runs and sweeps."""

    def resolve(self, ident: str, runs: bool = True, sweeps: bool = True) -> StoredRun | StoredSweep:
        """The run or sweep ``ident`` names: a whole id, a unique prefix of one, or ``latest``.

        ``latest`` is the newest sweep or the newest run outside a sweep,
        whichever started last; with ``sweeps=False`` the newest run of any kind.
        Raises :class:`IdLookupError` when nothing or more than one thing matches.
        """
        what = " or ".join(kind for kind, wanted in (("sweep", sweeps), ("run", runs)) if wanted)
        if ident == LATEST:
            found = self._latest(runs, sweeps)
            if found is None:
                raise IdLookupError(f"{self.name}: no {what} yet, so nothing is 'latest'")
            return found
        kinds: list[type[StoredRun] | type[StoredSweep]] = [kind for kind, wanted in ((StoredSweep, sweeps), (StoredRun, runs)) if wanted]
        for kind in kinds:
            if exact := self.select(kind, "id = :id", {"id": ident}):
                return exact[0]
        matches: list[StoredRun | StoredSweep] = []
        for kind in kinds if ident else []:
            matches += self.select(kind, "id LIKE :prefix || '%' ESCAPE '/'", {"prefix": like_escaped(ident)}, "created")
        if not matches:
            raise IdLookupError(f"{self.name}: no {what} {ident!r}")
        if len(matches) > 1:
            listed = ", ".join(f"{'sweep' if isinstance(m, StoredSweep) else 'run'} {m.id}" for m in matches[:CANDIDATES_SHOWN])
            more = f" and {len(matches) - CANDIDATES_SHOWN} more" if len(matches) > CANDIDATES_SHOWN else ""
            raise IdLookupError(f"{self.name}: {ident!r} is ambiguous: {listed}{more}; give more of the id")
        return matches[0]

    def _latest(self, runs: bool, sweeps: bool) -> StoredRun | StoredSweep | None:
        newest: list[StoredRun | StoredSweep] = []
        if runs:
            newest += self.select(StoredRun, "sweep_id IS NULL" if sweeps else "", order="created DESC LIMIT 1")
        if sweeps:
            newest += self.select(StoredSweep, order="created DESC LIMIT 1")
        return max(newest, key=lambda row: row.created, default=None)

    def find_runs(self, wanted: ListFilter) -> list[StoredRun]:
        """Runs newest first: of a persona (its id or the episode it was asked for by), whose model contains the text, with a status, started since."""
        return self._newest(StoredRun, [*wanted.of_runs(self), *wanted.of_rows(self)], wanted.limit)

    def find_sweeps(self, wanted: ListFilter) -> list[StoredSweep]:
        """Sweeps newest first: with a run of the persona, with a run whose model contains the text, with a status, started since."""
        of_runs = [(f"id IN (SELECT sweep_id FROM run WHERE {sql})", params) for sql, params in wanted.of_runs(self)]
        return self._newest(StoredSweep, [*of_runs, *wanted.of_rows(self)], wanted.limit)

    def _newest(self, kind: type[Listed], conditions: list[tuple[str, dict[str, Any]]], limit: int | None) -> list[Listed]:
        params = {key: value for _, given in conditions for key, value in given.items()}
        if limit is not None:
            params["limit"] = limit
        return self.select(
            kind, " AND ".join(sql for sql, _ in conditions), params, "created DESC" + (" LIMIT :limit" if limit is not None else "")
        )

    def run_costs(self, run_ids: list[str]) -> dict[str, float]:
        """USD spent per run on priced model calls; a run without any is left out."""
        ids, params = one_of("run", run_ids)
        sql = f"SELECT run_id, SUM(cost_usd) FROM llmcall WHERE run_id IN {ids} AND cost_usd IS NOT NULL GROUP BY run_id"
        return {run_id: float(cost) for run_id, cost in self._fetch(sql, params) if cost is not None}
