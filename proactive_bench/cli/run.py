"""``pbench episode``, ``resume`` and ``replay``: one run of one persona's episode, executed with a progress bar and scored.

This module holds the commands' options, all ``--help`` needs; their work
(``run_exec.py``: the campaign, dataset, store and agent code) loads when one runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from proactive_bench.cli.common import (
    DEFAULT_DB,
    DataOpt,
    DbOpt,
    MaybeDbOpt,
    NoValidateOpt,
    OtelOpt,
    RunJsonOpt,
    VerboseOpt,
)
from proactive_bench.cli.option_groups import with_option_groups
from proactive_bench.cli.options import AgentLimits, CallLimits, ExecutorChoice, ExternalAgentOptions, RoleEndpoints, SuiteChoice
from proactive_bench.cli.stopping import stops_cleanly
from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.scoring import DEFAULT_JUDGE

AGENT_HELP = (
    "The agent under test: react (the default, on --model), scripted:reference|passive|asker|surface|guess|canvass (baselines), "
    "path/file.py:Class or package.module:attr (your own), or an installed plugin's name."
)
MODEL_HELP = (
    "The chat model the agent runs on, e.g. openai:gpt-4o-mini (on --base-url). Without --agent it may still name "
    "an agent, as before 0.2: scripted:reference runs that baseline; an agent file works with a warning (use --agent)."
)


@stops_cleanly
@with_option_groups
def episode(
    *,
    persona: Annotated[
        str | None,
        typer.Option(
            help="Persona whose episode to run, e.g. pharmacist (the personas suite; --suite odyssey, agentif, trainee run --task)."
        ),
    ] = None,
    agent: Annotated[str | None, typer.Option(help=AGENT_HELP)] = None,
    model: Annotated[str | None, typer.Option(help=MODEL_HELP)] = None,
    judge: Annotated[
        str,
        typer.Option(help="The judge of rubric items, a name in JUDGES (a plugin's pbench.judges entry point); it runs on --judge-model."),
    ] = DEFAULT_JUDGE,
    sessions: Annotated[str | None, typer.Option(help="Subset, e.g. '1-3' or 's01_x,s02_y'.")] = None,
    user: Annotated[
        str | None, typer.Option(help="User simulator backend: rules or llm (default: llm under --protocol pibench, else rules).")
    ] = None,
    user_model: Annotated[str | None, typer.Option(help="Chat model for --user llm.")] = None,
    judge_model: Annotated[str | None, typer.Option(help="Chat model for rubric items; without it they are ungraded.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint for all models.")] = None,
    db: MaybeDbOpt = None,
    agent_limits: AgentLimits,
    external: ExternalAgentOptions,
    limits: CallLimits,
    endpoints: RoleEndpoints,
    choice: SuiteChoice,
    data: DataOpt = DEFAULT_DATA_ROOT,
    as_json: RunJsonOpt = False,
    no_validate: NoValidateOpt = False,
    verbose: VerboseOpt = False,
    protocol: Annotated[str, typer.Option(help="Evaluation rules: pbench or pibench (README, docs/metrics.md).")] = "pbench",
    otel: OtelOpt = False,
) -> None:
    """Run one persona's episode against an agent and score it; with --suite odyssey, agentif or trainee, run its tasks (one run each) and print their scores."""
    from proactive_bench.cli.run_exec import run_episode  # the run stack loads when the command runs, not for its --help

    run_episode(
        persona=persona,
        agent=agent,
        model=model,
        judge=judge,
        sessions=sessions,
        user=user,
        user_model=user_model,
        judge_model=judge_model,
        base_url=base_url,
        db=db,
        agent_limits=agent_limits,
        external=external,
        limits=limits,
        endpoints=endpoints,
        choice=choice,
        data=data,
        as_json=as_json,
        no_validate=no_validate,
        verbose=verbose,
        protocol=protocol,
        otel=otel,
    )


@stops_cleanly
@with_option_groups
def resume(
    run_id: Annotated[str, typer.Argument(help="The run or sweep to continue (an id, a unique prefix of one, or latest).")],
    *,
    db: DbOpt = DEFAULT_DB,
    max_cost: Annotated[float | None, typer.Option(help="New USD budget for a sweep's remaining work.")] = None,
    placement: ExecutorChoice,
    as_json: RunJsonOpt = False,
    no_validate: NoValidateOpt = False,
    verbose: VerboseOpt = False,
    otel: OtelOpt = False,
) -> None:
    """Continue an interrupted run or sweep: finished sessions are kept, unfinished ones run again."""
    from proactive_bench.cli.run_exec import resume_run  # the run stack loads when the command runs, not for its --help

    resume_run(run_id, db=db, max_cost=max_cost, placement=placement, as_json=as_json, no_validate=no_validate, verbose=verbose, otel=otel)


@stops_cleanly
def replay(
    run_id: Annotated[str, typer.Argument(help="The recorded run to replay (an id, a unique prefix of one, or latest).")],
    db: DbOpt = DEFAULT_DB,
    as_json: RunJsonOpt = False,
    no_validate: NoValidateOpt = False,
    verbose: VerboseOpt = False,
    otel: OtelOpt = False,
) -> None:
    """Run a recorded run again as a new run, every model answer served from the record (no model calls)."""
    from proactive_bench.cli.run_exec import replay_run  # the run stack loads when the command runs, not for its --help

    replay_run(run_id, db=db, as_json=as_json, no_validate=no_validate, verbose=verbose, otel=otel)
