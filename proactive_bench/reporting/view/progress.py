"""A sweep's progress as the live page polls it: the sweep's status and each run's sessions and figures so far."""

from __future__ import annotations

from typing import Any

from proactive_bench.data_model import SweepStatus
from proactive_bench.reporting.run_list import run_rows
from proactive_bench.store import Store


def sweep_progress(store: Store, sweep_id: str) -> dict[str, Any] | None:
    """The sweep's status, sessions done of planned in all and per run (with Proc and Comp so far); None: no such sweep.

    ``live`` is true while the sweep runs: the page polls until it is false."""
    sweep = store.sweep(sweep_id)
    if sweep is None:
        return None
    rows = run_rows(store, store.runs(sweep_id))
    return {
        "sweep_id": sweep.id,
        "status": sweep.status,
        "live": sweep.status == SweepStatus.RUNNING,
        "sessions_done": sum(r.sessions_done for r in rows),
        "sessions_planned": sum(r.sessions_planned for r in rows),
        "runs": [r.as_dict() for r in rows],
    }
