"""The user's dialogue history as retrievable documents, at the raw granularities (sessions, utterances).

A history is a list of :class:`HistoryDay` (one dated session each). Raw
documents are made here; summary documents come from
:mod:`~proactive_bench.suites.odyssey.memory_summaries`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Protocol


class Granularity(StrEnum):
    """What one retrievable document is (OdysseyBench section 4)."""

    RAW_SESSION = "raw-session"
    """One day's whole conversation."""
    RAW_UTTERANCE = "raw-utterance"
    """One turn."""
    SUMMARY_SESSION = "summary-session"
    """A model's summary of one day."""
    SUMMARY_CHUNK = "summary-chunk"
    """A model's summary of a window of consecutive days."""

    @property
    def summarized(self) -> bool:
        return self in (Granularity.SUMMARY_SESSION, Granularity.SUMMARY_CHUNK)


@dataclass(frozen=True)
class HistoryDay:
    """One dated session of the history: its turns as (role, text), role ``user`` or ``assistant``."""

    date: date
    turns: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class MemoryDoc:
    """One retrievable document; ``source`` names the day(s) or turn it came from, e.g. ``2025-03-04 #3``."""

    id: str
    text: str
    source: str


class _Turn(Protocol):
    @property
    def role(self) -> str: ...
    @property
    def text(self) -> str: ...


class _Day(Protocol):
    @property
    def date(self) -> date: ...

    @property
    def turns(self) -> Sequence[_Turn]: ...


def history_days(days: Iterable[_Day]) -> list[HistoryDay]:
    """A task's history (objects with ``date`` and ``turns`` of ``role``/``text``) as :class:`HistoryDay` values."""
    return [HistoryDay(day.date, tuple((turn.role, turn.text) for turn in day.turns)) for day in days]


def render_turns(turns: Iterable[tuple[str, str]]) -> str:
    return "\n".join(f"{role}: {text}" for role, text in turns)


def render_day(day: HistoryDay) -> str:
    """One day as the agent reads it: a dated heading, then one ``role: text`` line per turn."""
    return f"## {day.date.isoformat()}\n{render_turns(day.turns)}"


DAY_BREAK = "\n\n"
"""What separates two days in a rendered history."""


def render_history(days: Sequence[HistoryDay]) -> str:
    """The whole history, day after day (the long-context setting)."""
    return DAY_BREAK.join(render_day(day) for day in days)


def raw_documents(days: Sequence[HistoryDay], granularity: Granularity) -> list[MemoryDoc]:
    """One document per day (``raw-session``) or per turn (``raw-utterance``), in history order."""
    if granularity == Granularity.RAW_SESSION:
        return [MemoryDoc(f"s{n}", render_day(day), day.date.isoformat()) for n, day in enumerate(days, start=1)]
    if granularity == Granularity.RAW_UTTERANCE:
        return [
            MemoryDoc(f"s{n}u{m}", f"{role}: {text}", f"{day.date.isoformat()} #{m}")
            for n, day in enumerate(days, start=1)
            for m, (role, text) in enumerate(day.turns, start=1)
        ]
    raise ValueError(f"{granularity} is not a raw granularity")
