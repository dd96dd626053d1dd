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

from itertools import pairwise
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from proactive_bench.llm import StructuredCaller, load_prompt
from proactive_bench.suites.generation_limits import ODYSSEY_MAX_ROUNDS
from proactive_bench.suites.generation_rounds import Outcome as RoundsOutcome, RoundSteps, RoundVerdict, run_rounds
from proactive_bench.suites.odyssey.generation_seed import SeedTask
from proactive_bench.suites.odyssey.memory_docs import HistoryDay, history_days, render_history
from proactive_bench.suites.odyssey.memory_tokens import TokenCounter, default_token_counter
from proactive_bench.suites.odyssey.task import Day

PROMPTS = "suites/odyssey/prompts"
GENERATOR_PROMPT = load_prompt(PROMPTS, "history_generator.v2")
VERIFIER_PROMPT = load_prompt(PROMPTS, "history_verifier.v2")
MAX_ROUNDS = ODYSSEY_MAX_ROUNDS
MIN_DAYS = 5
MIN_TOKENS, MAX_TOKENS = 1000, 5000
"""The task format's bounds on a history's size, in tokens of the default counter."""
ASKED_WORDS = (900, 3000)
"""The size asked of the generator, in words: well inside the token bounds."""
CRITERIA = ("realism", "alignment", "coherence", "details_present")


class GeneratedHistory(BaseModel):
    """The generator's answer: the conversations of several days, each in the task format's :class:`Day`."""

    days: list[Day] = Field(min_length=1)

    def as_days(self) -> list[HistoryDay]:
        return history_days(self.days)


class Verdict(RoundVerdict):
    """The verifier's judgment of one attempt."""

    criteria: ClassVar[tuple[str, ...]] = CRITERIA
    realism: bool
    alignment: bool
    coherence: bool
    details_present: bool
    missing_details: list[str] = Field(default_factory=list, description="Ids of details missing, vague or altered.")

    @property
    def approves(self) -> bool:
        """Passed, every criterion met, no detail missing."""
        return super().approves and not self.missing_details


Outcome = RoundsOutcome[GeneratedHistory, Verdict]


def mechanical_problems(task: SeedTask, history: GeneratedHistory, counter: TokenCounter) -> tuple[list[str], int]:
    """What a history lacks by rule, and its size in tokens."""
    problems = []
    dates = [day.date for day in history.days]
    if len(set(dates)) < MIN_DAYS:
        problems.append(f"the history has {len(set(dates))} day(s); it needs at least {MIN_DAYS}")
    if any(later <= earlier for earlier, later in pairwise(dates)):
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
        "title": task.title,
        "intent": task.intent,
        "apps": ", ".join(task.apps),
        "user_name": task.user.name,
        "user_role": task.user.role,
        "details": "\n".join(f"- {d.id}: {d.text}" for d in task.details),
    }


async def generate_history(
    task: SeedTask,
    generator: StructuredCaller,
    verifier: StructuredCaller,
    max_rounds: int = MAX_ROUNDS,
    counter: TokenCounter | None = None,
) -> Outcome:
    """Rounds of writing and judging until a round passes or ``max_rounds`` have failed."""
    counter = counter or default_token_counter()
    fixed = {
        **_task_parts(task),
        "now": task.now.isoformat(timespec="minutes"),
        "now_date": task.now.date().isoformat(),
        "min_days": str(MIN_DAYS),
        "min_words": str(ASKED_WORDS[0]),
        "max_words": str(ASKED_WORDS[1]),
    }

    async def write(previous: str) -> GeneratedHistory:
        return (await generator.call_prompt(GeneratedHistory, GENERATOR_PROMPT, "history_generation", fixed, {"previous": previous})).value

    async def check(history: GeneratedHistory) -> tuple[list[str], dict[str, Any]]:
        problems, tokens = mechanical_problems(task, history, counter)
        return problems, {"tokens": tokens}

    async def judge(history: GeneratedHistory) -> Verdict:
        parts = {**_task_parts(task), "history": render_history(history.as_days())}
        return (await verifier.call_prompt(Verdict, VERIFIER_PROMPT, "history_verification", parts, {})).value

    steps = RoundSteps("history", write, check, judge, "Write the whole log again, fixing these points.")
    return await run_rounds(steps, generator, verifier, max_rounds)
