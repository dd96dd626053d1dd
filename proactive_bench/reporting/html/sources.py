"""What a report is built from: the runs an id names, and each run's episode definition."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from proactive_bench.dataset import DatasetError, LoadedEpisode, Session
from proactive_bench.env import AppStore, SeedError, Workspace
from proactive_bench.episode import load_spec_episode, opened_checkpoint, run_spec
from proactive_bench.store import RunLike, Store, StoredRun


class ReportError(ValueError):
    """An id the report cannot be built from; the message is one line."""


def resolve_runs(store: Store, ident: str) -> tuple[str, list[StoredRun]]:
    """A sweep id names the sweep's runs, a run id that run (as ``pbench results``); with a title."""
    runs = store.runs_for(ident)
    if not runs:
        raise ReportError(f"{store.name}: no sweep or run {ident!r} (or a sweep without runs)")
    return (f"sweep {ident}" if runs[0].sweep_id == ident else f"run {ident}"), runs


def resolve_run(store: Store, run_id: str) -> RunLike:
    run = store.run(run_id)
    if run is None:
        raise ReportError(f"{store.name}: no sweep or run {run_id!r}")
    return run


@dataclass
class EpisodeCatalog:
    """Each run's episode, loaded once per dataset and persona; None when the dataset is gone or broken."""

    _episodes: dict[tuple[str, str], LoadedEpisode | None] = field(default_factory=dict)
    _seeds: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    _app_seeds: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def episode(self, run: RunLike) -> LoadedEpisode | None:
        spec = run_spec(run)
        key = (spec.data_root, spec.persona)
        if key not in self._episodes:
            try:
                self._episodes[key] = load_spec_episode(spec)
            except DatasetError:
                self._episodes[key] = None
        return self._episodes[key]

    def session(self, run: RunLike, session_id: str) -> Session | None:
        loaded = self.episode(run)
        return next((s for s in loaded.sessions if s.id == session_id), None) if loaded else None

    def seed_snapshot(self, store: Store, run: RunLike) -> tuple[dict[str, Any], str]:
        """The workspace the run started from, and what it is: the run's own copy, else the dataset's seed."""
        with opened_checkpoint(store, run, 0) as start:
            if start is not None:
                return start.snapshot(), "against the run's starting workspace"
        spec = run_spec(run)
        key = (spec.data_root, spec.persona)
        if key not in self._seeds:
            loaded = self.episode(run)
            seed = loaded.workspace_seed if loaded else None
            self._seeds[key] = Workspace(seed).snapshot() if seed is not None and seed.is_dir() else {}
        return self._seeds[key], "against the episode's seed folder as it is now (this run kept no starting copy)"

    def seed_apps(self, run: RunLike) -> dict[str, Any]:
        """The app state the episode's seed files give (empty when the dataset is gone or its seeds are broken)."""
        spec = run_spec(run)
        key = (spec.data_root, spec.persona)
        if key not in self._app_seeds:
            loaded, apps = self.episode(run), AppStore()
            try:
                if loaded is not None:
                    apps.seed_from(loaded.directory / "apps")
            except SeedError:
                pass
            self._app_seeds[key] = apps.snapshot()
        return self._app_seeds[key]
