"""``pbench play``: a person in either seat at the terminal (docs/play.md).

``--as user``: the person plays the user for the agent ``--agent`` (on ``--model``), labelling
each turn's hidden intents and typing the reply, while the simulator labels
the same turns silently; both labellings are stored (``pbench results ID
--agreement``). ``--as agent``: the person plays the agent (the ``person``
scaffold) against the rules user, stored and scored like any run.

This module holds the command's options, all ``--help`` needs; its work (``play_exec.py``: the dataset, the store,
the runner, the terminal participants) loads when it runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from proactive_bench.cli.common import DataOpt, MaybeDbOpt, NoValidateOpt, VerboseOpt
from proactive_bench.cli.option_groups import with_option_groups
from proactive_bench.cli.options import CallLimits, ExternalAgentOptions, RoleEndpoints
from proactive_bench.cli.stopping import stops_cleanly
from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.episode import DEFAULT_MAX_TURNS


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
    from proactive_bench.cli.play_exec import play_episode  # the run stack loads when the command runs, not for its --help

    play_episode(
        persona=persona,
        seat=seat,
        agent=agent,
        model=model,
        sessions=sessions,
        user_model=user_model,
        base_url=base_url,
        db=db,
        max_turns=max_turns,
        external=external,
        limits=limits,
        endpoints=endpoints,
        data=data,
        no_validate=no_validate,
        verbose=verbose,
    )
