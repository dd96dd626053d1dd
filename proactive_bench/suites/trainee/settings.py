"""The trainee suite's run settings (``TraineeOptions``, its ``settings_model``).

Its own module, loading nothing of the suite: ``pbench episode`` and ``pbench sweep`` build their ``--days``,
``--hints``, ... options from this model without loading the templates, colleagues or apps.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from proactive_bench.suites.base import SWEPT, NoSettings

HINT_SETTINGS: tuple[str, ...] = ("none", "data", "method", "both")
NPC_BACKENDS = ("rules", "llm")


def clock_minutes(text: str) -> tuple[float, float]:
    """``CALL,STEP`` minutes (``2,1``) as two non-negative numbers; ValueError (one line) naming --clock."""
    try:
        call, step = (float(part) for part in text.split(","))
    except ValueError:
        call = step = -1.0
    if call < 0 or step < 0:
        raise ValueError(f"--clock: expected CALL,STEP minutes (two non-negative numbers, e.g. 2,1), got {text!r}")
    return call, step


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
        if self.clock is not None:
            clock_minutes(self.clock)  # its ValueError names --clock
        return self
