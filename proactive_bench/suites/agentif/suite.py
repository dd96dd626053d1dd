"""The :class:`AgentIFSuite`: AgentIF-OneDay-style tasks under ``<root>/agentif/``, each a one-session episode with the simulated user."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from proactive_bench.dataset import LoadedEpisode, Problem
from proactive_bench.suites.agentif.loading import FOLDER, SUITE_NAME, load_task, read_task, task_episode, task_file, task_names
from proactive_bench.suites.agentif.task import AgentIFTask
from proactive_bench.suites.agentif.validity import task_problems
from proactive_bench.suites.base import SuiteSettings, memory_settings_problem


@dataclass(frozen=True)
class AgentIFSuite:
    """Everyday tasks with attachments, bonus/penalty rubrics, latent rules and refinement follow-ups."""

    name: str = SUITE_NAME
    folder: str = FOLDER

    def names(self, root: Path) -> list[str]:
        return task_names(root)

    def load(self, root: Path, name: str, settings: SuiteSettings) -> LoadedEpisode:
        return load_task(root, name)

    def load_all(self, root: Path) -> tuple[dict[str, LoadedEpisode], list[Problem]]:
        root = root.resolve()
        episodes: dict[str, LoadedEpisode] = {}
        problems: list[Problem] = []
        for name in task_names(root):
            loaded, found = self._checked(root, name)
            problems += found
            if loaded is not None:
                episodes[name] = loaded
        return episodes, problems

    def problems(self, root: Path, name: str) -> list[Problem]:
        return self._checked(root.resolve(), name)[1]

    def _checked(self, root: Path, name: str) -> tuple[LoadedEpisode | None, list[Problem]]:
        task, problems = read_task(root, name)
        if task is None:
            return None, problems
        path = task_file(root, name)
        problems += task_problems(task, path.parent, path.relative_to(root).as_posix())
        loaded, found = task_episode(root, task)
        return loaded, problems + found

    def settings_problem(self, settings: SuiteSettings) -> str | None:
        return memory_settings_problem(settings)

    def group(self, root: Path, name: str) -> str | None:
        """The task's table group: ``<category>/<domain>`` (None when it does not load)."""
        task, _ = read_task(root, name)
        return f"{task.category}/{task.domain}" if task is not None else None

    @property
    def formats(self) -> dict[str, type[BaseModel]]:
        return {"agentif/<task id>/task.yaml": AgentIFTask}


SUITE = AgentIFSuite()
