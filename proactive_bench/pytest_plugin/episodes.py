"""Running a marker's episode in the plugin's results database, each test served the answers its previous run recorded.

The database (``--pbench-db``) keeps, per test, its latest run; ``pytest-runs.json`` beside it names that run by
the test's node id. A test's next run gets that run's answers (``run_episode(answers_from=...)``): a call whose
model settings and messages match a recorded one is served from it, any other goes to the model, and the new run
records all of them; then the older run is deleted. ``refresh`` runs without the recorded answers.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from proactive_bench.api import EXTRA_SETTINGS, RunRefused, run_episode
from proactive_bench.dataset import DatasetError
from proactive_bench.episode import START_FAILURES
from proactive_bench.logs import configure_logging
from proactive_bench.pytest_plugin.gate import Gate
from proactive_bench.review import delete_runs
from proactive_bench.scoring import EpisodeResult
from proactive_bench.store import Store

INDEX = "pytest-runs.json"
"""Beside the database: ``{test node id: its latest run id}``."""


@dataclass(frozen=True)
class Calls:
    """A run's model answers: from a server (counted per answer, a retried call once), or served from the recorded answers."""

    made: int
    served: int


class RecordedRuns:
    """The plugin's results database and the index of each test's latest run."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.index = db.parent / INDEX

    def _read(self) -> dict[str, str]:
        try:
            found = json.loads(self.index.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):  # a damaged index costs the recorded answers, nothing else
            return {}
        return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(found, dict) else {}

    def previous(self, test_id: str, store: Store) -> str | None:
        """The test's latest run, if the database still has it."""
        run_id = self._read().get(test_id)
        return run_id if run_id is not None and store.run(run_id) is not None else None

    def remember(self, test_id: str, run_id: str) -> None:
        """Name ``run_id`` the test's latest run (written whole, then renamed into place)."""
        found = self._read() | {test_id: run_id}
        partial = self.index.with_name(f"{INDEX}.{os.getpid()}")
        partial.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        partial.replace(self.index)


def run_gate(gate: Gate, test_id: str, db: Path, refresh: bool) -> tuple[EpisodeResult, Calls]:
    """Run the marker's episode for the test ``test_id`` and keep it as the test's latest run."""
    if not structlog.is_configured():  # pbench's logs: warnings only, on stderr (as run_episode sets them)
        configure_logging()
    db.parent.mkdir(parents=True, exist_ok=True)
    store = Store(db)
    runs = RecordedRuns(db)
    previous = runs.previous(test_id, store)
    run: dict[str, Any] = dict(gate.run)
    result = run_episode(db=db, answers_from=None if refresh else previous, **run)
    calls = answer_counts(store, result.run_id, None if refresh else previous)
    runs.remember(test_id, result.run_id)
    old = store.run(previous) if previous is not None else None
    if old is not None:
        delete_runs(store, [old])
    return result, calls


def answer_counts(store: Store, run_id: str, source: str | None) -> Calls:
    """The model answers ``run_id`` recorded: served from ``source`` (the same key and occurrence there), or made.

    Counted from the record rather than the call ledger, which an agent of one's own may not write to.
    """
    store.answers.flush()
    made = served = 0
    for session in store.answers.sessions(run_id):
        recorded = store.answers.keys(f"{run_id}/{session}")
        reused = recorded & store.answers.keys(f"{source}/{session}") if source is not None else set()
        served += len(reused)
        made += len(recorded) - len(reused)
    return Calls(made, served)


def extra_settings() -> frozenset[str]:
    """The run settings a marker may give by name, beside ``run_episode``'s own parameters."""
    return frozenset(EXTRA_SETTINGS)


RUN_FAILURES: tuple[type[Exception], ...] = (RunRefused, DatasetError, *START_FAILURES)
"""What stops a run before it scores (one line each): the test fails with the message, not a traceback."""
