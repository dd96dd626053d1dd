"""``pbench generate``: task content written by one model and judged by another, for review.

``odyssey``: a dialogue history for an atomic task; ``agentif``: a new task
from a seed task's workflow, attachments from a local corpus, and its rubric.
Both run the shared generator-verifier rounds (``suites/generation_rounds.py``).

This module holds the commands' options, all ``--help`` needs; their work
(``generate_exec.py``: the models and the suites' generation code) loads when one runs.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.suites import AGENTIF_MAX_ROUNDS, ODYSSEY_MAX_ROUNDS as MAX_ROUNDS
from proactive_bench.suites.agentif import CATEGORIES, DOMAINS

generate_app = typer.Typer(help="Generate task content with models, for review.", no_args_is_help=True)
DEFAULT_CORPUS = DEFAULT_DATA_ROOT / "agentif"
AgentIFCategory = Enum("AgentIFCategory", {name: name for name in CATEGORIES}, type=str)  # type: ignore[misc]  # an Enum with members known only at run time
AgentIFDomain = Enum("AgentIFDomain", {name: name for name in DOMAINS}, type=str)  # type: ignore[misc]  # an Enum with members known only at run time
ModelOpt = Annotated[str, typer.Option(help="The generator model: openai:NAME (or openai/NAME).")]
BaseUrlOpt = Annotated[str | None, typer.Option(help="The models' OpenAI-compatible endpoint (default: OpenAI's).")]
VerifierOpt = Annotated[str | None, typer.Option(help="The verifier model (default: the generator model).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the rounds as JSON.")]


@generate_app.command("odyssey")
def odyssey(
    source: Annotated[Path, typer.Option("--from", help="The atomic task: an odyssey task.yaml without its history.")],
    model: ModelOpt,
    base_url: BaseUrlOpt = None,
    verifier_model: VerifierOpt = None,
    out: Annotated[Path | None, typer.Option(help="The task file to write (default: generated/<task id>/task.yaml).")] = None,
    max_rounds: Annotated[int, typer.Option(min=1, max=MAX_ROUNDS, help="Rounds of writing and judging at most.")] = MAX_ROUNDS,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing task file and report.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Write a >= 5-day dialogue history carrying every detail of an atomic task (generator-verifier loop, HomerAgents-style)."""
    from proactive_bench.cli.generate_exec import GenerationRequest, generate_odyssey  # the models and generation code load when it runs

    generate_odyssey(GenerationRequest(source, model, verifier_model, base_url, out, max_rounds, force, as_json))


@generate_app.command("odyssey-neo")
def odyssey_neo(
    source: Annotated[Path, typer.Option("--from", help="The environment: a folder with environment.yaml, workspace/ and apps/.")],
    model: ModelOpt,
    base_url: BaseUrlOpt = None,
    verifier_model: VerifierOpt = None,
    out: Annotated[Path | None, typer.Option(help="The task folder to write (default: generated/<environment id>/).")] = None,
    max_rounds: Annotated[int, typer.Option(min=1, max=MAX_ROUNDS, help="Rounds of writing and judging at most, per phase.")] = MAX_ROUNDS,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing task folder's files.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """A new task and its 5-day history from an environment (HomerAgents-Neo: plan, surf the apps, write the task,
    write the days, verifier rounds), for review."""
    from proactive_bench.cli.generate_exec import (
        GenerationRequest,
        generate_odyssey_neo,
    )  # the models and generation code load when it runs

    generate_odyssey_neo(GenerationRequest(source, model, verifier_model, base_url, out, max_rounds, force, as_json))


@generate_app.command("agentif")
def agentif(
    source: Annotated[Path, typer.Option("--from", help="The seed task: an agentif task folder (task.yaml, workspace/).")],
    model: ModelOpt,
    base_url: BaseUrlOpt = None,
    verifier_model: VerifierOpt = None,
    corpus: Annotated[
        Path, typer.Option(help="The attachment corpus: a folder of task folders (their workspace/ files) or of files.")
    ] = DEFAULT_CORPUS,
    category: Annotated[AgentIFCategory | None, typer.Option(help="The new task's category (default: the seed's).")] = None,
    domain: Annotated[AgentIFDomain | None, typer.Option(help="The new task's domain (default: the seed's).")] = None,
    out: Annotated[Path | None, typer.Option(help="The review folder (default: generated/agentif/<new task id>/).")] = None,
    max_rounds: Annotated[int, typer.Option(min=1, max=MAX_ROUNDS, help="Rounds of writing and judging at most.")] = AGENTIF_MAX_ROUNDS,
    oracle: Annotated[
        bool, typer.Option("--oracle/--no-oracle", help="Run validate's oracle on each candidate that passes the rules.")
    ] = True,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing review folder this command wrote.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """A new AgentIF task with the seed's workflow, attachments from a local corpus and a bonus/penalty rubric (the paper's
    synthesis pipeline), for review; `pbench validate --data generated` checks it."""
    from proactive_bench.cli.generate_exec import GenerationRequest, generate_agentif  # the models and generation code load when it runs

    generate_agentif(
        GenerationRequest(source, model, verifier_model, base_url, out, max_rounds, force, as_json),
        corpus,
        category.value if category else None,
        domain.value if domain else None,
        oracle,
    )
