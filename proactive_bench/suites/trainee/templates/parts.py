"""What several templates are built from: their heading, an attempt predicate, "this and none of those" checks, an e-mail step."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from proactive_bench.suites.trainee.model import Difficulty, Domain, Step
from proactive_bench.suites.trainee.template import checker

Predicate = dict[str, object]
Row = list[Any]
"""A spreadsheet row as a template writes it: cells of any type."""


@dataclass(frozen=True)
class TemplateHeading:
    """A template's name, difficulty, apps and domain (the paper's four, ``model.DOMAINS``); a template subclasses it, adds
    ``instantiate`` and registers an instance."""

    name: str
    difficulty: Difficulty
    apps: tuple[str, ...]
    domain: Domain


def iso_minutes(moment: datetime) -> str:
    """A moment as the calendar and clock apps write it: ISO 8601 to the minute."""
    return moment.isoformat(timespec="minutes")


def called(tool: str, **args: str) -> Predicate:
    """The agent called ``tool`` with each named argument containing the given text (matched literally)."""
    return {"tool_called": {"name": tool, "args": {key: re.escape(value) for key, value in args.items()}}}


def none_but(check: Predicate, wrong: Iterable[Predicate]) -> Predicate:
    """``check`` holds and none of ``wrong`` does (the right answer, and no other candidate beside it)."""
    return {"all": [check, *({"not": other} for other in wrong)]}


def file_holds(path: str, present: Iterable[str], absent: Iterable[str] = ()) -> Predicate:
    """The file at ``path`` contains every text of ``present`` and none of ``absent``."""
    return {
        "all": [
            *(checker("file_contains", path=path, text=text) for text in present),
            *(checker("file_contains", path=path, text=text, absent=True) for text in absent),
        ]
    }


def email_step(to: str, subject: str, body: str, needs: tuple[str, ...] = (), guessed_body: str | None = None) -> Step:
    """The oracle's e-mail to one address; ``guessed_body`` is what an agent that did not ask would write instead."""
    mail = {"email_addresses": [to], "subject": subject, "body": body}
    return Step(tool="gmail__send_email", args=mail, needs=needs, guess=None if guessed_body is None else {**mail, "body": guessed_body})


def number_forms(n: int) -> tuple[str, ...]:
    """The ways a whole number is written in a message: ``27000`` and ``27,000`` (one form below a thousand)."""
    return tuple(dict.fromkeys((str(n), f"{n:,}")))


def any_form(n: int, holds: Callable[[str], Predicate]) -> Predicate:
    """``holds`` for one of the number's written forms (:func:`number_forms`)."""
    return {"any": [holds(form) for form in number_forms(n)]}
