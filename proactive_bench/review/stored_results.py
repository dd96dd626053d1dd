"""A finished run read back from the store: its episode's shape, its plan, its protocol and its result."""

from __future__ import annotations

from dataclasses import dataclass

import proactive_bench.dataset as dataset
import proactive_bench.episode as episode
from proactive_bench.data_model import FINAL_OUTCOMES
from proactive_bench.episode import run_spec, stored_session_result
from proactive_bench.scoring import (
    SCORINGS,
    EpisodeResult,
    Scoring,
    chains,
    episode_result,
)
from proactive_bench.store import ReadQueries, RunLike


@dataclass(frozen=True)
class EpisodeShape:
    """What scoring needs from a run's dataset: dependencies and task categories."""

    depends_on: dict[str, list[str]]
    categories: dict[str, str]


def episode_shape(run: RunLike) -> EpisodeShape:
    """The run's episode as it was when the run started (kept in its settings); for a run stored before 0.2, as its
    dataset defines it now (the suite loads it), or when the dataset is gone, chains read from the run's units."""
    spec = run_spec(run)
    if spec.depends_on is not None:
        return EpisodeShape(spec.depends_on, spec.categories or {})
    try:
        loaded = episode.load_spec_episode(spec)  # the runner and the suite load for such a run only
    except (dataset.DatasetError, OSError):
        return EpisodeShape(chains(run.units), {})
    return EpisodeShape(dataset.depends_on_map(loaded.episode), {s.id: s.category for s in loaded.sessions})


def planned_sessions(run: RunLike) -> list[str]:
    return run_spec(run).sessions or [sid for unit in run.units for sid in unit]


def run_scoring(run: RunLike) -> Scoring:
    """The scoring rules of the protocol the run was made under."""
    return SCORINGS[run_spec(run).protocol]


def stored_run_result(
    store: ReadQueries,
    run: RunLike,
    depends_on: dict[str, list[str]] | None = None,
    scoring: Scoring | None = None,
) -> EpisodeResult:
    """A run's result rebuilt from its stored sessions, scored by its own protocol unless ``scoring`` is given."""
    sessions = [stored_session_result(store, sr) for sr in store.session_runs(run.id) if sr.status in FINAL_OUTCOMES]
    deps = depends_on if depends_on is not None else episode_shape(run).depends_on
    return episode_result(run.id, run.persona, run.model, sessions, deps, planned_sessions(run), run.status, scoring or run_scoring(run))
