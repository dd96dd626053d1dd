"""``pbench play``'s work: the episode loaded and checked, the person seated, the run executed, stored and reported.

``play.py`` holds the command's options, all ``--help`` needs; this module (the dataset, the store, the runner, the
terminal participants) loads when it runs.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import typer

from proactive_bench.campaign import run_fast
from proactive_bench.cli.common import (
    DEFAULT_DB,
    err_console,
    fail,
    open_store,
    out_console,
    results_dir,
)
from proactive_bench.cli.episodes import agent_or_exit, episode_spec, load_or_exit
from proactive_bench.cli.guards import (
    admit,
    check_endpoints,
    check_keys,
    check_participants,
    owning,
)
from proactive_bench.cli.options import CallLimits, ExternalAgentOptions, RoleEndpoints
from proactive_bench.data_model import INPUT_ENDED, SessionOutcome
from proactive_bench.dataset import pick_sessions
from proactive_bench.episode import (
    START_FAILURES,
    execute_run,
    start_run,
)
from proactive_bench.logs import configure_logging
from proactive_bench.reporting import results_table
from proactive_bench.scaffolds import PERSON_AGENT
from proactive_bench.scoring import EpisodeResult
from proactive_bench.store import PendingRow, PersonLabel, RunLike, Store, pending_row
from proactive_bench.user import PersonUser, Terminal, UserSimulator
from proactive_bench.validation import settings_problem

SEATS = ("agent", "user")


def play_episode(
    *,
    persona: str,
    seat: str,
    agent: str | None,
    model: str | None,
    sessions: str | None,
    user_model: str | None,
    base_url: str | None,
    db: str | None,
    max_turns: int,
    external: ExternalAgentOptions,
    limits: CallLimits,
    endpoints: RoleEndpoints,
    data: Path,
    no_validate: bool,
    verbose: bool,
) -> None:
    """``pbench play``: the person in ``seat`` plays the episode's sessions, stored and scored like any run."""
    configure_logging(verbose)
    if seat not in SEATS:
        raise fail(f"--as must be agent or user, not {seat!r}")
    if seat == "agent" and (agent is not None or model is not None or user_model is not None):
        raise fail("--agent, --model and --user-model apply to --as user; in the agent's seat you are the agent and the rules user answers")
    chat_model: str | None = None
    if seat == "user":
        if agent is None and model is None:
            raise fail("--as user needs --agent: the agent you play the user for")
        agent, chat_model = agent_or_exit(agent, model)
    loaded = load_or_exit(data, persona)
    try:
        chosen = pick_sessions(sessions, loaded.sessions)
        given = limits.settings() | endpoints.settings() | external.settings()
    except ValueError as exc:
        raise fail(str(exc)) from None
    agent = agent if seat == "user" and agent is not None else PERSON_AGENT
    user = "llm" if user_model else "rules"
    if problem := settings_problem(agent, chosen, user):
        raise fail(problem)
    db_path = db or DEFAULT_DB
    spec = episode_spec(
        persona, agent, chat_model, data, chosen, user=user, user_model=user_model, base_url=base_url, max_turns=max_turns, **given
    )
    check_keys([spec])
    check_endpoints(spec.endpoints())
    check_participants([spec])
    if not no_validate:
        admit(loaded, [s.id for s in chosen], results_dir(db_path))
    store = open_store(db_path, create=True)
    run = start_run(store, loaded, spec, results_dir(db_path))
    people: list[PersonUser] = []

    def person_in_seat(simulator: UserSimulator) -> UserSimulator:
        people.append(PersonUser(simulator, Terminal(sys.stdin, sys.stderr)))
        return people[-1]

    with owning(store, run.id):
        try:
            result = run_fast(
                execute_run(store, run, loaded, seat=person_in_seat if seat == "user" else None, session_rows=partial(_label_rows, people))
            )
        except START_FAILURES as exc:
            raise fail(str(exc)) from None
    _report(store, run, result, len(loaded.sessions), seat)


def _label_rows(people: list[PersonUser], session_id: str) -> list[PendingRow]:
    """The person's and the simulator's labels of every turn of one session, beside each other: saved with the
    session, so a person who stops keeps the labels of the sessions played to their end."""
    return [
        pending_row(
            PersonLabel,
            turn=pair.turn,
            intent_id=pair.intent_id,
            person=pair.person,
            simulator=pair.simulator,
            simulator_name=pair.simulator_name,
        )
        for person in people[-1:]
        for pair in person.pairs
        if pair.session_id == session_id
    ]


def _report(store: Store, run: RunLike, result: EpisodeResult, total: int, seat: str) -> None:
    """The run's results; input that ended early is said in one line (exit 0: stopping is the person's choice)."""
    out_console.print(results_table(result, total))
    err_console.print(f"results: {store.name} (run {run.id}); workspace: {run.workspace}", highlight=False)
    if seat == "user":
        err_console.print(f"your labels beside the simulator's: pbench results {run.id} --agreement", highlight=False)
    stopped = [s.session_id for s in result.sessions if s.status == SessionOutcome.ERROR and s.error is not None and INPUT_ENDED in s.error]
    if stopped:
        err_console.print(f"{INPUT_ENDED}; sessions {', '.join(stopped)} stopped there (what was played is stored)", highlight=False)
    others = [s for s in result.sessions if s.status == SessionOutcome.ERROR and s.session_id not in stopped]
    for session in others:
        err_console.print(f"{session.session_id}: {session.error}", highlight=False, markup=False)
    if others:
        raise typer.Exit(1)
