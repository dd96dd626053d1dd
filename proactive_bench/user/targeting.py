"""What counts as a targeted question: the pre-filter both user backends share.

A question can earn an intent the label *inferred* only when it is about that
intent specifically. Before either backend judges a turn, :func:`screen_questions`
splits the agent's reply into question sentences and sets aside those that
cannot target anything:

- **generic**: built on an open frame ("anything else ...", "is there
  anything ...", "any preferences ...") whatever words follow it ("Anything
  else, maybe for the index?"), or left with fewer than
  :data:`MIN_CONTENT_WORDS` content words once filler ("should", "want",
  "details", ...) is removed ("Should I add it?");
- **menu**: one sentence that enumerates options (at least
  :data:`MENU_SEPARATORS` commas, semicolons or "or"s) or runs past
  :data:`MAX_QUESTION_WORDS` words: a checklist of dimensions, not a question;
- **survey**: a turn with more than :data:`MAX_QUESTIONS_PER_TURN` questions
  left after the two filters above: every one of them is set aside.

The backends then decide which admissible question targets which intent (the
rules backend by ``ask`` cues, the LLM backend by its question stage), and
:func:`cap_claims` applies the second half of the rule to those claims: a
question claimed by more than :data:`MAX_INTENTS_PER_QUESTION` intents targets
none of them, and a turn whose questions claim more than
:data:`MAX_INTENTS_PER_TURN` intents targets none.

Across turns, a survey spread thin is still a survey: once
:data:`MAX_MISSES` substantive questions of the session (admissible ones, menus
and surveys; generic ones are harmless) have earned nothing, and they
outnumber those that earned an intent, the user has stopped answering
questions as a collaborator (:func:`patience_spent`) and no later question
of the session targets anything.

The thresholds were set against the shipped dataset's targeted questions (each
intent's ``question``, asked one per turn by ``scripted:asker``): every one has
at least 2 content words, at most 3 separators, at most 26 words, and matches
the cues of exactly one intent of its session; the adversarial baselines
(``scripted:shotgun``, ``scripted:drip``, ``scripted:vague``) fall on the other side.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from proactive_bench.data_model import IntentLabel, IntentStatus, questions_in

MIN_CONTENT_WORDS = 2
MENU_SEPARATORS = 4
MAX_QUESTION_WORDS = 40
MAX_QUESTIONS_PER_TURN = 4
MAX_INTENTS_PER_QUESTION = 2
MAX_INTENTS_PER_TURN = 3
MAX_MISSES = 3

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'&.%-]*")
_SEPARATOR = re.compile(r",(?!\d{3}\b)|;|\bor\b|\band/or\b", re.IGNORECASE)
_GENERIC_FRAME = re.compile(
    r"\b(anything|something) (else|more|further|additional)\b|\bis there anything\b|\banything (i|we) should\b"
    r"|\bany (other )?(preferences?|requirements?|wishes|changes|thoughts|feedback|concerns|comments|notes)\b",
    re.IGNORECASE,
)

FILLER = frozenset(
    """
    a an the this that these those it its it's is are was were be been being am do does did done doing
    have has had having will would shall should can could may might must i i'd i'll i'm me my we we'd
    we're us our you you'd you're your yours he she they them their there here what which who whom
    whose when where why how whether if then than so as at by for from in into of on onto to with
    without about over under up out off and or but nor not no yes any anything anyone anybody
    anywhere some something someone everything every all else other others more most less much many
    few just also too very really please thanks thank okay ok well now again still already let let's
    like know want wanted need needs needed wish think thought sure fine good great right wrong
    happy help helpful prefer preference preferences particular specific specifically certain
    look looks looking go going get got make made see seen
    question questions thing things stuff way ways kind sort bit part point points detail details
    requirement requirements wishes expectations additional further extra missing
    important relevant useful before after finish finished ready time
    """.split()
)
"""Words that say nothing about which requirement a question is about."""


class Rejection(StrEnum):
    GENERIC = "generic"
    MENU = "menu"
    SURVEY = "survey"


@dataclass
class QuestionScreen:
    """One agent turn's questions: those that may target an intent, and those set aside (with why)."""

    questions: list[str]
    admissible: list[str]
    rejected: dict[str, Rejection] = field(default_factory=dict)


def content_words(sentence: str) -> list[str]:
    """The words of a sentence that are not filler, lower-cased."""
    return [w for w in (m.group().lower().rstrip(".") for m in _WORD.finditer(sentence)) if w and w not in FILLER]


def _rejection(question: str) -> Rejection | None:
    if _GENERIC_FRAME.search(question) or len(content_words(question)) < MIN_CONTENT_WORDS:
        return Rejection.GENERIC
    if len(_SEPARATOR.findall(question)) >= MENU_SEPARATORS or len(question.split()) > MAX_QUESTION_WORDS:
        return Rejection.MENU
    return None


def screen_questions(reply: str) -> QuestionScreen:
    """Sort a reply's questions into admissible and set aside (generic, menu, survey)."""
    questions = questions_in(reply)
    rejected = {q: reason for q in questions if (reason := _rejection(q)) is not None}
    admissible = [q for q in questions if q not in rejected]
    if len(admissible) > MAX_QUESTIONS_PER_TURN:
        rejected.update({q: Rejection.SURVEY for q in admissible})
        admissible = []
    return QuestionScreen(questions, admissible, rejected)


def cap_claims(claims: dict[str, str]) -> dict[str, str]:
    """Intent id -> the question that targets it, keeping only claims the rule allows.

    ``claims`` maps each intent a backend found targeted to the admissible
    question that targets it. A question claimed by too many intents loses all
    of them; a turn that claims too many intents in total loses every claim.
    """
    per_question: dict[str, list[str]] = {}
    for intent_id, question in claims.items():
        per_question.setdefault(question, []).append(intent_id)
    kept = {i: q for i, q in claims.items() if len(per_question[q]) <= MAX_INTENTS_PER_QUESTION}
    return kept if len(kept) <= MAX_INTENTS_PER_TURN else {}


def credited_questions(labels: Iterable[IntentLabel]) -> dict[int, set[str]]:
    """Turn -> the distinct evidence texts (the quoted questions) of the intents inferred at that turn."""
    credited: dict[int, set[str]] = defaultdict(set)
    for label in labels:
        if label.status == IntentStatus.INFERRED:
            credited[label.turn].add(label.evidence)
    return credited


def patience_spent(replies: Iterable[tuple[int, str]], labels: Iterable[IntentLabel]) -> bool:
    """Whether the agent's earlier ``(turn, reply)`` pairs hold too many questions that earned nothing (see the module docstring)."""
    credited = credited_questions(labels)
    return patience_spent_over((reply, len(credited[turn])) for turn, reply in replies)


def patience_spent_over(turns: Iterable[tuple[str, int]]) -> bool:
    """The same rule over ``(message, how many things its questions earned)`` pairs (a colleague's thread, for instance)."""
    hits = misses = 0
    for message, credited in turns:
        screen = screen_questions(message)
        asked = len(screen.admissible) + sum(reason != Rejection.GENERIC for reason in screen.rejected.values())
        earned = min(len(screen.admissible), credited)
        hits, misses = hits + earned, misses + asked - earned
    return misses >= MAX_MISSES and misses > hits


def match_admissible(quote: str, screen: QuestionScreen) -> str | None:
    """The admissible question a backend's quote refers to (by containment or shared content words), if any."""
    norm = _normalize(quote)
    if not norm:
        return None
    for question in screen.admissible:
        if norm in _normalize(question) or _normalize(question) in norm:
            return question
    words = set(content_words(quote))
    best = max(screen.admissible, key=lambda q: len(words & set(content_words(q))), default=None)
    if best is not None and len(words & set(content_words(best))) >= max(MIN_CONTENT_WORDS, len(words) // 2):
        return best
    return None


def _normalize(text: str) -> str:
    return " ".join(content_words(text))
