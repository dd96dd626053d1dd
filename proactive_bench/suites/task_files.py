"""Task folders shared by the suites whose tasks are ``<root>/<suite folder>/<task id>/task.yaml`` (odyssey, agentif).

Reading a task file gives the task's pydantic model or every problem of the
file as (file, field, reason), the way the dataset loader reports them;
:class:`TaskFolder` binds a suite's folder to its task model; ``TaskUser`` is
the asking user both formats share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proactive_bench.dataset import ID_PATTERN, LoadedEpisode, Problem, format_loc
from proactive_bench.yaml_files import YamlFileError, read_yaml_file

TASK_FILE = "task.yaml"
TaskModel = TypeVar("TaskModel", bound=BaseModel)


class StrictModel(BaseModel):
    """A task-format model: unknown fields are errors."""

    model_config = ConfigDict(extra="forbid")


class TaskUser(StrictModel):
    """Who the task is for: becomes the episode's persona."""

    name: str = Field(min_length=1)
    role: str = Field(min_length=1, description="Occupation and situation, in a sentence or two.")


def folder_task_names(root: Path, folder: str) -> list[str]:
    """The task ids under ``root/folder`` (folders holding a task file), sorted."""
    where = root / folder
    return sorted(p.name for p in where.iterdir() if (p / TASK_FILE).is_file()) if where.is_dir() else []


def relative_to_root(path: Path, root: Path) -> str:
    """``path`` as the problems name it: relative to the dataset root when inside it."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def read_task_model(root: Path, folder: str, task_id: str, model: type[TaskModel]) -> tuple[TaskModel | None, list[Problem]]:
    """The task's model, or None and every problem of its file; its ``id`` must equal the folder's name."""
    root = root.resolve()
    path = root / folder / task_id / TASK_FILE
    rel = relative_to_root(path, root)
    if not re.fullmatch(ID_PATTERN, task_id):
        return None, [Problem(folder, "", f"{task_id!r} is not a task id (letters, digits, '_', '.', '-')")]
    if not path.is_file():
        known = ", ".join(folder_task_names(root, folder)) or "none"
        return None, [Problem(rel, "", f"no such task; tasks here: {known}")]
    try:
        data = read_yaml_file(path)
    except YamlFileError as exc:
        return None, [Problem(rel, exc.where, exc.reason)]
    if not isinstance(data, dict):
        return None, [Problem(rel, "", f"expected a mapping at the top level, got {type(data).__name__}")]
    try:
        task = model.model_validate(data)
    except ValidationError as exc:
        return None, [Problem(rel, format_loc(e["loc"]), _reason(e)) for e in exc.errors()]
    if getattr(task, "id", task_id) != task_id:
        return None, [Problem(rel, "id", f"is {getattr(task, 'id')!r} but the folder is named {task_id!r}")]
    return task, []


def _reason(error: dict) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown field"
    return str(error["msg"]).removeprefix("Value error, ")


@dataclass(frozen=True)
class TaskFolder(Generic[TaskModel]):
    """One suite's tasks: ``<root>/<folder>/<task id>/task.yaml`` read as ``model``."""

    folder: str
    model: type[TaskModel]

    def names(self, root: Path) -> list[str]:
        return folder_task_names(root, self.folder)

    def file(self, root: Path, task_id: str) -> Path:
        return root / self.folder / task_id / TASK_FILE

    def read(self, root: Path, task_id: str) -> tuple[TaskModel | None, list[Problem]]:
        """The task's model, or None and every problem of its file (file, field, reason)."""
        return read_task_model(root, self.folder, task_id, self.model)


class FolderSuite:
    """The ``Suite`` methods shared by suites of task folders: ``names``, ``load_all`` and ``problems``, from the
    subclass's ``tasks`` (its :class:`TaskFolder`) and ``checked`` (one task's episode and problems)."""

    tasks: ClassVar[TaskFolder]

    def names(self, root: Path) -> list[str]:
        return self.tasks.names(root)

    def load_all(self, root: Path) -> tuple[dict[str, LoadedEpisode], list[Problem]]:
        root = root.resolve()
        episodes: dict[str, LoadedEpisode] = {}
        problems: list[Problem] = []
        for name in self.names(root):
            loaded, found = self.checked(root, name)
            problems += found
            if loaded is not None:
                episodes[name] = loaded
        return episodes, problems

    def problems(self, root: Path, name: str) -> list[Problem]:
        return self.checked(root.resolve(), name)[1]

    def checked(self, root: Path, name: str) -> tuple[LoadedEpisode | None, list[Problem]]:
        """One task loaded (None when it cannot be), with every problem found in it."""
        raise NotImplementedError
