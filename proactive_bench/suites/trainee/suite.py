"""The :class:`TraineeSuite`: generated workplace scenarios ``s<seed>-n<count>``, one session per working day."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, Field, model_validator

from proactive_bench.dataset import DatasetError, LoadedEpisode, Problem
from proactive_bench.env import ClockRates, Colleagues
from proactive_bench.suites.base import SWEPT, NoSettings, SuiteContext
from proactive_bench.suites.trainee.colleagues import rules_colleagues
from proactive_bench.suites.trainee.colleagues_llm import LLMColleagues
from proactive_bench.suites.trainee.compose import Scenario, default_names, parse_name
from proactive_bench.suites.trainee.day_plan import HINT_SETTINGS, TimelineError
from proactive_bench.suites.trainee.loading import FOLDER, SUITE_NAME, TraineeSettings, load_scenario
from proactive_bench.suites.trainee.model import TaskDraft

NPC_BACKENDS = ("rules", "llm")


def parse_clock(text: str | None) -> ClockRates:
    """``CALL,STEP`` minutes (``2,1``) as clock rates; ValueError (one line) naming --clock."""
    if text is None:
        return ClockRates()
    try:
        call, step = (float(part) for part in text.split(","))
        return ClockRates(call, step)
    except ValueError:
        raise ValueError(f"--clock: expected CALL,STEP minutes (two non-negative numbers, e.g. 2,1), got {text!r}") from None


class TraineeOptions(NoSettings):
    """The trainee suite's settings: days, guidance, who plays the colleagues, how fast the clock runs."""

    days: int | None = Field(default=None, description="Trainee: working days per scenario, 1 or 2 (day 2: feedback on day 1, new seeds).")
    hints: str | None = Field(
        default=None, description=f"Trainee: hint setting, {', '.join(HINT_SETTINGS)} (default none).", json_schema_extra=SWEPT
    )
    npc: str | None = Field(default=None, description="Trainee: the colleagues' backend, rules (default) or llm.")
    npc_model: str | None = Field(default=None, description="Trainee, with --npc llm: the chat model that plays the colleagues.")
    clock: str | None = Field(
        default=None, description="Trainee: simulated minutes per tool call and per agent step, CALL,STEP (default 2,1)."
    )

    @model_validator(mode="after")
    def _consistent(self) -> TraineeOptions:
        if self.days is not None and self.days not in (1, 2):
            raise ValueError(f"--days must be 1 or 2, not {self.days}")
        if self.hints is not None and self.hints not in HINT_SETTINGS:
            raise ValueError(f"--hints must be one of {', '.join(HINT_SETTINGS)}, not {self.hints!r}")
        if self.npc is not None and self.npc not in NPC_BACKENDS:
            raise ValueError(f"--npc must be rules or llm, not {self.npc!r}")
        if self.npc == "llm" and not self.npc_model:
            raise ValueError("--npc llm needs --npc-model (the chat model that plays the colleagues)")
        if self.npc_model and self.npc != "llm":
            raise ValueError("--npc-model goes with --npc llm")
        parse_clock(self.clock)  # its ValueError names --clock
        return self

    def scenario_settings(self) -> TraineeSettings:
        """How a scenario is composed under these settings (their defaults filled in)."""
        return TraineeSettings(days=self.days or 1, hints=self.hints or "none", rates=parse_clock(self.clock))


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
            return load_scenario(name, options.scenario_settings(), self._colleagues(options, settings.base_url))
        except (ValueError, RuntimeError) as exc:  # ScenarioNameError, TimelineError, a template's draft that does not validate
            raise DatasetError([Problem(FOLDER, name, str(exc).splitlines()[0])]) from None

    def _colleagues(self, options: TraineeOptions, base_url: str | None):  # a factory
        if options.npc != "llm":
            return rules_colleagues
        model = options.npc_model or ""

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
