"""Episodes for ``pbench`` commands that run or replay one: from a dataset or from a stored run, or one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

import proactive_bench.dataset as dataset  # the schema (and the tools its checks read) loads once an episode is loaded
import proactive_bench.episode as episode
from proactive_bench.cli.common import err_console, fail, open_store, resolve_id
from proactive_bench.episode import LaunchError, run_spec
from proactive_bench.store import Run, Store

if TYPE_CHECKING:
    from proactive_bench.dataset import DatasetError, LoadedEpisode


def load_or_exit(data: Path, persona: str) -> LoadedEpisode:
    """A persona's episode, or its dataset problems and an exit."""
    try:
        return dataset.load_episode(data, persona)
    except dataset.DatasetError as exc:
        raise dataset_failure(exc, f"dataset {data}") from None


def dataset_failure(exc: DatasetError, what: str) -> typer.Exit:
    """Print each of the dataset's problems; the exit to raise."""
    for problem in exc.problems:
        err_console.print(f"[red]{problem}[/]", highlight=False)
    return fail(f"{what} has {len(exc.problems)} problem(s)")


def open_run(db: str, run_id: str) -> tuple[Store, Run, LoadedEpisode]:
    """A stored run (whole id, unique prefix or ``latest``) and its episode, or a one-line error."""
    store = open_store(db)
    run = resolve_id(store, run_id, sweeps=False)
    assert isinstance(run, Run)
    try:
        return store, run, episode.load_spec_episode(run_spec(run))  # the runner and the suite load once a run is opened
    except dataset.DatasetError as exc:
        raise dataset_failure(exc, f"the dataset of run {run.id}") from None
    except LaunchError as exc:  # a suite no longer installed
        raise fail(str(exc)) from None
