"""Rules colleagues: an NPC releases a clue only to a targeted question that meets the clue's condition.

The message's questions are screened by the main user's targeted-question rule
(``user.screen_questions``: generic, menu and survey questions are set aside);
a clue is claimed by the first admissible question about it — one that names
the clue's subject (a ``subject`` cue: its product, supplier, meeting, the
claims it rules) and asks for its kind of fact (an ``ask`` cue) — once its
``after`` clue is out and, for a clue said during a meeting (``from_minute``), once
that moment has come, so a bare keyword question ("What is the budget?")
that fits every clue of a kind targets none; claims are capped (``user.cap_claims``);
and once the colleague's patience is spent (``user.patience_spent_over`` over
the thread: substantive questions that earned nothing) nothing more is released.
A laundry list sent to everybody therefore releases nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from proactive_bench.env import ChatLine, ColleagueReply
from proactive_bench.suites.trainee.compose import Scenario
from proactive_bench.suites.trainee.model import Npc
from proactive_bench.user import cap_claims, patience_spent_over, screen_questions

DEFLECTION = "Sorry, I'm not sure what you need from me. Could you ask me something specific about your task?"
TIRED = "I've answered what I can for now; please check the task materials."
RULES = "rules"


@dataclass(frozen=True)
class HeldClue:
    """A clue as its holder knows it, under its scenario id (``t2.k1``)."""

    id: str
    holder: str
    text: str
    ask: tuple[re.Pattern[str], ...]
    """What kind of fact a question about the clue asks for."""
    subject: tuple[re.Pattern[str], ...]
    """What the clue is about; a question must name it too."""
    after: str | None = None
    from_moment: datetime | None = None
    """Before this moment the holder does not know the clue yet (it is announced in a meeting then)."""

    def is_open(self, released: set[str], moment: datetime) -> bool:
        """Whether the holder can tell it now: not told yet, its ``after`` clue out, its moment come."""
        return (
            self.id not in released
            and (self.after is None or self.after in released)
            and (self.from_moment is None or moment >= self.from_moment)
        )

    def names_subject(self, question: str) -> bool:
        """Whether the question names what the clue is about (the LLM colleagues' gate; the model judges the rest)."""
        return any(c.search(question) for c in self.subject)

    def targeted_by(self, question: str) -> bool:
        """Whether the question is about this clue: it names the clue's subject and asks for its kind of fact."""
        return self.names_subject(question) and any(c.search(question) for c in self.ask)


@dataclass(frozen=True)
class RulesColleagues:
    """The scenario's NPCs answering by their clues' cues (zero model calls)."""

    npcs: dict[str, Npc]
    clues: tuple[HeldClue, ...]

    def released_before(self, thread: list[ChatLine]) -> set[str]:
        return {c for line in thread for c in line.released}

    def claims(self, handle: str, text: str, thread: list[ChatLine], moment: datetime) -> dict[str, str]:
        """Clue id -> the admissible question of ``text`` that targets it, within the caps and the colleague's patience."""
        if patience_spent_over(asked_and_earned(thread)):
            return {}
        released = self.released_before(thread)
        admissible = screen_questions(text).admissible
        claims: dict[str, str] = {}
        for clue in self.clues:
            if clue.holder != handle or not clue.is_open(released, moment):
                continue
            hit = next((q for q in admissible if clue.targeted_by(q)), None)
            if hit is not None:
                claims[clue.id] = hit
        return cap_claims(claims)

    def reply(self, handle: str, text: str, thread: list[ChatLine], moment: datetime) -> ColleagueReply:
        claims = self.claims(handle, text, thread, moment)
        if not claims:
            spent = patience_spent_over(asked_and_earned(thread))
            return ColleagueReply(TIRED if spent else DEFLECTION, decided_by=RULES)
        said = [c.text for c in self.clues if c.id in claims]
        return ColleagueReply(" ".join(said), tuple(c.id for c in self.clues if c.id in claims), RULES)


def asked_and_earned(thread: list[ChatLine]) -> list[tuple[str, int]]:
    """Each message the agent sent, with how many clues the reply after it released."""
    pairs: list[tuple[str, int]] = []
    for n, line in enumerate(thread):
        if line.direction == "out":
            answer = thread[n + 1] if n + 1 < len(thread) and thread[n + 1].direction == "in" else None
            pairs.append((line.text, len(answer.released) if answer else 0))
    return pairs


def held_clues(scenario: Scenario) -> tuple[HeldClue, ...]:
    """Every clue an NPC holds in the scenario, under its scenario id (``d1.t2.k1``), both days."""
    return tuple(
        HeldClue(
            task.clue_id(day.day, c),
            c.holder,
            c.text,
            _compiled(c.ask),
            _compiled(c.subject),
            task.clue_id(day.day, c.after) if c.after else None,
            day.company.day_start + timedelta(minutes=c.from_minute) if c.from_minute is not None else None,
        )
        for day in scenario.days
        for task in day.tasks
        for c in task.draft.clues
        if not c.in_file
    )


def rules_colleagues(scenario: Scenario) -> RulesColleagues:
    """The scenario's colleagues under the rules backend."""
    return RulesColleagues({n.handle: n for day in scenario.days for n in day.npcs}, held_clues(scenario))


def _compiled(cues: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in cues)
