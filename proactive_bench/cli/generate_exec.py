"""``pbench generate``'s work: the generator and verifier models, the suites' generation code, the rounds printed.

``generate.py`` holds the commands' options, all ``--help`` needs; this module loads when one of them runs.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.table import Table

from proactive_bench.campaign import run_fast
from proactive_bench.cli.common import fail, out_console
from proactive_bench.cli.guards import check_endpoints
from proactive_bench.llm import ChatSettings, ChatTransport, LLMCallRecord, ModelSpecError, StructuredCaller, make_chat_model
from proactive_bench.logs import configure_logging
from proactive_bench.suites import GenerationOutcome
from proactive_bench.suites.agentif import (
    GENERATION_CRITERIA,
    SUITE as AGENTIF_SUITE,
    CorpusError,
    generate_task,
    index_corpus,
    load_seed,
    new_task_id,
    replaceable,
    write_generation,
)
from proactive_bench.suites.odyssey import (
    CRITERIA,
    GenerationInputError,
    generate_history,
    generate_neo,
    load_environment,
    load_seed_task,
    report_path,
    write_neo_outcome,
    write_outcome,
)
from proactive_bench.validation import oracle_problems, run_oracle

T = TypeVar("T")


@dataclass(frozen=True)
class GenerationRequest:
    """What every ``pbench generate`` command is given: its source, the generator and verifier models and their
    endpoint, where to write (None: the command's default), how many rounds, and how to report."""

    source: Path
    model: str
    verifier_model: str | None
    base_url: str | None
    out: Path | None
    max_rounds: int
    force: bool
    as_json: bool

    @property
    def verifier(self) -> str:
        return self.verifier_model or self.model

    def refuse_existing(self, paths: list[Path]) -> None:
        """A one-line failure when one of ``paths`` exists and ``--force`` was not given."""
        existing = [p for p in paths if p.exists()]
        if existing and not self.force:
            raise fail(f"--out: {existing[0]} exists; --force replaces it")


def generate_odyssey(request: GenerationRequest) -> None:
    """``pbench generate odyssey``: a task's dialogue history, written and judged in rounds."""
    task = _read_source(load_seed_task, request.source)
    out = request.out or Path("generated") / task.id / "task.yaml"
    request.refuse_existing([out, report_path(out)])
    calls: list[LLMCallRecord] = []
    outcome = _with_models(request, calls, lambda writer, judge: generate_history(task, writer, judge, request.max_rounds))
    written = write_outcome(out, task, outcome, request.model, request.verifier, calls)
    _print_rounds(outcome, CRITERIA, written, request.as_json, {})
    if outcome.status == "rejected":
        raise fail(f"task {task.id}: not approved after {len(outcome.rounds)} round(s); no task file written (see {written[0]})", 1)


def generate_odyssey_neo(request: GenerationRequest) -> None:
    """``pbench generate odyssey-neo``: a new task and its 5-day history from an environment."""
    env = _read_source(load_environment, request.source)
    out = request.out or Path("generated") / env.id
    request.refuse_existing([out / "task.yaml", report_path(out / "task.yaml")])
    calls: list[LLMCallRecord] = []
    outcome = _with_models(request, calls, lambda writer, judge: generate_neo(request.source, writer, judge, request.max_rounds))
    written = write_neo_outcome(out, request.source, outcome, request.model, request.verifier, calls)
    if outcome.dialogue is not None:
        _print_rounds(outcome.dialogue, CRITERIA, written, request.as_json, {"environment": env.id})
    if outcome.status != "approved":
        raise fail(f"environment {env.id}: {outcome.error or 'not approved'}; no task written (see {written[-1]})", 1)


def generate_agentif(request: GenerationRequest, corpus: Path, category: str | None, domain: str | None, oracle: bool) -> None:
    """``pbench generate agentif``: a new task from a seed's workflow and a local corpus (``category``/``domain``
    None: the seed's)."""
    configure_logging(False)
    try:
        seed = load_seed(request.source)
        files = index_corpus(corpus, exclude=seed.folder)
    except (GenerationInputError, CorpusError) as exc:
        raise fail(str(exc)) from None
    chosen_category, chosen_domain = (category or seed.task.category), (domain or seed.task.domain)
    out = request.out or Path("generated") / "agentif" / new_task_id(seed.task.id, chosen_category, chosen_domain)
    refusal = replaceable(out)
    if refusal:
        raise fail(refusal)
    request.refuse_existing([out])
    calls: list[LLMCallRecord] = []
    generation = _with_models(
        request,
        calls,
        lambda writer, judge: generate_task(
            seed,
            files,
            chosen_category,
            chosen_domain,
            writer,
            judge,
            request.max_rounds,
            _oracle_problems if oracle else None,
        ),
    )
    written = write_generation(out, generation, seed, corpus, request.model, request.verifier, calls)
    outcome = generation.outcome
    _print_rounds(outcome, GENERATION_CRITERIA, written, request.as_json, {"task": generation.task_id})
    if outcome.status == "rejected":
        raise fail(f"task {generation.task_id}: not approved after {len(outcome.rounds)} round(s); no task written (see {written[-1]})", 1)


def _read_source(read: Callable[[Path], T], source: Path) -> T:
    """The command's ``--from`` read by ``read`` (logging set up first); a bad one is a one-line failure."""
    configure_logging(False)
    try:
        return read(source)
    except GenerationInputError as exc:
        raise fail(str(exc)) from None


def _oracle_problems(root: Path, task_id: str) -> list[str]:
    """What ``pbench validate --oracle`` finds in a candidate task under ``root``: the baselines that miss their bars
    (one line each); an oracle run that crashes is a problem of the round, not of the command."""
    loaded, problems = AGENTIF_SUITE.checked(root.resolve(), task_id)
    if loaded is None:
        return [f"{p.field}: {p.reason}" for p in problems] or [f"{task_id}: does not load"]
    try:
        outcomes = run_oracle(loaded, root)
    except Exception as exc:  # a generated task may break a baseline in any way; the round fails, named
        return [f"oracle: could not run the baselines: {type(exc).__name__}: {exc}"]
    return [f"{p.field}: {p.reason}" for p in oracle_problems(outcomes)]


def _with_models(
    request: GenerationRequest, calls: list[LLMCallRecord], work: Callable[[StructuredCaller, StructuredCaller], Awaitable[T]]
) -> T:
    """``work(generator, verifier)`` run with the request's two models' structured callers, every call recorded in ``calls``."""
    if request.base_url:
        check_endpoints({request.base_url: ["generator", "verifier"]})

    async def run() -> T:
        async with ChatTransport() as transport:
            settings = ChatSettings(base_url=request.base_url, transport=transport)
            writer = StructuredCaller(make_chat_model(request.model, settings), request.model, "agent", calls.append)
            judge = StructuredCaller(make_chat_model(request.verifier, settings), request.verifier, "judge", calls.append)
            return await work(writer, judge)

    try:
        return run_fast(run())
    except ModelSpecError as exc:
        raise fail(str(exc)) from None


def _print_rounds(
    outcome: GenerationOutcome[Any, Any], criteria: tuple[str, ...], written: list[Path], as_json: bool, head: dict[str, Any]
) -> None:
    """The rounds as a table (or JSON) and the files written; a failed generation ends with its one-line error."""
    if as_json:
        typer.echo(
            json.dumps(
                {
                    **head,
                    "status": outcome.status,
                    "written": [str(p) for p in written],
                    "error": outcome.error,
                    "rounds": [
                        {"round": r.number, "passed": r.passed, "problems": r.problems, "verdict": r.verdict.model_dump()}
                        for r in outcome.rounds
                    ],
                },
                indent=2,
            )
        )
    else:
        table = Table("round", *criteria, "checks", "passed", title=f"generation: {outcome.status}")
        for r in outcome.rounds:
            marks = ["yes" if getattr(r.verdict, name) else "no" for name in criteria]
            table.add_row(str(r.number), *marks, "; ".join(r.problems) or "ok", "yes" if r.passed else "no")
        out_console.print(table)
        out_console.print(f"wrote {', '.join(str(p) for p in written)}", highlight=False)
    if outcome.status == "failed":
        raise fail(outcome.error or "generation failed", 1)
