"""What counts as a targeted question: the pre-filter both user backends share.

A question can earn an intent the label *inferred* only when it is about that
intent specifically: the screen looks at what a question asks, not only at its
shape. Before either backend judges a turn, :func:`screen_questions` splits the
agent's reply into question sentences and sets aside those that cannot target
anything:

- **generic**: built on an open frame ("anything else ...", "what else ...",
  "anything I missed ...", "is there anything ...", "any preferences ...")
  whatever words follow it ("Anything else, maybe for the index?"), or left
  with fewer than :data:`MIN_CONTENT_WORDS` content words once filler
  ("should", "want", "details", ...) is removed ("Should I add it?");
- **menu**: one sentence that enumerates options (at least
  :data:`MENU_SEPARATORS` commas, semicolons, "or"s, "and"s or "plus"es; ", or"
  counts once) or runs past :data:`MAX_QUESTION_WORDS` words: a checklist of
  dimensions, not a question ("A, B, C, D and E?" as much as "A, B, C, D or E?");
- **survey**: a turn whose admissible questions hold more than
  :data:`MAX_QUESTIONS_PER_TURN` asks: every one of them is set aside.

**Examples.** A question with an example part ("..., e.g. X", "... - for
example X", "..., like X", "..., such as X") whose frame is open or generic
counts as the generic question it is plus at most X: the frame earns nothing,
and X alone is what the question asks, judged as a question of its own. Each
example of X (split at "or", "and", "&", commas and slashes) must be admissible
on its own: "What else, e.g. the index or the tracker?" and "... e.g. index and
tracker?" are generic (two bare nouns each), "What else should I add to the index, e.g. the cefepime plan?" asks
only about "the cefepime plan" (the index in its frame earns nothing). An
example part after a specific frame ("Should I round the doses, like the
nearest 20 mg?") belongs to the question and adds its asks to it.

**Asks.** :func:`asks_in` splits a question where a coordination joins two
asks: a second clause ("..., and should I ..."), a second verb phrase ("... and
update the tracker"), a noun phrase with its own determiner ("... and the
tracker", with the commas of such a list), "as well as", ", also", "plus" in
the same places, and any "and" when the question ends with "too", "as well",
"together" or "both" ("the index and tracker too?"). "Pros and cons",
"cefepime plus metronidazole" or "P&T" stay one ask, and a fixed pair or a
citation ("terms and conditions", "Smith and Jones 2024") is never split.
Asks, not sentences, count toward the survey cap and the user's patience, so
"Should I add it to the index and update the tracker too?" is two questions
and a turn cannot pack eight asks into four sentences.

The backends then decide which admissible question targets which intent (the
rules backend by ``ask`` cues, the LLM backend by its question stage), and
:func:`cap_claims` applies the second half of the rule to those claims: a
question claimed by more than :data:`MAX_INTENTS_PER_QUESTION` intents targets
none of them (the cap holds per sentence, whatever its asks: stricter than per
ask), and a turn whose questions claim more than :data:`MAX_INTENTS_PER_TURN`
intents targets none.

A question that repeats one the user asked in the session (their content
words in order, at most a third more) is an **echo**: quoting the request
back asks the user nothing.

Across turns, a survey spread thin is still a survey: once
:data:`MAX_MISSES` substantive asks of the session (admissible ones, menus
and surveys; generic questions are harmless) have earned nothing, and they
outnumber those that earned an intent, the user has stopped answering
questions as a collaborator (:func:`patience_spent`) and no later question
of the session targets anything.

The thresholds were set against the shipped dataset's targeted questions (each
intent's ``question``, asked one per turn by ``scripted:asker``): every one has
at least 2 content words, at most 3 separators, at most 26 words and at most 3
asks, and matches the cues of exactly one intent of its session (one,
"What time should the e-mails go out, for example 7am Pacific?", has a generic
frame: its example is what it asks); the adversarial baselines
(``scripted:shotgun``, ``scripted:drip``, ``scripted:vague``) fall on the other side.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from proactive_bench.data_model import IntentLabel, IntentStatus, Stage, questions_in

MIN_CONTENT_WORDS = 2
MENU_SEPARATORS = 4
MAX_QUESTION_WORDS = 40
MAX_QUESTIONS_PER_TURN = 4
MAX_INTENTS_PER_QUESTION = 2
MAX_INTENTS_PER_TURN = 3
MAX_MISSES = 3

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'&.%-]*")
_SEPARATOR = re.compile(r",\s*(?:and|or|plus)\b|,(?!\d{3}\b)|;|\band/or\b|\b(?:or|and|plus)\b|(?<=\s)&(?=\s)", re.IGNORECASE)
_GENERIC_FRAME = re.compile(
    r"\b(anything|something) (else|more|further|additional)\b|\bis there anything\b|\banything (i|we) should\b"
    r"|\bwhat else\b|\banything (?:that )?(?:i|we)(?:'ve| have)? (?:missed|forgot|forgotten|overlooked|left out)\b"
    r"|\b(?:did|have) (?:i|we) (?:miss|missed|forget|forgotten|overlook|overlooked|leave out|left out)\b"
    r"|\bany (other )?(preferences?|requirements?|wishes|changes|thoughts|feedback|concerns|comments|notes)\b",
    re.IGNORECASE,
)
_EXAMPLE = re.compile(
    r"(?:[,:;(]\s*|\s[-\u2013\u2014]\s*|\s)(?:e\.g\.|eg|for example|for instance|such as)[,:]?\s+"
    r"|(?:[,:;(]|\s[-\u2013\u2014])\s*(?:like|say)[,:]?\s+",
    re.IGNORECASE,
)
"""Where a question's example part starts: "..., e.g. X", "... - for example X", "..., like X"."""

_DETERMINER = r"(?:the|a|an|your|our|my|their|its|his|her|this|that|these|those|each|every|all|both|another|any)\b"
_PRONOUN = r"(?:it|them|him|her|me|us|this|that|these|those|one|everything|something|anything)\b"
_VERB = (
    r"(?:add|update|save|put|send|ask|check|include|remove|delete|keep|leave|drop|use|apply|compute|calculate|count"
    r"|compare|cite|merge|attach|move|tell|notify|remind|be|create|write|prepare|confirm|give|state|set|make|mention"
    r"|email|e-mail|copy|cc|flag|mark|tag|log|note|record|list|file|track|register|index|schedule|draft|book|share|post"
    r"|link|rename|sort|group|split|round|convert|export|import|archive|close|open|pin|label|highlight)\b"
)
_AUX = r"(?:should|shall|can|could|do|does|did|will|would|may|might|must|is|are|was|were|has|have)"
_SUBJECT = r"(?:i|we|you|it|they|he|she|the|this|that|these|those|there)\b"
_WH = r"(?:if so|at what|what|which|how|when|where|who|whom|whose|whether|why)\b"
_ASK_JOIN = re.compile(
    r"\bas well as\b|\balong with\b|\bin addition to\b"
    r"|,\s*(?:and\s+|plus\s+)?also\b"
    r"|(?:,\s*)?(?:\b(?:and|plus)|(?<=\s)&)\s+(?:also\s+|then\s+)?"
    rf"(?=(?:{_AUX}\s+{_SUBJECT}|{_WH}|{_DETERMINER}|{_VERB}\s+\S|(?-i:[a-z][a-z'-]*(?:[^\Ws]|ss))\s+(?:{_DETERMINER}|{_PRONOUN})))"
    rf"|,\s*(?={_DETERMINER}[^?]*(?:\b(?:and|plus)|\s&)\s+{_DETERMINER})",
    re.IGNORECASE,
)
"""A coordination that joins two asks: a second clause ("and should I"), verb phrase ("and update ...",
"and ask for ...": a common verb, or a lower-case word not ending in a plural s followed by a determiner or
pronoun), noun phrase with its own determiner ("and the tracker", and the commas of such a list),
"as well as", ", also"."""
_ONE_THING = re.compile(
    r"(?i:\b(?:pros and cons|terms and conditions|profit and loss|research and development|mergers and acquisitions"
    r"|supply and demand|trial and error|back and forth|black and white|rules and regulations|policies and procedures)\b)"
    r"|\b[A-Z][A-Za-z'-]+ (?:and|&) [A-Z][A-Za-z'-]+,? (?:et al\.?,? )?\(?(?:19|20)\d\d\b"
)
"""Phrases that name one thing with an "and" in them (fixed pairs, "Smith and Jones 2024"): never split."""
_MASK = "\ue000"
_ADDITIVE_END = re.compile(r"\b(?:too|as well|together|both|at once|at the same time)\W*$", re.IGNORECASE)
_BARE_AND = re.compile(r"\b(?:and|plus)\b|(?<=\s)&(?=\s)", re.IGNORECASE)
_EXAMPLE_JOIN = re.compile(r",|;|/|\b(?:or|and|plus)\b|(?<=\s)&(?=\s)", re.IGNORECASE)
"""Where one example of a list ends and the next begins ("e.g. the index, the log or the tracker")."""

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
    ECHO = "echo"
    """The user's own question, repeated back: quoting the request is not asking about it."""


@dataclass
class QuestionScreen:
    """One agent turn's questions: those that may target an intent, and those set aside (with why).

    ``admissible`` holds what each admissible question asks, to match against cues: the
    question itself, or only its example part when its frame is an open one ("What
    else, e.g. X?" asks X). ``asks`` counts the asks in each (see :func:`asks_in`).
    """

    questions: list[str]
    admissible: list[str]
    rejected: dict[str, Rejection] = field(default_factory=dict)
    asks: dict[str, int] = field(default_factory=dict)


def content_words(sentence: str) -> list[str]:
    """The words of a sentence that are not filler, lower-cased."""
    return [w for w in (m.group().lower().rstrip(".") for m in _WORD.finditer(sentence)) if w and w not in FILLER]


def asks_in(question: str) -> list[str]:
    """The parts of a question that each ask for something: split where a coordination joins two asks.

    "Should I add it to the index and update the tracker?", "... the index and the
    tracker?", "... the index as well as the tracker?", "... the index, also the
    tracker?" and "... the index and tracker too?" ask two things; "pros and cons",
    "Smith and Jones 2024", "cefepime plus metronidazole" or "P&T" stay one.
    """
    masked = _masked(question)
    parts = _ASK_JOIN.split(masked)
    if _ADDITIVE_END.search(masked):
        parts = [piece for part in parts for piece in _BARE_AND.split(part)]
    return [part.replace(_MASK, "and") for part in parts if content_words(part)] or [question]


def _masked(text: str) -> str:
    """The text with the conjunction of every one-thing phrase hidden from the splitters."""
    return _ONE_THING.sub(lambda m: re.sub(r"\band\b|&", _MASK, m.group()), text)


def _open_frame(text: str) -> bool:
    return bool(_GENERIC_FRAME.search(text)) or len(content_words(text)) < MIN_CONTENT_WORDS


def _menu(text: str) -> bool:
    return len(_SEPARATOR.findall(_masked(text))) >= MENU_SEPARATORS or len(text.split()) > MAX_QUESTION_WORDS


@lru_cache(maxsize=4096)
def _judge(question: str) -> tuple[str, int] | Rejection:
    """What an admissible question asks (the text to match) and how many asks it holds, or why it is set aside: judged
    once per text (a colleague screens the same questions from every agent and baseline; the answer is immutable)."""
    example = _EXAMPLE.search(question)
    if example is not None and _open_frame(question[: example.start()]):
        asked = question[example.end() :].strip()  # the open frame earns nothing: the example is the question
        examples = [p for part in _EXAMPLE_JOIN.split(_masked(asked)) for p in asks_in(part) if p.strip(" ?.")]
        if not examples or any(_open_frame(e) for e in examples):
            return Rejection.GENERIC
        return Rejection.MENU if _menu(asked) else (asked, len(examples))
    if _open_frame(question):
        return Rejection.GENERIC
    if _menu(question):
        return Rejection.MENU
    if example is None:
        return question, len(asks_in(question))
    return question, len(asks_in(question[: example.start()])) + len(asks_in(question[example.end() :]))


def screen_questions(reply: str, heard: Iterable[str] = ()) -> QuestionScreen:
    """Sort a reply's questions into admissible and set aside (generic, menu, survey, echo).

    ``heard`` are the user's messages of the session so far: a question of the
    reply that repeats one of theirs (the same content words) is an echo.
    """
    questions = questions_in(reply)
    theirs = [q for message in heard for q in questions_in(message)]
    rejected: dict[str, Rejection] = {}
    kept: dict[str, tuple[str, int]] = {}
    for question in questions:
        if any(echoes(question, q) for q in theirs):
            rejected[question] = Rejection.ECHO
            continue
        judged = _judge(question)
        if isinstance(judged, Rejection):
            rejected[question] = judged
        else:
            kept[question] = judged
    if sum(n for _, n in kept.values()) > MAX_QUESTIONS_PER_TURN:
        rejected.update({q: Rejection.SURVEY for q in kept})
        kept = {}
    asks = {asked: n for asked, n in kept.values()}
    return QuestionScreen(questions, list(asks), rejected, asks)


def echoes(question: str, theirs: str) -> bool:
    """Whether ``question`` repeats the user's question ``theirs``: it holds their content words in order and adds
    at most a third more ("Noted: can you set it up in todoist?")."""
    mine, said = _normalize(question), _normalize(theirs)
    return bool(said) and f" {said} " in f" {mine} " and len(said.split()) * 3 >= len(mine.split()) * 2


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
    """Turn -> the distinct evidence texts (the quoted questions) of the intents a question targeted at that turn: inferred,
    or answered without credit (a re-asked known convention, an intent no question earns). Such a question was about a
    requirement: it is neither untargeted in the burden nor a miss that spends the user's patience."""
    credited: dict[int, set[str]] = defaultdict(set)
    for label in labels:
        if label.status == IntentStatus.INFERRED or label.stage in (Stage.REASKED, Stage.QUESTION):
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
        admissible, asked = _asks_counted(message)
        earned = min(admissible, credited)
        hits, misses = hits + earned, misses + asked - earned
    return misses >= MAX_MISSES and misses > hits


@lru_cache(maxsize=4096)
def _asks_counted(message: str) -> tuple[int, int]:
    """A message's admissible asks and the asks that count as asked (all but generic questions), as
    :func:`patience_spent_over` counts them: screened once per text, not at each later turn that judges the patience."""
    screen = screen_questions(message)
    admissible = sum(screen.asks.values())
    return admissible, admissible + sum(reason != Rejection.GENERIC for reason in screen.rejected.values())


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
