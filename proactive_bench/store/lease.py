"""Run and sweep ownership: one writer at a time, through a lease row in the results database.

``pbench episode``, ``sweep``, ``resume`` and ``replay`` take the lease of
what they write (a sweep's id, or a lone run's id) before any session runs,
renew it every :data:`HEARTBEAT_S` seconds (one background thread per process renews all its leases) and
delete it when they end, Ctrl-C included. A second writer is refused with
:class:`LeaseHeld`, whose message names the holder. A lease whose holder is
gone is taken over (and logged); whether it is gone is decided by
:func:`stale_reason`:

- taken on this host since its last boot (same host name and Linux boot id,
  ``/proc/sys/kernel/random/boot_id``): by its process alone. A holder whose
  process no longer exists (``kill -9``), or whose pid now belongs to another
  process (another start time, ``/proc/PID/stat``), is gone at once; a live
  holder is never taken over, however stale its heartbeat (a process stopped
  or stalled under load still owns what it writes; stop it to take over).
- taken on another host, on this host before a restart (another boot id: its
  pid may have been reused since), or where no boot id is known (no ``/proc``,
  or a lease of an older pbench): by its heartbeat, older than
  :data:`EXPIRY_S`; a dead pid on this host still counts as gone at once.

Taking and renewing are conditional writes (an INSERT that leaves an
existing row alone; an UPDATE that names the owner token it expects), so the lease
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
import time
from collections.abc import AsyncIterator, Collection, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache, partial
from pathlib import Path
from typing import Any

from sqlalchemy import BigInteger, Column, Connection, bindparam, delete, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Field, SQLModel, col

from proactive_bench.logs import get_logger
from proactive_bench.store.direct import direct
from proactive_bench.store.engine import insert_ignoring

log = get_logger(__name__)

HEARTBEAT_S = 3.0
"""Seconds between renewals of a held lease."""
EXPIRY_S = 3 * HEARTBEAT_S
"""A lease not renewed for this long is stale and may be taken over."""
_TAKE_ATTEMPTS = 5
BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")


class Lease(SQLModel, table=True):
    """Who writes a run or sweep now: one row per held lease."""

    scope: str = Field(primary_key=True, description="The sweep id, or the run id of a run outside any sweep.")
    owner: str = Field(description="A random token of the holder; a save checks it (fencing).")
    pid: int
    host: str
    boot_id: str | None = Field(default=None, description="The holder's host's boot id (Linux); None where unknown.")
    started: int | None = Field(
        default=None, sa_column=Column(BigInteger, nullable=True), description="The holder process's start, in clock ticks after boot."
    )
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


def check_fence(db: Connection, fences: Fences, others: Collection[Fence] = ()) -> set[Fence]:
    """Inside a write transaction that has written: raise LeaseLost unless every fence's owner still holds its lease;
    those of ``others`` (the waiting answers' fences, say) no longer held, read in the same statement (one primary-key read for all).

    SQLite serializes the transaction once it has written; other databases
    lock the rows read here until commit (FOR SHARE), so a takeover waits.
    """
    checked = fence_tuple(fences)
    lost = _lost(db, {*checked, *others})
    for fence in checked:
        if fence in lost:
            raise LeaseLost(f"{fence.scope}: another process took over this run's lease; this one stops without saving")
    return lost


def fence_tuple(fences: Fences) -> tuple[Fence, ...]:
    """One fence or several, as a tuple."""
    return fences if isinstance(fences, tuple) else (fences,)


def lost_fences(db: Connection, fences: Collection[Fence]) -> set[Fence]:
    """Inside a write transaction: those of ``fences`` whose owner no longer holds the lease (none raised: a writer of
    several runs' rows, such as the recorded answers' flush, drops only the rows of the runs it lost).

    On SQLite the fences' lease rows are touched first (an UPDATE that changes no value): that takes the database's
    write lock, so no takeover commits between this read and the caller's writes. Other databases lock the rows read
    until commit (FOR SHARE), so a takeover waits for the caller's transaction.
    """
    if not fences:
        return set()
    if db.dialect.name == "sqlite":
        for chunk in _chunks(sorted({fence.scope for fence in fences})):
            direct(_touch_leases(len(chunk)), db.dialect).execute(db, chunk)
    return _lost(db, fences)


def _lost(db: Connection, fences: Collection[Fence]) -> set[Fence]:
    """Those of ``fences`` whose owner no longer holds the lease, read under a share lock."""
    owners: dict[str, str] = {}
    for chunk in _chunks(sorted({fence.scope for fence in fences})):
        owners.update(direct(_owners_of(len(chunk)), db.dialect).execute(db, chunk))
    return {fence for fence in fences if owners.get(fence.scope) != fence.owner}


def holds(store: Any, fence: Fence) -> bool:
    """Whether ``fence.owner`` holds the lease of ``fence.scope`` in ``store`` now (outside any save: a waiting writer's check)."""
    with store.engine.connect() as db:
        return _owner(db, fence.scope) == fence.owner


def _owner(db: Connection, scope: str) -> str | None:
    """Who holds the lease of ``scope`` (its owner token), or None."""
    found = direct(_owner_of(), db.dialect).execute(db, {"scope": scope})
    return str(found[0][0]) if found else None


@cache
def _owner_of() -> Any:
    """The owner of one lease (parameter ``scope``); built once (a Ray runner reads its sweep's at every run's start)."""
    return select(col(Lease.owner)).where(col(Lease.scope) == bindparam("scope"))


@cache
def _delete_held() -> Any:
    """The DELETE of one lease (parameters ``scope`` and ``owner``) if its owner still holds it; built once (a Ray runner
    releases a lease at every run's end)."""
    return delete(Lease).where(col(Lease.scope) == bindparam("scope"), col(Lease.owner) == bindparam("owner"))


SCOPES_PER_STATEMENT = 512
"""The most lease scopes one statement names (bound parameters stay well under every database's limit)."""


def _chunks(scopes: list[str]) -> Iterator[dict[str, str]]:
    """Scopes as the parameters of :func:`_owners_of` or :func:`_touch_leases`: at most SCOPES_PER_STATEMENT a chunk, each
    chunk padded to a power of two by repeating its last scope (the same rows; a statement per size, not per count)."""
    for start in range(0, len(scopes), SCOPES_PER_STATEMENT):
        chunk = scopes[start : start + SCOPES_PER_STATEMENT]
        size = 1 << (len(chunk) - 1).bit_length()
        yield {f"scope{n}": chunk[min(n, len(chunk) - 1)] for n in range(size)}


@cache
def _owners_of(count: int) -> Any:
    """The owners of ``count`` leases (parameters ``scope0``...), read under a share lock; built once per count (this runs at every session save)."""
    scopes: list[Any] = [bindparam(f"scope{n}") for n in range(count)]
    return select(col(Lease.scope), col(Lease.owner)).where(col(Lease.scope).in_(scopes)).with_for_update(read=True)


@cache
def _touch_leases(count: int) -> Any:
    """An UPDATE of ``count`` leases' rows that changes no value (SQLite: the write lock); built once per count."""
    return update(Lease).where(col(Lease.scope).in_([bindparam(f"scope{n}") for n in range(count)])).values(owner=col(Lease.owner))


class HeldLease:
    """A lease this process holds: :meth:`keep_alive` has it renewed, :meth:`release` ends it."""

    def __init__(self, engine: Any, row: dict[str, Any]) -> None:
        self.engine = engine
        self.fence = Fence(row["scope"], row["owner"])

    def keep_alive(self) -> None:
        """Have the process's heartbeat renew the lease every HEARTBEAT_S (start it after forking any workers)."""
        with _heartbeats_lock:
            _heartbeats.setdefault(id(self.engine), Heartbeat(self.engine)).add(self)

    def release(self) -> None:
        """Stop renewing and delete the lease if it is still ours."""
        with _heartbeats_lock:
            beating = _heartbeats.get(id(self.engine))
            if beating is not None:
                beating.discard(self)
        try:
            with self.engine.begin() as db:
                direct(_delete_held(), db.dialect).execute(db, {"scope": self.fence.scope, "owner": self.fence.owner})
        except SQLAlchemyError as exc:  # the lease then expires by itself; the caller's own error matters more
            log.warning("lease_release_failed", scope=self.fence.scope, error=f"{type(exc).__name__}: {exc}")


class Heartbeat:
    """One daemon thread renewing every lease a process holds on one database, in one statement per beat.

    A Ray runner holds a lease per run, hundreds at once: a thread and a
    transaction per lease cost more CPU than the runs themselves. A lease found
    taken over is logged and dropped (its saves then fail fenced). The thread
    ends, and the heartbeat leaves the process's registry, once no lease is left.
    """

    RENEW_CHUNK = 500
    """Leases renewed per statement (bound parameters stay well under every database's limit)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.leases: dict[Fence, HeldLease] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, held: HeldLease) -> None:
        """Renew ``held`` from now on (the caller holds the registry's lock)."""
        with self._lock:
            self.leases[held.fence] = held
            if self._thread is None:
                self._thread = threading.Thread(target=self._beat, name="pbench-lease", daemon=True)
                self._thread.start()

    def discard(self, held: HeldLease) -> None:
        with self._lock:
            self.leases.pop(held.fence, None)

    def _beat(self) -> None:
        while True:
            time.sleep(HEARTBEAT_S)
            with _heartbeats_lock, self._lock:
                fences = list(self.leases)
                if not fences:
                    self._thread = None
                    if _heartbeats.get(id(self.engine)) is self:
                        del _heartbeats[id(self.engine)]
                    return
            try:
                lost = self.renew(fences)
            except Exception as exc:  # a busy database: try again at the next beat
                log.warning("lease_heartbeat_failed", leases=len(fences), first=fences[0].scope, error=f"{type(exc).__name__}: {exc}")
                continue
            with self._lock:
                for fence in lost:
                    if self.leases.pop(fence, None) is not None:  # not released meanwhile
                        log.error("lease_lost", scope=fence.scope)

    def renew(self, fences: list[Fence]) -> list[Fence]:
        """Renew the fences' leases now; those no longer held by their owner (taken over, or deleted)."""
        now = _now()
        renewed: set[tuple[str, str]] = set()
        with self.engine.begin() as db:
            for start in range(0, len(fences), self.RENEW_CHUNK):
                chunk = fences[start : start + self.RENEW_CHUNK]
                scopes, owners = (
                    [f.scope for f in chunk],
                    [f.owner for f in chunk],
                )  # owner tokens are random: a pair matches only its own row
                mine = (col(Lease.scope).in_(scopes), col(Lease.owner).in_(owners))
                if db.execute(update(Lease).where(*mine).values(heartbeat=now, expires=now + timedelta(seconds=EXPIRY_S))).rowcount == len(
                    chunk
                ):
                    renewed.update((f.scope, f.owner) for f in chunk)
                else:
                    renewed.update((scope, owner) for scope, owner in db.execute(select(col(Lease.scope), col(Lease.owner)).where(*mine)))
        return [fence for fence in fences if (fence.scope, fence.owner) not in renewed]


_heartbeats: dict[int, Heartbeat] = {}
"""The process's heartbeats by engine (an engine in here is alive: its heartbeat holds it)."""
_heartbeats_lock = threading.Lock()


def _forget_heartbeats() -> None:
    """In a forked child: the parent's heartbeat threads do not run here, and its leases are not the child's to renew."""
    global _heartbeats_lock
    _heartbeats.clear()
    _heartbeats_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_heartbeats)


def take_lease(engine: Any, scope: str, command: str | None = None, *, within: Fence | None = None) -> HeldLease:
    """Take the lease of ``scope``, taking over a stale one; LeaseHeld when a live process holds it.

    ``within``: a lease someone else holds that must be held still (a Ray runner's: its sweep driver's); LeaseLost
    when it is not, and nothing is taken. A free lease is taken in one transaction (an INSERT that leaves an existing
    row alone, then the ``within`` read): one connection and commit per run. Only a lease already there is read apart,
    and taken over by a conditional UPDATE when its holder is gone.
    """
    for _ in range(_TAKE_ATTEMPTS):  # another taker may win between our read and our write: read again
        now = _now()
        mine = {
            "scope": scope,
            "owner": secrets.token_hex(16),
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "boot_id": boot_id(),
            "started": process_started(os.getpid()),
            "command": command if command is not None else _command_line(),
            "taken": now,
            "heartbeat": now,
            "expires": now + timedelta(seconds=EXPIRY_S),
        }
        with engine.begin() as db:  # the write first: on SQLite the transaction holds the write lock from its first statement
            taken = bool(direct(_insert_free(db.dialect.name), db.dialect, tuple(mine)).execute(db, mine))
            if within is not None and _owner(db, within.scope) != within.owner:  # rolled back: nothing taken
                raise LeaseLost(f"{within.scope}: its holder (the sweep's driver) no longer holds it; {scope} is left for pbench resume")
            if taken:
                return HeldLease(engine, mine)
        with engine.connect() as db:
            current = db.execute(select(Lease).where(col(Lease.scope) == scope)).mappings().first()
        if current is None:  # released meanwhile: insert again
            continue
        try:
            with engine.begin() as db:
                reason = stale_reason(current, now)
                if reason is None:
                    raise LeaseHeld(holder_message(current, now))
                stmt = update(Lease).where(col(Lease.scope) == scope, col(Lease.owner) == current["owner"]).values(mine)
                if db.execute(stmt).rowcount == 1:
                    log.warning(
                        "lease_taken_over",
                        scope=scope,
                        reason=reason,
                        pid=current["pid"],
                        host=current["host"],
                        since=str(current["taken"]),
                    )
                    return HeldLease(engine, mine)
        except IntegrityError:
            pass
    raise LeaseHeld(f"{scope}: could not take the lease (other writers kept taking it); try again")


@cache
def _insert_free(dialect: str) -> Any:
    """An INSERT of a lease that leaves an existing row of its scope alone, returning the scope when it inserted (a
    driver's row count of such an INSERT is not reliable); built once per dialect."""
    return insert_ignoring(Lease, dialect).returning(col(Lease.scope))


def stale_reason(lease: Any, now: datetime) -> str | None:
    """Why a lease may be taken over, or None (see the module's rules): on this host and boot its process decides,
    elsewhere its heartbeat."""
    if lease["host"] == socket.gethostname():
        this_boot = boot_id()
        if this_boot is not None and lease["boot_id"] == this_boot:
            return None if holder_alive(lease["pid"], lease["started"]) else "holder process is gone"
        if lease["boot_id"] is None and not pid_alive(lease["pid"]):
            return "holder process is gone"
    if _aware(lease["expires"]) <= now:
        return "heartbeat expired"
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


def holder_alive(pid: int, started: int | None) -> bool:
    """Whether the process that took a lease on this boot still runs: its pid is alive and, when its start time was
    recorded and can be read now, started then (not a later process given the same pid)."""
    if not pid_alive(pid):
        return False
    now_started = process_started(pid) if started is not None else None
    return now_started is None or now_started == started


@cache
def boot_id() -> str | None:
    """This host's boot id (Linux: a new random id at every boot), or None where there is none to read."""
    try:
        return BOOT_ID_FILE.read_text(encoding="ascii").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def process_started(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks after boot (field 22 of ``/proc/PID/stat``); None without it."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[19])  # the fields after the command name start at field 3
    except (OSError, IndexError, ValueError):
        return None


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
    ``within``: a lease someone else holds that the saves must check too (a Ray runner's: its sweep driver's).
    ``command``: how the holder is named to writers it refuses (default: this process's command line).
    """
    held = take_lease(store.engine, scope, command)
    try:
        with _fencing(store, held, within, beat):
            yield held
    finally:
        held.release()


def lease_run(store: Any, run_id: str, command: str | None = None, *, within: Fence | None = None) -> tuple[HeldLease, Any]:
    """Take the lease of run ``run_id`` in ``store`` (as :func:`take_lease`) and read the run under it: the lease and the
    run as stored once held (None: not stored). The lease is released again when the read fails. Called on the store's
    writing thread by a run of an event loop, so that its read waits behind no other run's lease."""
    held = take_lease(store.engine, run_id, command, within=within)
    try:
        return held, store.run(run_id)
    except BaseException:
        held.release()
        raise


@asynccontextmanager
async def writing_in_loop(store: Any, scope: str, *, within: Fence | None = None, command: str | None = None) -> AsyncIterator[HeldLease]:
    """:func:`writing` for one of many runs on an event loop: the lease is taken and released on the store's writing
    thread (``Store.writer``), so the loop's other runs go on meanwhile. LeaseLost when ``within`` is no longer held."""

    held = await store.writer.run(partial(take_lease, store.engine, scope, command, within=within))
    async with holding_in_loop(store, held, within=within):
        yield held


@asynccontextmanager
async def holding_in_loop(store: Any, held: HeldLease, *, within: Fence | None = None) -> AsyncIterator[HeldLease]:
    """A lease taken on the store's writing thread, held by one of many runs on an event loop: ``store``'s saves fenced
    by it (and ``within``), the heartbeat renewing it, released on the writing thread at exit."""
    try:
        with _fencing(store, held, within, beat=True):
            yield held
    finally:
        await store.writer.run(held.release)


@contextmanager
def _fencing(store: Any, held: HeldLease, within: Fence | None, beat: bool) -> Iterator[None]:
    """``store``'s saves fenced by ``held`` (and ``within``), renewed by the heartbeat when ``beat``, until exit."""
    store.fence = (within, held.fence) if within is not None else held.fence
    try:
        if beat:
            held.keep_alive()
        yield
    finally:
        store.fence = None
