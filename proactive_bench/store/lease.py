"""Run and sweep ownership: one writer at a time, through a lease row in the results database.

``pbench episode``, ``sweep``, ``resume`` and ``replay`` take the lease of
what they write (a sweep's id, or a lone run's id) before any session runs,
renew it from a background thread every :data:`HEARTBEAT_S` seconds and
delete it when they end, Ctrl-C included. A second writer is refused with
:class:`LeaseHeld`, whose message names the holder. A lease whose holder is
gone is taken over (and logged): its heartbeat is older than
:data:`EXPIRY_S`, or it was taken on this host by a process that no longer
exists (``kill -9``).

Taking and renewing are conditional writes (an INSERT that fails on an
existing row; an UPDATE that names the owner token it expects), so the lease
works the same on SQLite and on PostgreSQL (tested on both with concurrent
takers). PostgreSQL's session advisory locks were not used: they belong to one
pooled connection rather than to the process, say nothing about their holder
for the refusal message, and do not exist on SQLite. Every session save
reads the lease in its own transaction and stops with :class:`LeaseLost`
when the owner token is no longer this process's (a *fenced* write): a writer
that lost its lease, such as a sweep worker outliving its parent, cannot add
rows next to the new owner's.
"""

from __future__ import annotations

import os
import secrets
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

import structlog
from sqlalchemy import Connection, bindparam, delete, insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Field, SQLModel

log = structlog.get_logger(__name__)

HEARTBEAT_S = 3.0
"""Seconds between renewals of a held lease."""
EXPIRY_S = 3 * HEARTBEAT_S
"""A lease not renewed for this long is stale and may be taken over."""
_TAKE_ATTEMPTS = 5


class Lease(SQLModel, table=True):
    """Who writes a run or sweep now: one row per held lease."""

    scope: str = Field(primary_key=True, description="The sweep id, or the run id of a run outside any sweep.")
    owner: str = Field(description="A random token of the holder; a save checks it (fencing).")
    pid: int
    host: str
    command: str
    taken: datetime
    heartbeat: datetime
    expires: datetime


class LeaseHeld(RuntimeError):
    """Another live process holds the lease; the message names it."""


class LeaseLost(RuntimeError):
    """This process's lease was taken over by another writer: it must stop writing."""


@dataclass(frozen=True, slots=True)
class Fence:
    """What a save checks: the lease of ``scope`` is still held by ``owner``."""

    scope: str
    owner: str


def lease_scope(run: Any) -> str:
    """The lease that covers a run: its sweep's, else its own (so a run is never resumed beside its sweep)."""
    return str(run.sweep_id or run.id)


Fences = Fence | tuple[Fence, ...]
"""What a writer's saves check: one lease, or several that must all still be its own (a Ray task: its sweep's and its run's)."""


def check_fence(db: Connection, fences: Fences) -> None:
    """Inside a write transaction: raise LeaseLost unless every fence's owner still holds its lease (one primary-key read each).

    SQLite serializes the transaction once it has written; other databases
    lock the row read here until commit (FOR SHARE), so a takeover waits.
    """
    for fence in fences if isinstance(fences, tuple) else (fences,):
        if db.execute(_owner_of(), {"scope": fence.scope}).scalar() != fence.owner:
            raise LeaseLost(f"{fence.scope}: another process took over this run's lease; this one stops without saving")


def holds(store: Any, fence: Fence) -> bool:
    """Whether ``fence.owner`` holds the lease of ``fence.scope`` in ``store`` now (outside any save: a waiting writer's check)."""
    with store.engine.connect() as db:
        return bool(db.execute(select(Lease.owner).where(Lease.scope == fence.scope)).scalar() == fence.owner)  # type: ignore[arg-type]


@cache
def _owner_of() -> Any:
    """The owner of a lease, read under a share lock; built once (this runs at every session save)."""
    return select(Lease.owner).where(Lease.scope == bindparam("scope")).with_for_update(read=True)  # type: ignore[arg-type]


class HeldLease:
    """A lease this process holds: :meth:`keep_alive` starts its heartbeat, :meth:`release` ends it."""

    def __init__(self, engine: Any, row: dict[str, Any]) -> None:
        self.engine = engine
        self.fence = Fence(row["scope"], row["owner"])
        self._stop = threading.Event()
        self._beating: threading.Thread | None = None

    def keep_alive(self) -> None:
        """Renew the lease every HEARTBEAT_S from a daemon thread (start it after forking any workers)."""
        if self._beating is None:
            self._beating = threading.Thread(target=self._beat, name="pbench-lease", daemon=True)
            self._beating.start()

    def release(self) -> None:
        """Stop renewing and delete the lease if it is still ours."""
        self._stop.set()
        if self._beating is not None:
            self._beating.join()
        try:
            with self.engine.begin() as db:
                db.execute(delete(Lease).where(Lease.scope == self.fence.scope, Lease.owner == self.fence.owner))  # type: ignore[arg-type]
        except SQLAlchemyError as exc:  # the lease then expires by itself; the caller's own error matters more
            log.warning("lease_release_failed", scope=self.fence.scope, error=f"{type(exc).__name__}: {exc}")

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            now = _now()
            try:
                with self.engine.begin() as db:
                    stmt = (
                        update(Lease)
                        .where(Lease.scope == self.fence.scope, Lease.owner == self.fence.owner)  # type: ignore[arg-type]
                        .values(heartbeat=now, expires=now + timedelta(seconds=EXPIRY_S))
                    )
                    renewed = db.execute(stmt).rowcount == 1
            except Exception as exc:  # noqa: BLE001 (a busy database: try again at the next beat)
                log.warning("lease_heartbeat_failed", scope=self.fence.scope, error=f"{type(exc).__name__}: {exc}")
                continue
            if not renewed:
                log.error("lease_lost", scope=self.fence.scope)
                return


def take_lease(engine: Any, scope: str, command: str | None = None) -> HeldLease:
    """Take the lease of ``scope``, taking over a stale one; LeaseHeld when a live process holds it."""
    for _ in range(_TAKE_ATTEMPTS):  # another taker may win between our read and our write: read again
        now = _now()
        mine = {
            "scope": scope, "owner": secrets.token_hex(16), "pid": os.getpid(), "host": socket.gethostname(),
            "command": command if command is not None else _command_line(), "taken": now, "heartbeat": now,
            "expires": now + timedelta(seconds=EXPIRY_S),
        }
        with engine.connect() as db:
            current = db.execute(select(Lease).where(Lease.scope == scope)).mappings().first()  # type: ignore[arg-type]
        try:
            with engine.begin() as db:
                if current is None:
                    db.execute(insert(Lease).values(mine))
                    return HeldLease(engine, mine)
                reason = stale_reason(current, now)
                if reason is None:
                    raise LeaseHeld(holder_message(current, now))
                stmt = update(Lease).where(Lease.scope == scope, Lease.owner == current["owner"]).values(mine)  # type: ignore[arg-type]
                if db.execute(stmt).rowcount == 1:
                    log.warning("lease_taken_over", scope=scope, reason=reason, pid=current["pid"], host=current["host"], since=str(current["taken"]))
                    return HeldLease(engine, mine)
        except IntegrityError:
            pass
    raise LeaseHeld(f"{scope}: could not take the lease (other writers kept taking it); try again")


def stale_reason(lease: Any, now: datetime) -> str | None:
    """Why a lease may be taken over (its heartbeat expired, or its holder on this host is dead), or None."""
    if _aware(lease["expires"]) <= now:
        return "heartbeat expired"
    if lease["host"] == socket.gethostname() and not pid_alive(lease["pid"]):
        return "holder process is gone"
    return None


def holder_message(lease: Any, now: datetime) -> str:
    ago = (now - _aware(lease["heartbeat"])).total_seconds()
    return (
        f"{lease['scope']} is being written by pid {lease['pid']} on {lease['host']} since "
        f"{_aware(lease['taken']).isoformat(timespec='seconds')} ({lease['command']}; heartbeat {ago:.0f}s ago); "
        f"wait for it to end or stop it (a lease whose holder died is taken over)"
    )


def pid_alive(pid: int) -> bool:
    """Whether a process of this host runs with that id (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):  # no /proc (macOS): kill(0) said it exists
        return True


def _command_line() -> str:
    return " ".join(["pbench", *sys.argv[1:]])[:200]


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without a zone; they were stored in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@contextmanager
def writing(store: Any, scope: str, *, beat: bool = True, within: Fence | None = None, command: str | None = None) -> Iterator[HeldLease]:
    """Hold the lease of ``scope`` while writing through ``store`` (its saves are fenced by it); released at exit.

    ``beat=False`` leaves starting the heartbeat to the caller (:meth:`HeldLease.keep_alive`), after it forks workers.
    ``within``: a lease someone else holds that the saves must check too (a Ray task's: its sweep driver's).
    ``command``: how the holder is named to writers it refuses (default: this process's command line).
    """
    held = take_lease(store.engine, scope, command)
    store.fence = (within, held.fence) if within is not None else held.fence
    try:
        if beat:
            held.keep_alive()
        yield held
    finally:
        store.fence = None
        held.release()
