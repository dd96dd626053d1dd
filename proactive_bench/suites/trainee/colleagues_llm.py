"""LLM colleagues: a chat model judges which of an NPC's clues the intern's question targets (prompt ``npc.v1``).

The same pre-screen and caps as the rules colleagues apply (``user.screen_questions``,
``user.cap_claims``, the colleague's patience); the model only says which
admissible question targets which of *this* colleague's clues, quoting it, and
a quoted question that does not name the clue's subject (its ``subject`` cues,
as for the rules colleagues) is not a claim: a keyword question that fits every
clue of a kind stays unanswered whatever the model makes of it. The
reply is the released clues' own text, so the colleague never says more than
its clues.

The model is called on the run's model-call path (:class:`~proactive_bench.llm.ToolModels`,
bound per run by :meth:`LLMColleagues.with_models`): the run's transport and
rate limit, the call cache (``pbench replay`` serves the judgments from the
record), and the call ledger under role ``npc``. The judgment is a structured
call (:class:`~proactive_bench.llm.StructuredCaller`): server errors, timeouts
and prose instead of JSON are retried a bounded number of times. A judgment
that still cannot be made gives a reply with ``failure`` set — no clue is
released, the failure is recorded with the message and shown to the agent —
never a guessed release.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from pydantic import BaseModel, Field

from proactive_bench.env import ChatLine, ColleagueReply
from proactive_bench.llm import RetryPolicy, StructuredCaller, StructuredOutputError, ToolModels, load_prompt, one_line
from proactive_bench.suites.trainee.colleagues import DEFLECTION, TIRED, HeldClue, asked_and_earned, held_clues
from proactive_bench.suites.trainee.compose import Scenario
from proactive_bench.suites.trainee.model import Npc
from proactive_bench.user import cap_claims, match_admissible, patience_spent_over, screen_questions

PROMPT = load_prompt("suites/trainee/prompts", "npc.v1")
PURPOSE = "clue_judgment"
POLICY = RetryPolicy(max_attempts=4, attempts_per_method=2, transient_retries=2)
"""Bounds on one judgment: four answers over all methods, two transient faults on top of the transport's retries."""
NO_REPLY = "(No reply: your colleague could not answer this message just now. You may try again later.)"
FAILURE_LIMIT = 300


class ColleagueModelError(ValueError):
    """LLM colleagues asked to reply outside a run (no model-call path bound); the chat tool call fails with it."""


class Judgment(BaseModel):
    """The model's answer: which fact (by id) the latest message targets, quoting the question it relies on."""

    targeted: dict[str, str] = Field(description="Fact id -> the quoted question that targets it; empty when none does.")


@dataclass
class LLMColleagues:
    """The scenario's NPCs judged by a chat model on an OpenAI-compatible server."""

    scenario: Scenario
    model: str
    base_url: str | None = None
    npcs: dict[str, Npc] = field(init=False)
    clues: tuple[HeldClue, ...] = field(init=False)
    prompt_hash: str = PROMPT.hash
    caller: StructuredCaller | None = None
    """The judgment's structured caller on a run's model-call path (set by :meth:`with_models`)."""

    def __post_init__(self) -> None:
        self.npcs = {n.handle: n for day in self.scenario.days for n in day.npcs}
        self.clues = held_clues(self.scenario)
        self._conditions = {task.clue_id(day.day, c): c for day in self.scenario.days for task in day.tasks for c in task.draft.clues}

    def with_models(self, models: ToolModels) -> LLMColleagues:
        """A copy whose judgments go through one run's model-call path (recorded as role ``npc``)."""
        chat = models.chat(self.model, self.base_url)
        return replace(self, caller=StructuredCaller(chat, self.model, "npc", models.recorder, POLICY))

    async def reply(self, handle: str, text: str, thread: list[ChatLine], moment: datetime) -> ColleagueReply:
        if patience_spent_over(asked_and_earned(thread)):
            return ColleagueReply(TIRED, decided_by=self.decided_by)
        released = {c for line in thread for c in line.released}
        open_clues = [c for c in self.clues if c.holder == handle and c.is_open(released, moment)]
        screen = screen_questions(text)
        if not open_clues or not screen.admissible:
            return ColleagueReply(DEFLECTION, decided_by=self.decided_by)
        try:
            targeted = await self._judge(self.npcs[handle], open_clues, screen.admissible)
        except StructuredOutputError as exc:
            return ColleagueReply(NO_REPLY, decided_by=self.decided_by, failure=one_line(f"colleague {handle}: {exc}", FAILURE_LIMIT))
        claims = {}
        for clue_id, quote in targeted.items():
            question = match_admissible(quote, screen)
            clue = next((c for c in open_clues if c.id == clue_id), None)
            if question is not None and clue is not None and clue.names_subject(question):
                claims[clue_id] = question
        claims = cap_claims(claims)
        if not claims:
            return ColleagueReply(DEFLECTION, decided_by=self.decided_by)
        released_now = tuple(c.id for c in open_clues if c.id in claims)
        return ColleagueReply(" ".join(c.text for c in open_clues if c.id in claims), released_now, self.decided_by)

    @property
    def decided_by(self) -> str:
        """The model and the prompt's version, recorded with every reply (``chat_message.decided_by``)."""
        return f"llm:{self.model} {PROMPT.name}@{PROMPT.hash}"

    async def _judge(self, npc: Npc, clues: list[HeldClue], questions: list[str]) -> dict[str, str]:
        if self.caller is None:
            raise ColleagueModelError(f"colleague {npc.handle}: LLM colleagues answer only inside a run (no model-call path bound)")
        facts = "\n".join(f"- {c.id}: {self._conditions[c.id].question}" for c in clues)
        fixed = {
            "name": npc.name,
            "role": npc.role,
            "department": npc.department,
            "persona": npc.persona,
            "facts": facts,
            "questions": "\n".join(f"- {q}" for q in questions),
        }
        judged = await self.caller.call_prompt(Judgment, PROMPT, PURPOSE, fixed, {})
        return judged.value.targeted
