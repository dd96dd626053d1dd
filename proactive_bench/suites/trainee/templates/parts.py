"""What several templates are built from: their heading, an attempt predicate, "this and none of those" checks, an e-mail step."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from proactive_bench.suites.trainee.model import Difficulty, Step
from proactive_bench.suites.trainee.template import checker

Predicate = dict[str, object]
Row = list[Any]
"""A spreadsheet row as a template writes it: cells of any type."""


@dataclass(frozen=True)
class TemplateHeading:
    """A template's name, difficulty and apps; a template subclasses it, adds ``instantiate`` and registers an instance."""

    name: str
    difficulty: Difficulty
    apps: tuple[str, ...]


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
