"""The checks before and around a run or sweep: the data admitted, the model servers there, the lease held."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proactive_bench.cli.common import err_console, fail
from proactive_bench.dataset import LoadedEpisode
from proactive_bench.llm import EndpointError, check_reachable
from proactive_bench.store import HeldLease, LeaseHeld, LeaseLost, Store, writing
from proactive_bench.validation import VALIDATED_DIR, dataset_problems


def admit(loaded: LoadedEpisode, session_ids: list[str], results_dir: Path) -> None:
    """Refuse to run data ``pbench validate`` rejects, with its messages (exit 1)."""
    problems = dataset_problems(loaded, session_ids, results_dir / VALIDATED_DIR)
    for problem in problems:
        err_console.print(f"[red]error[/] {problem}", highlight=False)
    if problems:
        raise fail(f"{len(problems)} error(s) in episode {loaded.episode.id} (see pbench validate); nothing was run. --no-validate skips these checks", 1)


@contextmanager
def owning(store: Store, scope: str, beat: bool = True) -> Iterator[HeldLease]:
    """Write a run or sweep under its lease; another writer's lease, or losing ours, is a one-line error (exit 3)."""
    try:
        with writing(store, scope, beat=beat) as held:
            yield held
    except (LeaseHeld, LeaseLost) as exc:
        raise fail(str(exc), 3) from None


def check_endpoints(endpoints: dict[str, list[str]]) -> None:
    """Stop with one line, before any row is written, when a model server is not there."""
    try:
        check_reachable(endpoints)
    except EndpointError as exc:
        raise fail(str(exc)) from None

