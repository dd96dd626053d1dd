"""Distractor sessions: a task's authored history lengthened, deterministically, with small talk and unrelated questions.

A task names ``distractors: {seed: N}``; the exchanges come from the authored library ``distractors.yaml``
beside this module (each a short user-first conversation on one topic, no task detail, no chore left open; a
seasonal one only in its months). Some are small talk; the closer ones are the user's other, finished chores in
an office app (their ``apps``): a task takes those close to its own apps first, so its days compete under retrieval
with sessions on the same kind of work, as in OdysseyBench's long histories. The seed and the task id fix which
exchanges go where, so the history is the same on every machine and only the seed is stored in the task file. An
exchange whose text matches one of the task's detail cues is never used (it could answer for a detail). The split
decides the shape, after OdysseyBench's two splits:

- ``plus``: extra short sessions on free dates in the weeks before and between the task's days (many short
  sessions; the task's own days compete with them under retrieval);
- ``neo``: exactly the task's 5 days, each made long by whole exchanges after its own conversation (before it
  when the day ends with the user), spread evenly over the days; a day's own conversation is never cut.

Exchanges are added, in the seeded order, until the history reaches its split's :data:`TARGETS` (turns and
tokens, counted with the machine-independent ``approx-chars/4`` counter).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path
from re import _parser  # type: ignore[attr-defined]  # the stdlib's regex parser: typeshed has no stub for the private module
from typing import Literal

from proactive_bench.suites.odyssey.memory_docs import DAY_BREAK, HistoryDay, render_day, render_turns
from proactive_bench.suites.odyssey.memory_tokens import ApproxCounter
from proactive_bench.yaml_files import read_yaml_file

Split = Literal["plus", "neo"]
LIBRARY = Path(__file__).with_name("distractors.yaml")
NEO_DAYS = 5
LEAD_DAYS = 35
"""How far before the task's first day ``plus`` distractor sessions may fall."""
MAX_PER_SESSION = 2
"""Exchanges in one ``plus`` distractor session (1 or 2; mostly 1, see :data:`TWO_IN_A_SESSION`)."""
TWO_IN_A_SESSION = 0.25


@dataclass(frozen=True)
class Target:
    """The size a lengthened history reaches: at least this many turns, tokens (approx-chars/4) and sessions."""

    turns: int
    tokens: int
    sessions: int = 0


TARGETS: dict[Split, Target] = {"plus": Target(100, 3_700, 24), "neo": Target(120, 5_200)}
"""After OdysseyBench's table 4: plus ~28 short sessions and 3.5k tokens, neo 5 sessions and 5.2k tokens."""


@dataclass(frozen=True)
class Exchange:
    """One authored distractor: (role, text) turns, the user first; ``{weekday}`` is the session's weekday."""

    id: str
    turns: tuple[tuple[str, str], ...]
    months: frozenset[int] = frozenset()
    """The months it suits (a seasonal topic); empty: any."""
    apps: frozenset[str] = frozenset()
    """The office apps its chore is in (a closer distractor for tasks on them); empty: small talk."""

    def on(self, day: date) -> tuple[tuple[str, str], ...]:
        weekday = day.strftime("%A")
        return tuple((role, text.replace("{weekday}", weekday)) for role, text in self.turns)


@lru_cache(maxsize=1)
def library() -> tuple[Exchange, ...]:
    """The authored exchanges of ``distractors.yaml``."""
    entries = read_yaml_file(LIBRARY)
    return tuple(
        Exchange(
            entry["id"],
            tuple(("user" if n % 2 == 0 else "assistant", text) for n, text in enumerate(entry["turns"])),
            frozenset(entry.get("months", ())),
            frozenset(entry.get("apps", ())),
        )
        for entry in entries
    )


def _reached(days: Sequence[HistoryDay], target: Target) -> bool:
    if len(days) < target.sessions or sum(len(day.turns) for day in days) < target.turns:
        return False
    history = sum(map(_rendered_length, days)) + len(DAY_BREAK) * max(len(days) - 1, 0)  # len(render_history(days)), any order
    return ApproxCounter().count_length(history) >= target.tokens


@lru_cache(maxsize=4096)
def _rendered_length(day: HistoryDay) -> int:
    """``len(render_day(day))``, kept: the history is measured again after every exchange added, its days mostly unchanged."""
    return len(render_day(day))


def _usable(cues: Sequence[str], month: int) -> list[Exchange]:
    """The exchanges that suit the month and match none of the cues (each searched for ignoring case)."""
    found = [_finder(cue) for cue in cues]
    return [ex for ex, text in _rendered_library() if (not ex.months or month in ex.months) and not any(f(text) for f in found)]


@lru_cache(maxsize=1024)
def _finder(cue: str) -> Callable[[RenderedText], bool]:
    """Whether a rendered exchange holds a match of ``cue``, ignoring case. A cue of ASCII characters matched literally
    (most: a figure, a name, a phrase) is looked for in the lower-cased text where the text is ASCII: ignoring case
    then pairs ASCII letters only, so it finds what the regex finds, without trying the regex at every position."""
    items = list(_parser.parse(cue, re.IGNORECASE))  # raises re.error as compiling it would
    literal = "".join(chr(code) for _op, code in items) if all(op is _parser.LITERAL and code < 128 for op, code in items) else None

    def search(text: RenderedText) -> bool:
        return _compiled(cue).search(text.text) is not None

    if literal is None:
        return search
    lowered = literal.lower()
    return lambda text: lowered in text.lowered if text.lowered is not None else search(text)


@lru_cache(maxsize=1024)
def _compiled(cue: str) -> re.Pattern[str]:
    return re.compile(cue, re.IGNORECASE)


@dataclass(frozen=True)
class RenderedText:
    """An exchange's turns as a history shows them, and (when ASCII) lower-cased."""

    text: str
    lowered: str | None


@lru_cache(maxsize=1)
def _rendered_library() -> tuple[tuple[Exchange, RenderedText], ...]:
    """Each authored exchange with its turns rendered as a history shows them (what the cues are matched against)."""
    rendered = [(ex, render_turns(ex.turns)) for ex in library()]
    return tuple((ex, RenderedText(text, text.lower() if text.isascii() else None)) for ex, text in rendered)


def lengthen(
    days: Sequence[HistoryDay], split: Split, seed: int, task_id: str, cues: Sequence[str], now: date, apps: Collection[str] = ()
) -> list[HistoryDay]:
    """``days`` (the authored history, in date order) with distractors added to the split's target size; the
    exchanges close to ``apps`` (the task's) come first, each group in the seeded order."""
    return list(_lengthened(tuple(days), split, seed, task_id, tuple(cues), now, frozenset(apps)))


@lru_cache(maxsize=64)
def _lengthened(
    days: tuple[HistoryDay, ...], split: Split, seed: int, task_id: str, cues: tuple[str, ...], now: date, apps: frozenset[str]
) -> tuple[HistoryDay, ...]:
    """:func:`lengthen`'s history, kept by its arguments: validating a task asks for its history several times."""
    rng = random.Random(f"{task_id}/{seed}")
    pool = _usable(cues, now.month)
    rng.shuffle(pool)
    pool.sort(key=lambda ex: not ex.apps & apps, reverse=True)  # popped from the end: the close ones first
    if split == "neo":
        return tuple(_inserted(list(days), pool, TARGETS["neo"]))
    return tuple(_sessions(list(days), pool, rng, TARGETS["plus"], now))


def _sessions(days: list[HistoryDay], pool: list[Exchange], rng: random.Random, target: Target, now: date) -> list[HistoryDay]:
    """``plus``: distractor sessions on free dates from ``LEAD_DAYS`` before the first day up to the day before ``now``."""
    taken = {day.date for day in days}
    first = min(taken) if taken else now
    free = [d for n in range(1, (now - first).days + LEAD_DAYS + 1) if (d := now - timedelta(days=n)) not in taken]
    rng.shuffle(free)
    added: list[HistoryDay] = []
    while pool and free and not _reached(days + added, target):
        when = free.pop()
        chosen = [pool.pop() for _ in range(min(len(pool), MAX_PER_SESSION if rng.random() < TWO_IN_A_SESSION else 1))]
        added.append(HistoryDay(when, tuple(turn for ex in chosen for turn in ex.on(when))))
    return sorted(days + added, key=lambda day: day.date)


def _inserted(days: list[HistoryDay], pool: list[Exchange], target: Target) -> list[HistoryDay]:
    """``neo``: whole exchanges added to each day in turn, after its last turn (before its first when the day ends
    with the user), so the day's own conversation is never cut."""
    n = 0
    while pool and days and not _reached(days, target):
        index = n % len(days)
        day = days[index]
        exchange = pool.pop().on(day.date)
        turns = day.turns + exchange if day.turns[-1][0] == "assistant" else exchange + day.turns
        days[index] = HistoryDay(day.date, turns)
        n += 1
    return days
