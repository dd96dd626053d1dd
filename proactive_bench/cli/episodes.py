"""Episodes for ``pbench`` commands that run or replay one: from a dataset or from a stored run, or one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from pydantic import ValidationError

import proactive_bench.dataset as dataset  # the schema (and the tools its checks read) loads once an episode is loaded
import proactive_bench.episode as episode
from proactive_bench.cli.common import err_console, fail, open_store, resolve_id, settings_error, warn
from proactive_bench.episode import LaunchError, RunSpec, run_spec
from proactive_bench.scaffolds import agent_and_model
from proactive_bench.store import StoredRun

if TYPE_CHECKING:
    from proactive_bench.dataset import DatasetError, LoadedEpisode, Session
    from proactive_bench.store import Store


def load_or_exit(data: Path, persona: str) -> LoadedEpisode:
    """A persona's episode, or its dataset problems and an exit."""
    try:
        return dataset.load_episode(data, persona)
    except dataset.DatasetError as exc:
        raise dataset_failure(exc, f"dataset {data}") from None


def agent_or_exit(agent: str | None, model: str | None) -> tuple[str, str | None]:
    """The agent and chat model ``--agent`` and ``--model`` name (:func:`~proactive_bench.scaffolds.agent_and_model`), its
    note warned; a one-line error when they name none."""
    try:
        name, chat_model, note = agent_and_model(agent, model)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if note:
        warn(note)
    return name, chat_model


def episode_spec(persona: str, agent: str, model: str | None, data: Path, sessions: list[Session], **settings: Any) -> RunSpec:
    """The settings of one episode run from a command's options (``settings``: the run settings given, None unset), or a
    one-line error for settings the model refuses: ``pbench episode`` and ``pbench play`` build their run here."""
    given = {name: value for name, value in settings.items() if value is not None}
    try:
        return RunSpec(persona=persona, agent=agent, model=model, data_root=str(data), sessions=[s.id for s in sessions], **given)
    except ValidationError as exc:
        raise fail(settings_error(exc)) from None


def dataset_failure(exc: DatasetError, what: str) -> typer.Exit:
    """Print each of the dataset's problems; the exit to raise."""
    for problem in exc.problems:
        err_console.print(f"[red]{problem}[/]", highlight=False)
    return fail(f"{what} has {len(exc.problems)} problem(s)")


def open_run(db: str, run_id: str) -> tuple[Store, StoredRun, LoadedEpisode]:
    """A stored run (whole id, unique prefix or ``latest``) and its episode, or a one-line error."""
    store = open_store(db)
    run = resolve_id(store, run_id, sweeps=False)
    assert isinstance(run, StoredRun)
    try:
        return store, run, episode.load_spec_episode(run_spec(run))  # the runner and the suite load once a run is opened
    except dataset.DatasetError as exc:
        raise dataset_failure(exc, f"the dataset of run {run.id}") from None
    except LaunchError as exc:  # a suite no longer installed
        raise fail(str(exc)) from None
