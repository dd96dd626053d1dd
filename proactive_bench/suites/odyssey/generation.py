"""HomerAgents-style history generation (OdysseyBench section 3.1.1): a generator writes, a verifier judges, at most 5 rounds.

Each round the generator model writes the whole multi-day history for an
atomic task (:class:`~proactive_bench.suites.odyssey.generation_seed.SeedTask`),
given the verifier's feedback and its previous attempt; the verifier model
judges realism, alignment with the task, coherence and whether every detail is
present. The round is also checked mechanically: at least 5 days in date
order before the task's ``now``, each opened by the user, a size within the
task format's bounds, the instruction not quoted, and every detail's ``cue`` found in the text — a mechanical problem fails the
round whatever the verifier says. Both models answer through
:class:`~proactive_bench.llm.StructuredCaller` (its fallbacks for servers
without structured output, bounded retries); a model that gives no valid
answer ends the generation as ``failed``: no history is ever made up.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from proactive_bench.llm import StructuredCaller, StructuredOutputError, load_prompt
from proactive_bench.suites.odyssey.generation_seed import SeedTask
from proactive_bench.suites.odyssey.memory_docs import HistoryDay, history_days, render_history
from proactive_bench.suites.odyssey.memory_tokens import TokenCounter, default_token_counter
from proactive_bench.suites.odyssey.task import Day

PROMPTS = "suites/odyssey/prompts"
GENERATOR_PROMPT = load_prompt(PROMPTS, "history_generator.v1")
VERIFIER_PROMPT = load_prompt(PROMPTS, "history_verifier.v1")
MAX_ROUNDS = 5
MIN_DAYS = 5
MIN_TOKENS, MAX_TOKENS = 1000, 5000
"""The task format's bounds on a history's size, in tokens of the default counter."""
ASKED_WORDS = (900, 3000)
"""The size asked of the generator, in words: well inside the token bounds."""
CRITERIA = ("realism", "alignment", "coherence", "details_present")
Status = Literal["approved", "rejected", "failed"]


class GeneratedHistory(BaseModel):
    """The generator's answer: the conversations of several days, each in the task format's :class:`Day`."""

    days: list[Day] = Field(min_length=1)

    def as_days(self) -> list[HistoryDay]:
        return history_days(self.days)


class Verdict(BaseModel):
    """The verifier's judgment of one attempt."""

    realism: bool
    alignment: bool
    coherence: bool
    details_present: bool
    missing_details: list[str] = Field(default_factory=list, description="Ids of details missing, vague or altered.")
    passed: bool
    feedback: str = Field(default="", description="What the writer must change (empty if passed).")

    @property
    def approves(self) -> bool:
        """Passed, and every criterion met (a 'pass' with a failed criterion is not one)."""
        return self.passed and all(getattr(self, name) for name in CRITERIA) and not self.missing_details


@dataclass(frozen=True)
class Round:
    """One round: the verifier's verdict, the mechanical problems, and whether it passed."""

    number: int
    verdict: Verdict
    problems: list[str]
    tokens: int

    @property
    def passed(self) -> bool:
        return self.verdict.approves and not self.problems

    def feedback(self) -> str:
        notes = [f"Reviewer: {self.verdict.feedback.strip()}"] if self.verdict.feedback.strip() else []
        if not self.verdict.approves and not notes:
            failed = [name for name in CRITERIA if not getattr(self.verdict, name)]
            notes.append(f"Reviewer: not approved ({', '.join(failed) or 'no reason given'}).")
        return "\n".join(notes + [f"Check: {problem}" for problem in self.problems])


@dataclass
class Outcome:
    """What generation ended with; ``history`` is the approved one (or the last attempt, for the report)."""

    status: Status
    rounds: list[Round] = field(default_factory=list)
    history: GeneratedHistory | None = None
    error: str | None = None


def mechanical_problems(task: SeedTask, history: GeneratedHistory, counter: TokenCounter) -> tuple[list[str], int]:
    """What a history lacks by rule, and its size in tokens."""
    problems = []
    dates = [day.date for day in history.days]
    if len(set(dates)) < MIN_DAYS:
        problems.append(f"the history has {len(set(dates))} day(s); it needs at least {MIN_DAYS}")
    if any(later <= earlier for earlier, later in zip(dates, dates[1:])):
        problems.append("the days are not in increasing date order, each date once")
    late = [d.isoformat() for d in dates if d >= task.now.date()]
    if late:
        problems.append(f"days {late} are not before the task's date {task.now.date().isoformat()}")
    opened_by_assistant = [day.date.isoformat() for day in history.days if day.turns[0].role != "user"]
    if opened_by_assistant:
        problems.append(f"days {opened_by_assistant} start with the assistant; the user speaks first")
    text = render_history(history.as_days())
    if " ".join(task.intent.lower().split()) in " ".join(text.lower().split()):
        problems.append("the history quotes the task's instruction word for word; it must only lead up to it")
    tokens = counter.count(text)
    if not MIN_TOKENS <= tokens <= MAX_TOKENS:
        problems.append(f"the history is {tokens} tokens ({counter.name}); it must be {MIN_TOKENS}-{MAX_TOKENS}")
    for detail in task.details:
        if not detail.found_in(text):
            problems.append(f"detail {detail.id} ({detail.text}) is missing: its cue /{detail.cue}/ is not found in the history")
    return problems, tokens


def _task_parts(task: SeedTask) -> dict[str, str]:
    return {
        "title": task.title, "intent": task.intent, "apps": ", ".join(task.apps),
        "user_name": task.user.name, "user_role": task.user.role,
        "details": "\n".join(f"- {d.id}: {d.text}" for d in task.details),
    }


async def generate_history(
    task: SeedTask, generator: StructuredCaller, verifier: StructuredCaller, max_rounds: int = MAX_ROUNDS,
    counter: TokenCounter | None = None,
) -> Outcome:
    """Rounds of writing and judging until a round passes or ``max_rounds`` have failed."""
    counter = counter or default_token_counter()
    outcome = Outcome("rejected")
    previous = ""
    fixed = {
        **_task_parts(task), "now": task.now.isoformat(timespec="minutes"), "now_date": task.now.date().isoformat(),
        "min_days": str(MIN_DAYS), "min_words": str(ASKED_WORDS[0]), "max_words": str(ASKED_WORDS[1]),
    }
    for number in range(1, max_rounds + 1):
        try:
            written = await generator.call_prompt(GeneratedHistory, GENERATOR_PROMPT, "history_generation", fixed, {"previous": previous})
        except StructuredOutputError as exc:
            return _failed(outcome, f"round {number}: the generator {generator.model_name} gave no valid history: {exc}")
        history = written.value
        problems, tokens = mechanical_problems(task, history, counter)
        parts = {**_task_parts(task), "history": render_history(history.as_days())}
        try:
            judged = await verifier.call_prompt(Verdict, VERIFIER_PROMPT, "history_verification", parts, {})
        except StructuredOutputError as exc:
            outcome.history = history
            return _failed(outcome, f"round {number}: the verifier {verifier.model_name} gave no valid verdict: {exc}")
        done = Round(number, judged.value, problems, tokens)
        outcome.rounds.append(done)
        outcome.history = history
        if done.passed:
            outcome.status = "approved"
            return outcome
        previous = (
            "\n## Your previous attempt\n" + json.dumps(history.model_dump(mode="json"), ensure_ascii=False)
            + "\n\n## What must change\n" + done.feedback() + "\nWrite the whole log again, fixing these points.\n"
        )
    return outcome


def _failed(outcome: Outcome, error: str) -> Outcome:
    outcome.status = "failed"
    outcome.error = error
    return outcome
