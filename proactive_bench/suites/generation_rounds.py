"""The generator-verifier rounds every ``pbench generate`` command runs, and the report of them.

A round: the generator model writes a draft (given the feedback on its
previous attempt), the draft is checked mechanically (the suite's rules), and
the verifier model judges it. A round passes when the verifier approves and no
mechanical problem is found; otherwise its verdict and problems go back to the
generator, for at most ``max_rounds`` rounds. Both models answer through
:class:`~proactive_bench.llm.StructuredCaller` (fallbacks for servers without
structured output, bounded retries); a model that gives no valid answer ends
the generation as ``failed``: nothing is ever made up. The report
(:func:`report_document`) holds the models, prompt hashes, each round's verdict
and problems, and the model calls made.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, Generic, Literal, TypeVar

import yaml
from pydantic import BaseModel, Field

from proactive_bench.llm import LLMCallRecord, Prompt, StructuredCaller, StructuredOutputError

Status = Literal["approved", "rejected", "failed"]
REPORT_NAME = "generation.yaml"


class GenerationInputError(ValueError):
    """An input that cannot be generated from; the message is one line naming the file, the field and the reason."""


class RoundVerdict(BaseModel):
    """A verifier's judgment of one draft; a subclass adds its boolean ``criteria``."""

    criteria: ClassVar[tuple[str, ...]] = ()
    passed: bool
    feedback: str = Field(default="", description="What the writer must change (empty if passed).")

    def failed_criteria(self) -> list[str]:
        return [name for name in self.criteria if not getattr(self, name)]

    @property
    def approves(self) -> bool:
        """Passed, and every criterion met (a 'pass' with a failed criterion is not one)."""
        return self.passed and not self.failed_criteria()


Draft = TypeVar("Draft", bound=BaseModel)
V = TypeVar("V", bound=RoundVerdict)


@dataclass(frozen=True)
class Round(Generic[V]):
    """One round: the verifier's verdict, the mechanical problems, figures measured on the draft, whether it passed."""

    number: int
    verdict: V
    problems: list[str]
    measures: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.verdict.approves and not self.problems

    def feedback(self) -> str:
        notes = [f"Reviewer: {self.verdict.feedback.strip()}"] if self.verdict.feedback.strip() else []
        if not self.verdict.approves and not notes:
            notes.append(f"Reviewer: not approved ({', '.join(self.verdict.failed_criteria()) or 'no reason given'}).")
        return "\n".join(notes + [f"Check: {problem}" for problem in self.problems])


@dataclass
class Outcome(Generic[Draft, V]):
    """What generation ended with; ``draft`` is the approved one (or the last attempt, for the report)."""

    status: Status
    rounds: list[Round[V]] = field(default_factory=list)
    draft: Draft | None = None
    error: str | None = None


@dataclass(frozen=True)
class RoundSteps(Generic[Draft, V]):
    """What one suite's rounds do: write a draft given the previous attempt's notes, check it, judge it."""

    noun: str
    """What the generator writes, for messages: ``history``, ``task``."""
    write: Callable[[str], Awaitable[Draft]]
    check: Callable[[Draft], Awaitable[tuple[list[str], dict[str, Any]]]]
    judge: Callable[[Draft], Awaitable[V]]
    redo: str
    """The closing instruction after the feedback, e.g. "Write the whole log again, fixing these points."."""


async def run_rounds(
    steps: RoundSteps[Draft, V], generator: StructuredCaller, verifier: StructuredCaller, max_rounds: int
) -> Outcome[Draft, V]:
    """Rounds of writing, checking and judging until a round passes or ``max_rounds`` have failed."""
    outcome: Outcome[Draft, V] = Outcome("rejected")
    previous = ""
    for number in range(1, max_rounds + 1):
        try:
            draft = await steps.write(previous)
        except StructuredOutputError as exc:
            return _failed(outcome, f"round {number}: the generator {generator.model_name} gave no valid {steps.noun}: {exc}")
        outcome.draft = draft
        problems, measures = await steps.check(draft)
        try:
            verdict = await steps.judge(draft)
        except StructuredOutputError as exc:
            return _failed(outcome, f"round {number}: the verifier {verifier.model_name} gave no valid verdict: {exc}")
        done = Round(number, verdict, problems, measures)
        outcome.rounds.append(done)
        if done.passed:
            outcome.status = "approved"
            return outcome
        previous = (
            "\n## Your previous attempt\n"
            + json.dumps(draft.model_dump(mode="json"), ensure_ascii=False)
            + "\n\n## What must change\n"
            + done.feedback()
            + f"\n{steps.redo}\n"
        )
    return outcome


def _failed(outcome: Outcome[Draft, V], error: str) -> Outcome[Draft, V]:
    outcome.status = "failed"
    outcome.error = error
    return outcome


def model_entry(model: str, prompt: Prompt) -> dict[str, str]:
    """A model and the prompt it was given, as the report names them."""
    return {"model": model, "prompt": prompt.name, "prompt_hash": prompt.hash}


def calls_summary(calls: Sequence[LLMCallRecord]) -> dict[str, int]:
    """The model calls made: attempts, failed attempts, tokens."""
    return {
        "attempts": len(calls),
        "failed_attempts": sum(not c.ok for c in calls),
        "prompt_tokens": sum(c.prompt_tokens or 0 for c in calls),
        "completion_tokens": sum(c.completion_tokens or 0 for c in calls),
    }


def report_document(
    subject: dict[str, Any],
    outcome: Outcome[Any, Any],
    models: dict[str, dict[str, str]],
    calls: Sequence[LLMCallRecord],
) -> dict[str, Any]:
    """The rounds' verdicts and the model calls, for the reviewer; ``subject`` (what was generated from) leads, ``models``
    (:func:`model_entry` by role) follow. A draft not approved is kept under ``last_attempt``."""
    report: dict[str, Any] = {
        **subject,
        "status": outcome.status,
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **models,
        "rounds": [
            {"round": r.number, "passed": r.passed, **r.measures, "verdict": r.verdict.model_dump(), "problems": r.problems}
            for r in outcome.rounds
        ],
        "model_calls": calls_summary(calls),
    }
    if outcome.error:
        report["error"] = outcome.error
    if outcome.status != "approved" and outcome.draft is not None:
        report["last_attempt"] = outcome.draft.model_dump(mode="json")
    return report


def dump_yaml(data: dict[str, Any]) -> str:
    """A generated file's YAML: keys in the order given, unicode kept."""
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120)
