"""``pbench play``: a person in either seat at the terminal (docs/play.md).

``--as user``: the person plays the user for the agent ``--agent`` (on ``--model``), labelling
each turn's hidden intents and typing the reply, while the simulator labels
the same turns silently; both labellings are stored (``pbench results ID
--agreement``). ``--as agent``: the person plays the agent (the ``person``
scaffold) against the rules user, stored and scored like any run.
"""

from __future__ import annotations

import sys
from functools import partial
from typing import Annotated

import typer

from proactive_bench.campaign import run_fast
from proactive_bench.cli.common import (
    DEFAULT_DB,
    DataOpt,
    MaybeDbOpt,
    NoValidateOpt,
    VerboseOpt,
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
from proactive_bench.cli.option_groups import with_option_groups
from proactive_bench.cli.options import CallLimits, ExternalAgentOptions, RoleEndpoints
from proactive_bench.cli.stopping import stops_cleanly
from proactive_bench.data_model import INPUT_ENDED, SessionOutcome
from proactive_bench.dataset import DEFAULT_DATA_ROOT, pick_sessions
from proactive_bench.episode import (
    DEFAULT_MAX_TURNS,
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


@stops_cleanly
@with_option_groups
def play(
    *,
    persona: Annotated[str, typer.Option(help="Persona whose episode to play, e.g. pharmacist.")],
    seat: Annotated[
        str,
        typer.Option(
            "--as", help="Your seat: agent (you answer the rules user, with the session's tools) or user (you play the user for --agent)."
        ),
    ] = "agent",
    agent: Annotated[str | None, typer.Option(help="With --as user: the agent you play the user for (as pbench episode --agent).")] = None,
    model: Annotated[
        str | None, typer.Option(help="With --as user: the chat model that agent runs on (as pbench episode --model).")
    ] = None,
    sessions: Annotated[str | None, typer.Option(help="Subset, e.g. '1-3' or 's01_x,s02_y'.")] = None,
    user_model: Annotated[
        str | None,
        typer.Option(
            help="With --as user: the simulator that labels beside you is the llm user on this chat model (default: the rules user)."
        ),
    ] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint for all models.")] = None,
    db: MaybeDbOpt = None,
    max_turns: Annotated[int, typer.Option(min=1, help="Agent turns before a session is truncated.")] = DEFAULT_MAX_TURNS,
    external: ExternalAgentOptions,
    limits: CallLimits,
    endpoints: RoleEndpoints,
    data: DataOpt = DEFAULT_DATA_ROOT,
    no_validate: NoValidateOpt = False,
    verbose: VerboseOpt = False,
) -> None:
    """Play one persona's episode yourself, in the agent's seat (default) or the user's (--as user), stored and scored like any run."""
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
