"""Clock: simulated time that advances as the agent works, and timed notices that fall due; no login.

The apps' ``app_clock`` row is the simulated time. :class:`VirtualClock` (the
run's ``ToolEnv.clock``) moves it forward by a fixed number of minutes per
tool call and per agent step; each ``clock_notice`` row (a task that arrives,
a meeting that starts, a deadline that passes) is delivered once, on the
first tool result after its time. The agent reads the time with
``clock__now`` and may wait with ``clock__wait_until`` (time never goes back).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Literal

from pydantic import BaseModel, Field as Arg, NaiveDatetime
from sqlmodel import Field, Session, col, select

from proactive_bench.env.apps.base import AppClock, AppModel, AppSpec, AppStore, NoArgs, now, register_app
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


def _advance(db: Session, moment: datetime) -> list[str]:
    """Move the clock to ``moment`` (never back) and deliver the notices due by then, oldest first."""
    current = now(db)
    if moment > current:
        db.merge(AppClock(id=1, now=moment))
        current = moment
    due = db.exec(
        select(ClockNotice)
        .where(col(ClockNotice.delivered).is_(False), col(ClockNotice.at) <= current)
        .order_by(col(ClockNotice.at), col(ClockNotice.id))
    ).all()
    for notice in due:
        notice.delivered = True
        db.add(notice)
    return [f"[{n.at.strftime('%H:%M')}] {n.text}" for n in due]


@dataclass
class VirtualClock:
    """The run's clock: each tick advances the apps' time at its rate and returns the notices that fell due."""

    apps: AppStore
    rates: ClockRates

    def tick(self, kind: Literal["call", "step"]) -> list[str]:
        minutes = self.rates.per_call_minutes if kind == "call" else self.rates.per_step_minutes
        with self.apps.db() as db:
            return _advance(db, now(db) + timedelta(minutes=minutes))


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
        notices = _advance(db, target)
        return {"now": now(db).isoformat(timespec="minutes"), "notices": notices}
