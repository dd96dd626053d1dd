"""``pbench sweep``: models × personas (or odyssey tasks) × memory settings × repeats × ablations, run concurrently and summarised.

This module holds the command's options, all ``--help`` needs; its work (``sweep_exec.py``: the campaign, dataset,
store and agent code) loads when it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from proactive_bench.cli.common import MaybeDbOpt, NoValidateOpt, OtelOpt, VerboseOpt
from proactive_bench.cli.option_groups import with_option_groups
from proactive_bench.cli.options import AgentLimits, CallLimits, ExecutorChoice, ExternalAgentOptions, RoleEndpoints, SuiteChoice
from proactive_bench.cli.stopping import stops_cleanly


@stops_cleanly
@with_option_groups
def sweep(
    *,
    agent: Annotated[
        str | None, typer.Option(help="The agent every run evaluates, as episode's --agent (default: react, on each of --models).")
    ] = None,
    models: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated chat models, one arm each, e.g. 'openai:gpt-4o-mini,openai:gpt-4o'. Without --agent an entry may still name an agent (scripted:reference), as episode's --model."
        ),
    ] = None,
    judge: Annotated[
        str | None, typer.Option(help="The judge of rubric items, a name in JUDGES (default rubric); it runs on --judge-model.")
    ] = None,
    personas: Annotated[str | None, typer.Option(help="Comma-separated personas; default: all in the dataset.")] = None,
    runs: Annotated[int | None, typer.Option(min=1, help="Repeats of each combination (default 1; 3 under --protocol pibench).")] = None,
    ablation: Annotated[
        str, typer.Option(help="Comma-separated: none, no-dependency-history (only each dependency group's final session).")
    ] = "none",
    config: Annotated[Path | None, typer.Option(help="A sweep YAML file (keys as SweepConfig); flags given override it.")] = None,
    user: Annotated[str | None, typer.Option(help="rules or llm.")] = None,
    user_model: Annotated[str | None, typer.Option()] = None,
    judge_model: Annotated[str | None, typer.Option()] = None,
    base_url: Annotated[str | None, typer.Option()] = None,
    concurrency: Annotated[int | None, typer.Option(min=1, help="Episodes at once (default 4).")] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Processes to divide the runs among (default 1; use the cores you have).")
    ] = None,
    placement: ExecutorChoice,
    rps: Annotated[float | None, typer.Option(help="Requests per second per endpoint.")] = None,
    max_cost: Annotated[float | None, typer.Option(help="USD budget; the sweep stops starting sessions once spent.")] = None,
    prices: Annotated[Path | None, typer.Option(help="YAML price table: model: {input, output} USD per million tokens.")] = None,
    agent_limits: AgentLimits,
    external: ExternalAgentOptions,
    limits: CallLimits,
    endpoints: RoleEndpoints,
    choice: SuiteChoice,
    db: MaybeDbOpt = None,
    data: Annotated[Path | None, typer.Option("--data", help="Dataset root.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    no_validate: NoValidateOpt = False,
    verbose: VerboseOpt = False,
    protocol: Annotated[str | None, typer.Option(help="Evaluation rules: pbench (default) or pibench.")] = None,
    otel: OtelOpt = False,
) -> None:
    """Run models × personas (or odyssey tasks × memory settings) × repeats × ablations concurrently and print the summary tables."""
    from proactive_bench.cli.sweep_exec import run_sweep  # the run stack loads when the command runs, not for its --help

    run_sweep(
        agent=agent,
        models=models,
        judge=judge,
        personas=personas,
        runs=runs,
        ablation=ablation,
        config=config,
        user=user,
        user_model=user_model,
        judge_model=judge_model,
        base_url=base_url,
        concurrency=concurrency,
        workers=workers,
        placement=placement,
        rps=rps,
        max_cost=max_cost,
        prices=prices,
        agent_limits=agent_limits,
        external=external,
        limits=limits,
        endpoints=endpoints,
        choice=choice,
        db=db,
        data=data,
        as_json=as_json,
        no_validate=no_validate,
        verbose=verbose,
        protocol=protocol,
        otel=otel,
    )
