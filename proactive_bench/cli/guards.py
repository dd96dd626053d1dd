"""The checks before and around a run or sweep: the data admitted, the model servers there, the lease held (a clean stop: ``stopping.py``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from proactive_bench.campaign import Interrupted, mark_interrupted
from proactive_bench.cli.common import err_console, fail
from proactive_bench.dataset import LoadedEpisode
from proactive_bench.episode import LaunchError, RunSpec, enable_tracing, tracing_problem
from proactive_bench.llm import EndpointError, check_reachable
from proactive_bench.store import HeldLease, LeaseHeld, LeaseLost, Store, writing
from proactive_bench.validation import VALIDATED_DIR, dataset_problems, participant_problem


def admit(loaded: LoadedEpisode, session_ids: list[str], results_dir: Path) -> None:
    """Refuse to run data ``pbench validate`` rejects, with its messages (exit 1)."""
    problems = dataset_problems(loaded, session_ids, results_dir / VALIDATED_DIR)
    for problem in problems:
        err_console.print(f"[red]error[/] {problem}", highlight=False)
    if problems:
        raise fail(
            f"{len(problems)} error(s) in episode {loaded.episode.id} (see pbench validate); nothing was run. --no-validate skips these checks",
            1,
        )


def check_participants(specs: Iterable[RunSpec]) -> None:
    """Build each spec's agent, user and judge once: a ``--model`` typo or a broken agent file is one line, before any row is written."""
    for spec in specs:
        if problem := participant_problem(spec):
            raise fail(problem)


@contextmanager
def owning(store: Store, scope: str, beat: bool = True) -> Iterator[HeldLease]:
    """Write a run or sweep under its lease; another writer's lease, or losing ours, is a one-line error (exit 3).

    Stopped by a signal, its unfinished runs (and sweep) are marked interrupted before the lease is released.
    """
    try:
        with writing(store, scope, beat=beat) as held:
            try:
                yield held
            except Interrupted:
                mark_interrupted(store, scope)
                raise
    except (LeaseHeld, LeaseLost) as exc:
        raise fail(str(exc), 3) from None
    except Interrupted as stop:
        err_console.print(f"interrupted; resume with: pbench resume {scope}", highlight=False)
        raise typer.Exit(stop.exit_code) from None


def trace_runs(otel: bool) -> None:
    """``--otel``: the runs of this process and of its workers export their traces; one line when tracing is on (by the
    flag or the OTLP variables) and the ``otel`` extra is not installed."""
    if otel:
        enable_tracing()
    if problem := tracing_problem():
        raise fail(problem)


def check_keys(specs: Iterable[RunSpec]) -> None:
    """Stop with one line when a role's ``--*-key-env`` variable is not set: a setting to fix, named before any
    server is called (:func:`check_endpoints`) or any agent built."""
    for spec in specs:
        for role in spec.role_models():
            try:
                spec.api_key_for(role)
            except LaunchError as exc:
                raise fail(str(exc)) from None


def check_endpoints(endpoints: dict[str, list[str]]) -> None:
    """Stop with one line, before any row is written, when a model server is not there; called before
    :func:`check_participants`, so a dead server is named without building (importing) an agent or model client."""
    try:
        check_reachable(endpoints)
    except EndpointError as exc:
        raise fail(str(exc)) from None
