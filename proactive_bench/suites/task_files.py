"""Task folders shared by the suites whose tasks are ``<root>/<suite folder>/<task id>/task.yaml`` (odyssey, agentif).

Reading a task file gives the task's pydantic model or every problem of the
file as (file, field, reason), the way the dataset loader reports them;
:class:`TaskFolder` binds a suite's folder to its task model; ``TaskUser`` is
the asking user both formats share.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from proactive_bench.dataset import ID_PATTERN, LoadedEpisode, PartialModel, Problem, parse_partly
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
    task, _partial, problems = read_task_partly(root, folder, task_id, model)
    return task, problems


def read_task_partly(
    root: Path,
    folder: str,
    task_id: str,
    model: type[TaskModel],
) -> tuple[TaskModel | None, PartialModel[TaskModel] | None, list[Problem]]:
    """The task's model when its file has no error; else None, what of the file parses (None when nothing does)
    and every problem of it. The ``id`` must equal the folder's name (the part that parses takes the folder's)."""
    root = root.resolve()
    path = root / folder / task_id / TASK_FILE
    rel = relative_to_root(path, root)
    if not re.fullmatch(ID_PATTERN, task_id):
        return None, None, [Problem(folder, "", f"{task_id!r} is not a task id (letters, digits, '_', '.', '-')")]
    if not path.is_file():
        known = ", ".join(folder_task_names(root, folder)) or "none"
        return None, None, [Problem(rel, "", f"no such task; tasks here: {known}")]
    try:
        data = read_yaml_file(path)
    except YamlFileError as exc:
        return None, None, [Problem(rel, exc.where, exc.reason)]
    task, partial, problems = parse_partly(model, data, rel)
    candidate = task if task is not None else partial.model if partial is not None else None
    if candidate is None or task is not None and getattr(task, "id", task_id) == task_id:
        return task, None, problems
    base = partial or PartialModel(candidate)
    broken = base.broken
    if (found_id := getattr(candidate, "id", task_id)) != task_id and not base.is_broken("id"):
        problems.append(Problem(rel, "id", f"is {found_id!r} but the folder is named {task_id!r}"))
        broken += ("id",)
    update = {"id": task_id} if "id" in type(candidate).model_fields else {}
    return None, PartialModel(candidate.model_copy(update=update), broken, base.kept), problems


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

    def read_partly(self, root: Path, task_id: str) -> tuple[TaskModel | None, PartialModel[TaskModel] | None, list[Problem]]:
        """The task's model, or None, what of its file parses and every problem of it (:func:`read_task_partly`)."""
        return read_task_partly(root, self.folder, task_id, self.model)


class FolderSuite:
    """The ``Suite`` methods shared by suites of task folders: ``names``, ``load_all`` (and ``load_some``) and
    ``problems``, from the subclass's ``tasks`` (its :class:`TaskFolder`) and ``checked`` (one task's episode and problems)."""

    tasks: ClassVar[TaskFolder]

    def names(self, root: Path) -> list[str]:
        return self.tasks.names(root)

    def load_all(self, root: Path) -> tuple[dict[str, LoadedEpisode], list[Problem]]:
        return self.load_some(root, self.names(root.resolve()))

    def load_some(self, root: Path, names: Sequence[str]) -> tuple[dict[str, LoadedEpisode], list[Problem]]:
        """:meth:`load_all` of the named tasks only (``pbench validate`` checks a suite's tasks in shares, in parallel)."""
        root = root.resolve()
        episodes: dict[str, LoadedEpisode] = {}
        problems: list[Problem] = []
        for name in names:
            loaded, found = self.checked(root, name)
            problems += found
            if loaded is not None:
                episodes[name] = loaded
        return episodes, problems

    def problems(self, root: Path, name: str) -> list[Problem]:
        return self.checked(root.resolve(), name)[1]

    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """What ``task_checked``'s checks read besides the field they report on: a problem whose field matches a key (a
    regex) is left out when the file has an error at or under one of the key's fields (it would be a consequence)."""

    def checked(self, root: Path, name: str) -> tuple[LoadedEpisode | None, list[Problem]]:
        """One task loaded (None when it cannot be), with every problem found in it: a file with errors is checked
        as far as it parses (``task_checked`` on its valid parts), save what repeats its errors or reads a broken field."""
        task, partial, problems = self.tasks.read_partly(root, name)
        if task is not None:
            loaded, found = self.task_checked(root, task)
            return loaded, problems + found
        if partial is None:
            return None, problems
        found = self.task_checked(root, partial.model)[1]
        return None, problems + [replace(p, field=where) for p in found if (where := partial.where(p.field, self.reads)) is not None]

    def task_checked(self, root: Path, task: Any) -> tuple[LoadedEpisode | None, list[Problem]]:
        """One parsed task's episode (None when it cannot be made) and the problems of its fields."""
        raise NotImplementedError
