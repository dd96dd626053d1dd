"""Recorded answers are written in bursts inside an event loop, at once outside one, and never lost by a flush."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, select

from proactive_bench.store import ModelCallEntry, Run, SessionRun, Store


def stored(store: Store) -> list[tuple[str, int]]:
    with Session(store.engine) as db:
        return [(e.key, e.occurrence) for e in db.exec(select(ModelCallEntry).order_by(ModelCallEntry.occurrence))]


def count_commits(store: Store) -> list[int]:
    commits = [0]
    event.listen(store.engine, "commit", lambda conn: commits.__setitem__(0, commits[0] + 1))
    return commits


async def test_answers_arriving_together_are_committed_together_on_the_writing_thread(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    commits = count_commits(store)
    threads: list[str] = []
    event.listen(store.engine, "commit", lambda conn: threads.append(threading.current_thread().name))
    for n in range(5):
        store.answers.add("run/s1", "k", n, "[]")
    assert stored(store) == []  # waiting for the burst to end
    await asyncio.sleep(store.answers.delay_s * 3)
    assert stored(store) == [("k", n) for n in range(5)] and commits[0] == 1
    assert [name.split("_")[0] for name in threads] == ["pbench-save"]  # off the event loop, in line with the session saves


async def test_flush_writes_what_is_waiting_and_leaves_the_timer_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    store.answers.add("run/s1", "k", 0, "[]")
    store.answers.flush()
    assert stored(store) == [("k", 0)]
    commits = count_commits(store)
    await asyncio.sleep(store.answers.delay_s * 3)
    assert commits[0] == 0  # nothing left for the timer to write


def test_an_answer_in_a_new_event_loop_is_written_when_the_last_loop_closed_before_its_timer(tmp_path: Path) -> None:
    """One process plays runs one ``asyncio.run`` after another (the oracle, the pytest plugin): a loop that closes
    before its timer fires must not leave the next loop's answers waiting for a flush."""
    store = Store(tmp_path / "r.db")

    async def record(occurrence: int, wait_s: float) -> list[tuple[str, int]]:
        store.answers.add("run/s1", "k", occurrence, "[]")
        await asyncio.sleep(wait_s)
        return stored(store)

    assert asyncio.run(record(0, 0)) == []  # its loop closed before the timer fired: the answer still waits
    assert asyncio.run(record(1, store.answers.delay_s * 3)) == [("k", 0), ("k", 1)]


def test_outside_an_event_loop_answers_are_written_at_once(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    store.answers.add("run/s1", "k", 0, "[]")
    assert stored(store) == [("k", 0)]


async def test_a_failed_write_keeps_the_answers_for_the_next_flush(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    writer = store.answers
    engine = writer.engine

    class Locked:
        def begin(self) -> Any:
            raise OperationalError("INSERT", {}, Exception("database is locked"))

    writer.engine = Locked()
    writer.add("run/s1", "k", 0, "[]")
    await asyncio.sleep(writer.delay_s * 3)  # the timer's write fails and is logged, not lost
    writer.engine = engine
    writer.flush()
    assert stored(store) == [("k", 0)]


async def test_a_session_save_writes_the_waiting_answers_in_its_transaction_or_keeps_them(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    run = Run(persona="p", model="m", user_backend="rules", data_root=".", workspace=".")
    store.add(run)
    store.answers.add("run/s1", "k", 0, "[]")
    commits = count_commits(store)
    with pytest.raises(IntegrityError):  # the session refers to a run that does not exist
        store.save_session(SessionRun(run_id="missing", session_id="s1", position=1), [], {})
    assert stored(store) == [] and commits[0] == 0
    store.save_session(SessionRun(run_id=run.id, session_id="s1", position=1, status="completed"), [], {})
    assert stored(store) == [("k", 0)] and commits[0] == 1
    await asyncio.sleep(store.answers.delay_s * 3)
    assert commits[0] == 1  # the timer found nothing left to write
