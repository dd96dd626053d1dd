"""The input of ``pbench generate odyssey``: an atomic task (everything of a task but its history), read strictly.

Fields the generator reads are validated here (id, title, apps, user, now,
intent, details with their cue regexes, criteria); the other task fields
(``reference``, ``tools``, ...) pass through to the written task untouched,
where ``pbench validate`` checks the whole. Every problem is one line naming
the file, the field and the reason.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from proactive_bench.suites.generation_rounds import GenerationInputError
from proactive_bench.suites.odyssey.task import Detail
from proactive_bench.suites.task_files import TaskUser
from proactive_bench.yaml_files import YamlFileError, read_yaml_file

ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]*$"


class SeedTask(BaseModel):
    """An atomic task: what the history must lead up to. Unlisted fields are kept as they are."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=1)
    apps: list[str] = Field(min_length=1, max_length=3)
    user: TaskUser
    now: datetime
    intent: str = Field(min_length=1)
    details: list[Detail] = Field(min_length=1)
    criteria: list[dict[str, Any]] = Field(min_length=1)

    @model_validator(mode="after")
    def _generatable(self) -> SeedTask:
        if "history" in (self.model_extra or {}):
            raise ValueError("history: the task already has one; generation writes it (remove it to generate anew)")
        ids = [d.id for d in self.details]
        if len(set(ids)) != len(ids):
            raise ValueError(f"details: duplicate ids {sorted({i for i in ids if ids.count(i) > 1})}")
        leaked = [d.id for d in self.details if d.found_in(self.intent)]
        if leaked:
            raise ValueError(f"details {leaked}: the cue matches the intent, so the detail would not need the history")
        return self


def load_seed_task(path: Path) -> SeedTask:
    """The atomic task in ``path``, or a one-line :class:`GenerationInputError`."""
    try:
        data = read_yaml_file(path)
    except YamlFileError as exc:
        raise GenerationInputError(str(exc)) from None
    if not isinstance(data, dict):
        raise GenerationInputError(f"{path}: expected a mapping of task fields, got {type(data).__name__}")
    try:
        return SeedTask.model_validate(data)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) + ": " if problem["loc"] else ""  # a whole-task check names its fields
        raise GenerationInputError(f"{path}: {where}{problem['msg'].removeprefix('Value error, ')}") from None
