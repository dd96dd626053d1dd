"""The :class:`AgentIFSuite`: AgentIF-OneDay-style tasks under ``<root>/agentif/``, each a one-session episode with the simulated user."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel

from proactive_bench.dataset import LoadedEpisode, Problem
from proactive_bench.suites.agentif import deliverable_checks as _checks  # noqa: F401  (adds the deliverable checkers: every use of the suite has them)
from proactive_bench.suites.agentif.loading import FOLDER, SUITE_NAME, TASKS, load_task, read_task, task_episode, task_file
from proactive_bench.suites.agentif.task import AgentIFTask
from proactive_bench.suites.agentif.validity import task_problems
from proactive_bench.suites.base import NoSettings, SuiteContext
from proactive_bench.suites.task_files import FolderSuite, TaskFolder


@dataclass(frozen=True)
class AgentIFSuite(FolderSuite):
    """Everyday tasks with attachments, bonus/penalty rubrics, latent rules and refinement follow-ups."""

    name: str = SUITE_NAME
    folder: str = FOLDER
    tasks: ClassVar[TaskFolder] = TASKS
    settings_model: ClassVar[type[BaseModel]] = NoSettings

    def load(self, root: Path, name: str, settings: SuiteContext) -> LoadedEpisode:
        return load_task(root, name)

    def checked(self, root: Path, name: str) -> tuple[LoadedEpisode | None, list[Problem]]:
        task, problems = read_task(root, name)
        if task is None:
            return None, problems
        path = task_file(root, name)
        problems += task_problems(task, path.parent, path.relative_to(root).as_posix())
        loaded, found = task_episode(root, task)
        return loaded, problems + found

    def group(self, root: Path, name: str) -> str | None:
        """The task's table group: ``<category>/<domain>`` (None when it does not load)."""
        task, _ = read_task(root, name)
        return f"{task.category}/{task.domain}" if task is not None else None

    @property
    def formats(self) -> dict[str, type[BaseModel]]:
        return {"agentif/<task id>/task.yaml": AgentIFTask}


SUITE = AgentIFSuite()
