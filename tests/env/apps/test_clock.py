"""The virtual clock: a tick advances the apps' time and delivers the notices due, whatever was written between ticks."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("in_file", [False, True], ids=["memory", "file"])
def test_the_clock_writes_and_reads_times_as_a_session_does(tmp_path: Path, in_file: bool) -> None:
    """Ticks and ``set_clock`` store SQLAlchemy's text of a time (``YYYY-MM-DD HH:MM:SS.ffffff``, microseconds kept), in
    memory and in a file, and compare it with the times a session wrote (a notice due at the very moment is delivered)."""
    apps = AppStore(tmp_path / "apps.db" if in_file else None)
    clock = VirtualClock(apps, ClockRates(per_call_minutes=2, per_step_minutes=1))
    apps.set_clock(datetime(2026, 3, 2, 9, 0, 30, 250))
    with apps.db() as db:
        db.add(ClockNotice(at=datetime(2026, 3, 2, 9, 3, 30, 250), text="stand-up"))
        db.add(ClockNotice(at=datetime(2026, 3, 2, 9, 1), text="coffee"))
    assert clock.tick("call") == ["[09:01] coffee"]
    assert clock.tick("step") == ["[09:03] stand-up"] and _now(apps) == datetime(2026, 3, 2, 9, 3, 30, 250)
    with apps.db() as db:
        stored = db.connection().exec_driver_sql("SELECT now FROM app_clock").all()
        notices = db.connection().exec_driver_sql("SELECT at, delivered FROM clock_notice ORDER BY id").all()
    assert stored == [("2026-03-02 09:03:30.000250",)]
    assert notices == [("2026-03-02 09:03:30.000250", 1), ("2026-03-02 09:01:00.000000", 1)]
