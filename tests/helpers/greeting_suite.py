"""A suite from a plug-in package, as another project would write it (public names only): the personas suite's
episodes, each session opening with a greeting its own setting chooses. Registered in tests by an entry point
``pbench.suites: greeting = tests.helpers.greeting_suite:SUITE``; pbench offers ``--greeting`` from ``GreetingSettings``.

Each load appends ``<task> <greeting>`` to the file ``$PBENCH_GREETING_LOG`` (when set): what the runs received.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, Field, field_validator

from proactive_bench import (
    SUITES,
    SWEPT,
    LoadedEpisode,
    NoSettings,
    Problem,
    SuiteContext,
)


class GreetingSettings(NoSettings):
    """The greeting suite's one setting."""

    greeting: str | None = Field(
        default=None, description="Greeting: the word each session's first message opens with (default Hello).", json_schema_extra=SWEPT
    )

    @field_validator("greeting")
    @classmethod
    def _a_word(cls, greeting: str | None) -> str | None:
        if greeting is not None and not greeting.isalpha():
            raise ValueError(f"a greeting is one word of letters, not {greeting!r}")
        return greeting


@dataclass(frozen=True)
class GreetingSuite:
    """Persona episodes under another name, greeted."""

    name: str = "greeting"
    folder: str = "episodes"
    settings_model: ClassVar[type[BaseModel]] = GreetingSettings

    def names(self, root: Path) -> list[str]:
        return SUITES.get("personas").names(root)

    def load(self, root: Path, name: str, settings: SuiteContext) -> LoadedEpisode:
        greeting = settings.parsed(GreetingSettings).greeting or "Hello"
        if log := os.environ.get("PBENCH_GREETING_LOG"):
            with open(log, "a", encoding="utf-8") as out:
                out.write(f"{name} {greeting}\n")
        loaded = SUITES.get("personas").load(root, name, settings)
        sessions = [
            s.model_copy(update={"trigger": s.trigger.model_copy(update={"message": f"{greeting}! {s.trigger.message}"})})
            for s in loaded.sessions
        ]
        return replace(loaded, sessions=sessions, suite=self.name)

    def load_all(self, root: Path) -> tuple[dict[str, LoadedEpisode], list[Problem]]:
        return SUITES.get("personas").load_all(root)

    def problems(self, root: Path, name: str) -> list[Problem]:
        return SUITES.get("personas").problems(root, name)

    def group(self, root: Path, name: str) -> str | None:
        return None

    @property
    def formats(self) -> dict[str, type[BaseModel]]:
        return {}


SUITE = GreetingSuite()
