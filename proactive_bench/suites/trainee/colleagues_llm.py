"""LLM colleagues: a chat model judges which of an NPC's clues the intern's question targets (prompt ``npc.v1``).

The same pre-screen and caps as the rules colleagues apply (``user.screen_questions``,
``user.cap_claims``, the colleague's patience); the model only says which
admissible question targets which of *this* colleague's clues, quoting it. The
reply is the released clues' own text, so the colleague never says more than
its clues. A model that cannot be reached or answers out of form (after
bounded retries) makes the message fail with a one-line error: a judgment that
could not be made is never guessed.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime

import openai

from proactive_bench.env import ChatLine, ColleagueReply
from proactive_bench.llm import load_prompt, one_line
from proactive_bench.suites.trainee.colleagues import DEFLECTION, TIRED, HeldClue, asked_and_earned, held_clues
from proactive_bench.suites.trainee.compose import Scenario
from proactive_bench.suites.trainee.model import Npc
from proactive_bench.user import cap_claims, match_admissible, patience_spent_over, screen_questions

PROMPT = load_prompt("suites/trainee/prompts", "npc.v1")
MAX_ATTEMPTS = 3
TIMEOUT_S = 60.0


class ColleagueModelError(ValueError):
    """The colleagues' model failed to judge a message (one line; the chat tool call fails with it)."""


@dataclass
class LLMColleagues:
    """The scenario's NPCs judged by a chat model on an OpenAI-compatible server."""

    scenario: Scenario
    model: str
    base_url: str | None = None
    npcs: dict[str, Npc] = field(init=False)
    clues: tuple[HeldClue, ...] = field(init=False)
    prompt_hash: str = PROMPT.hash

    def __post_init__(self) -> None:
        self.npcs = {n.handle: n for day in self.scenario.days for n in day.npcs}
        self.clues = held_clues(self.scenario)
        self._conditions = {
            task.clue_id(day.day, c): c for day in self.scenario.days for task in day.tasks for c in task.draft.clues
        }
        key = os.environ.get("OPENAI_API_KEY") or "not-needed"
        self._client = openai.OpenAI(base_url=self.base_url, api_key=key, max_retries=1, timeout=TIMEOUT_S)

    def reply(self, handle: str, text: str, thread: list[ChatLine], moment: datetime) -> ColleagueReply:
        if patience_spent_over(asked_and_earned(thread)):
            return ColleagueReply(TIRED, decided_by=self.decided_by)
        released = {c for line in thread for c in line.released}
        open_clues = [c for c in self.clues if c.holder == handle and c.id not in released and (c.after is None or c.after in released)]
        screen = screen_questions(text)
        if not open_clues or not screen.admissible:
            return ColleagueReply(DEFLECTION, decided_by=self.decided_by)
        claims = {}
        for clue_id, quote in self._judge(self.npcs[handle], open_clues, screen.admissible).items():
            question = match_admissible(quote, screen) if isinstance(quote, str) else None
            if question is not None and any(c.id == clue_id for c in open_clues):
                claims[clue_id] = question
        claims = cap_claims(claims)
        if not claims:
            return ColleagueReply(DEFLECTION, decided_by=self.decided_by)
        released = tuple(c.id for c in open_clues if c.id in claims)
        return ColleagueReply(" ".join(c.text for c in open_clues if c.id in claims), released, self.decided_by)

    @property
    def decided_by(self) -> str:
        """The model and the prompt's version, recorded with every reply (``chat_message.decided_by``)."""
        return f"llm:{self.model} {PROMPT.name}@{PROMPT.hash}"

    def _judge(self, npc: Npc, clues: list[HeldClue], questions: list[str]) -> dict[str, object]:
        facts = "\n".join(f"- {c.id}: {self._conditions[c.id].question}" for c in clues)
        prompt = PROMPT.render(
            name=npc.name, role=npc.role, department=npc.department, persona=npc.persona, facts=facts,
            questions="\n".join(f"- {q}" for q in questions),
        )
        problem = "no attempt"
        for _ in range(MAX_ATTEMPTS):
            try:
                answer = self._client.chat.completions.create(
                    model=self.model.removeprefix("openai:"), messages=[{"role": "user", "content": prompt}], temperature=0,
                    response_format={"type": "json_object"},
                )
                data = json.loads(answer.choices[0].message.content or "")
                targeted = data["targeted"]
                if isinstance(targeted, dict):
                    return targeted
                problem = "'targeted' is not an object"
            except (openai.OpenAIError, json.JSONDecodeError, KeyError, TypeError, IndexError) as exc:
                problem = one_line(f"{type(exc).__name__}: {exc}", 200)
        raise ColleagueModelError(f"colleague {npc.handle}: model {self.model} gave no judgment after {MAX_ATTEMPTS} attempts ({problem})")
