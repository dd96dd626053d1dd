"""A sweep's driver counts finished sessions from the store: each once, only its own runs', only final outcomes."""

from __future__ import annotations

from pathlib import Path

from proactive_bench.campaign.progress import StoredProgress
from proactive_bench.store import Run, SessionRun, Store, Sweep


def test_each_finished_session_is_reported_once(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    sweep, other = Sweep(), Sweep()
    runs = [Run(persona="p", model="m", user_backend="rules", data_root=".", workspace=".", sweep_id=sweep.id) for _ in range(2)]
    stranger = Run(persona="p", model="m", user_backend="rules", data_root=".", workspace=".", sweep_id=other.id)
    left_out = Run(
        persona="p", model="m", user_backend="rules", data_root=".", workspace=".", sweep_id=sweep.id
    )  # finished before a resume
    store.add(sweep, other, *runs, stranger, left_out)
    events: list[tuple[str, str]] = []
    progress = StoredProgress(store, sweep, {run.id: run for run in runs})

    def save(run: Run, session: str, status: str = "completed") -> None:
        store.save_session(SessionRun(run_id=run.id, session_id=session, position=int(session[1:]), status=status), [], {})

    save(runs[0], "s1")
    save(stranger, "s1")
    save(left_out, "s1")
    progress.report(lambda run, event: events.append((run.id, event)))
    assert events == [(runs[0].id, "session")]
    progress.report(lambda run, event: events.append((run.id, event)))
    assert len(events) == 1, "a session already reported is not reported again"
    save(runs[0], "s2")
    save(runs[1], "s1")
    save(runs[1], "s2", status="running")  # not ended: not counted
    progress.report(lambda run, event: events.append((run.id, event)))
    assert sorted(events[1:]) == sorted([(runs[0].id, "session"), (runs[1].id, "session")])
