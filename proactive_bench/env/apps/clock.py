"""Clock: simulated time that advances as the agent works, and timed notices that fall due; no login.

The apps' ``app_clock`` row is the simulated time. :class:`VirtualClock` (the
run's ``ToolEnv.clock``) moves it forward by a fixed number of minutes per
tool call and per agent step; each ``clock_notice`` row (a task that arrives,
a meeting that starts, a deadline that passes) is delivered once, on the
first tool result after its time. The agent reads the time with
``clock__now`` and may wait with ``clock__wait_until`` (time never goes back).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from typing import Literal, NamedTuple

from pydantic import BaseModel, Field as Arg, NaiveDatetime
from sqlmodel import Field, col, select

from proactive_bench.env.apps.base import (
    DEFAULT_NOW,
    AppModel,
    AppSpec,
    AppStore,
    NoArgs,
    driver_connection,
    now,
    read_time,
    register_app,
    stored_time,
    write_now,
)
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

APP = "clock"


class ClockNotice(AppModel, table=True):
    """An announcement that falls due at a simulated time."""

    __tablename__ = "clock_notice"
    id: int = Field(default=None, primary_key=True)
    at: NaiveDatetime
    text: str
    delivered: bool = False


register_app(AppSpec(APP, "Clock: the simulated time and timed notices.", (ClockNotice,), requires_login=False))


@dataclass(frozen=True)
class ClockRates:
    """Simulated minutes per tool call and per agent step (a model response)."""

    per_call_minutes: float = 2.0
    per_step_minutes: float = 1.0

    def __post_init__(self) -> None:
        if self.per_call_minutes < 0 or self.per_step_minutes < 0:
            raise ValueError("clock rates must not be negative")


_NOW_AND_NEXT_DUE = "SELECT (SELECT now FROM app_clock WHERE id = 1), (SELECT min(at) FROM clock_notice WHERE delivered IS 0)"
"""The stored time (NULL before the clock is set) and the earliest undelivered notice's time (NULL: none left)."""
_DUE = "SELECT at, text FROM clock_notice WHERE delivered IS 0 AND at <= ? ORDER BY at, id"
_DELIVER = "UPDATE clock_notice SET delivered = 1 WHERE delivered IS 0 AND at <= ?"
"""The notices due by a time, oldest first, and marking them delivered (the same rows, in one transaction)."""


def _advance(
    connection: sqlite3.Connection, to: Callable[[datetime], datetime], known: _Known | None = None
) -> tuple[datetime, list[str], _Known | None]:
    """Move the clock to ``to`` of its time (never back) and deliver the notices due by then, oldest first; the time it
    shows then, the notices, and the stored time and next notice's time now (None when notices were delivered: then
    the next one is not known without reading).

    In plain SQL statements on the sqlite3 connection, in its transaction (a tick per agent step and per tool call: an
    ORM session, then SQLAlchemy's connection, compiling and result handling were most of a tick's CPU); the rows
    written and the times read are SQLAlchemy's (:func:`stored_time`, :func:`read_time`). One statement reads the time
    and when the next undelivered notice falls due (unless ``known``: as the last tick left them, nothing written
    since): the notices are read only when one is due (most ticks deliver none)."""
    if known is None:
        stored_now, stored_next = connection.execute(_NOW_AND_NEXT_DUE).fetchone()
        known = _Known(None if stored_now is None else read_time(stored_now), None if stored_next is None else read_time(stored_next))
    stored, next_due = known
    current = DEFAULT_NOW if stored is None else stored
    moment = to(current)
    if moment > current:
        write_now(connection, moment)
        stored = current = moment
    if next_due is None or next_due > current:
        return current, [], _Known(stored, next_due)
    by = (stored_time(current),)
    due = connection.execute(_DUE, by).fetchall()
    connection.execute(_DELIVER, by)
    return current, [f"[{read_time(at).strftime('%H:%M')}] {text}" for at, text in due], None


class _Known(NamedTuple):
    """The stored time (None before the clock is set) and the earliest undelivered notice's time (None: none left)."""

    stored: datetime | None
    next_due: datetime | None


@dataclass
class VirtualClock:
    """The run's clock: each tick advances the apps' time at its rate and returns the notices that fell due.

    A tick remembers what it left (the time, the next notice) with the apps' changed-row count then: while the count
    stands still (nothing written since, in memory), the next tick does not read them again."""

    apps: AppStore
    rates: ClockRates
    _left: tuple[int, _Known] | None = field(default=None, init=False, repr=False, compare=False)

    def tick(self, kind: Literal["call", "step"]) -> list[str]:
        minutes = self.rates.per_call_minutes if kind == "call" else self.rates.per_step_minutes
        left = self._left
        with self.apps.driver() as connection:  # committed when the block ends, rolled back on error
            known = left[1] if left is not None and left[0] == self.apps.changes() else None
            _, notices, after = _advance(connection, lambda current: current + timedelta(minutes=minutes), known)
        changes = self.apps.changes()
        self._left = (changes, after) if changes is not None and after is not None else None
        return notices


class WaitArgs(BaseModel):
    until: str = Arg(description="The time to wait for: HH:MM today, or YYYY-MM-DDTHH:MM.")


def _target(text: str, today: datetime) -> datetime:
    try:
        if "T" in text or "-" in text:
            return datetime.fromisoformat(text.strip()).replace(tzinfo=None, second=0, microsecond=0)
        return datetime.combine(today.date(), time.fromisoformat(text.strip()))
    except ValueError:
        raise ToolError(f"until: expected HH:MM or YYYY-MM-DDTHH:MM, got {text!r}") from None


@register_tool("clock__now", group=APP)
def clock_now(env: ToolEnv, args: NoArgs) -> dict[str, object]:
    """The current simulated time and every notice delivered so far."""
    with env.require_apps().db() as db:
        delivered = db.exec(
            select(ClockNotice).where(col(ClockNotice.delivered).is_(True)).order_by(col(ClockNotice.at), col(ClockNotice.id))
        ).all()
        return {"now": now(db).isoformat(timespec="minutes"), "notices": [f"[{n.at.strftime('%H:%M')}] {n.text}" for n in delivered]}


@register_tool("clock__wait_until", group=APP)
def wait_until(env: ToolEnv, args: WaitArgs) -> dict[str, object]:
    """Wait (do nothing) until the given time; returns the time and the notices that fell due meanwhile."""
    with env.require_apps().db() as db:
        current = now(db)
        target = _target(args.until, current)
        if target < current:
            raise ToolError(f"it is already {current.isoformat(timespec='minutes')}; time does not go back")
        moved, notices, _ = _advance(driver_connection(db), lambda _: target)
        return {"now": moved.isoformat(timespec="minutes"), "notices": notices}
