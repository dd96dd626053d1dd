"""The :class:`TraineeSuite`: generated workplace scenarios ``s<seed>-n<count>``, one session per working day."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel

from proactive_bench.dataset import DatasetError, LoadedEpisode, Problem
from proactive_bench.env import ClockRates, Colleagues
from proactive_bench.suites.base import SuiteContext
from proactive_bench.suites.trainee import checkers as _checkers  # noqa: F401  (adds the trainee checkers: every use of the suite has them)
from proactive_bench.suites.trainee.colleagues import rules_colleagues
from proactive_bench.suites.trainee.compose import Scenario, default_names, parse_name
from proactive_bench.suites.trainee.day_plan import TimelineError
from proactive_bench.suites.trainee.loading import FOLDER, SUITE_NAME, TraineeSettings, load_scenario
from proactive_bench.suites.trainee.model import TaskDraft
from proactive_bench.suites.trainee.settings import TraineeOptions, clock_minutes


def scenario_settings(options: TraineeOptions) -> TraineeSettings:
    """How a scenario is composed under these settings (their defaults filled in)."""
    return TraineeSettings(days=options.days or 1, hints=options.hints or "none", rates=parse_clock(options.clock))


def parse_clock(text: str | None) -> ClockRates:
    """``CALL,STEP`` minutes (``2,1``) as clock rates (the defaults for None); ValueError (one line) naming --clock."""
    return ClockRates() if text is None else ClockRates(*clock_minutes(text))


@dataclass(frozen=True)
class TraineeSuite:
    """Trainee-Bench-style days at work: colleagues hold the clues, a clock with deadlines and interrupts, checkpoint scores."""

    name: str = SUITE_NAME
    folder: str = FOLDER
    settings_model: ClassVar[type[BaseModel]] = TraineeOptions

    def names(self, root: Path) -> list[str]:
        """The default benchmark (scenarios are generated: the dataset root holds none)."""
        return default_names()

    def load(self, root: Path, name: str, settings: SuiteContext) -> LoadedEpisode:
        try:
            options = settings.parsed(TraineeOptions)
            return load_scenario(name, scenario_settings(options), self._colleagues(options, settings.base_url))
        except (ValueError, RuntimeError) as exc:  # ScenarioNameError, TimelineError, a template's draft that does not validate
            raise DatasetError([Problem(FOLDER, name, str(exc).splitlines()[0])]) from None

    def _colleagues(self, options: TraineeOptions, base_url: str | None):  # a factory
        if options.npc != "llm":
            return rules_colleagues
        model = options.npc_model or ""
        from proactive_bench.suites.trainee.colleagues_llm import LLMColleagues  # DEFERRED: the model clients, for --npc llm only

        def llm(scenario: Scenario) -> Colleagues:
            return LLMColleagues(scenario, model, base_url)

        return llm

    def load_all(self, root: Path) -> tuple[dict[str, LoadedEpisode], list[Problem]]:
        """Nothing under a dataset root: scenarios are generated (``pbench validate --suite trainee`` checks the templates)."""
        return {}, []

    def problems(self, root: Path, name: str) -> list[Problem]:
        try:
            parse_name(name)
            load_scenario(name, TraineeSettings(days=2))
        except (ValueError, RuntimeError, TimelineError) as exc:
            return [Problem(FOLDER, name, str(exc).splitlines()[0])]
        return []

    def group(self, root: Path, name: str) -> str | None:
        """The scenario's table group: its number of concurrent tasks (``3 tasks``)."""
        try:
            return f"{parse_name(name)[1]} tasks"
        except ValueError:
            return None

    @property
    def formats(self) -> dict[str, type[BaseModel]]:
        return {"trainee template output (code: suites/trainee/templates/)": TaskDraft}


SUITE = TraineeSuite()
