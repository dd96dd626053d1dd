"""The virtual clock: a tick advances the apps' time and delivers the notices due, whatever was written between ticks."""

from __future__ import annotations

from datetime import datetime

from proactive_bench.env.apps.base import AppStore, now
from proactive_bench.env.apps.clock import ClockNotice, ClockRates, VirtualClock


def _now(apps: AppStore) -> datetime:
    with apps.db() as db:
        return now(db)


def test_a_tick_sees_the_time_and_the_notices_written_since_the_last_tick() -> None:
    """A tick need not read what the last tick left while nothing was written since; a write in between is read."""
    apps = AppStore()
    clock = VirtualClock(apps, ClockRates(per_call_minutes=2, per_step_minutes=0))
    apps.set_clock(datetime(2026, 3, 2, 9, 0))
    assert clock.tick("call") == [] and _now(apps) == datetime(2026, 3, 2, 9, 2)
    assert clock.tick("step") == [] and clock.tick("call") == [] and _now(apps) == datetime(2026, 3, 2, 9, 4)
    apps.set_clock(datetime(2026, 3, 2, 10, 0))  # moved by another writer: the next tick starts from there
    assert clock.tick("call") == [] and _now(apps) == datetime(2026, 3, 2, 10, 2)
    with apps.db() as db:  # a notice due at the next tick, added between ticks
        db.add(ClockNotice(at=datetime(2026, 3, 2, 10, 3), text="stand-up"))
    assert clock.tick("call") == ["[10:03] stand-up"] and _now(apps) == datetime(2026, 3, 2, 10, 4)
    assert clock.tick("call") == []  # delivered once
    with apps.db() as db:
        db.add(ClockNotice(at=datetime(2026, 3, 2, 10, 9), text="review"))
    assert clock.tick("call") == [] and clock.tick("call") == ["[10:09] review"]
