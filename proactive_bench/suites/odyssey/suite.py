"""The :class:`OdysseySuite`: odyssey tasks under ``<root>/odyssey/``, each a one-session episode."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from proactive_bench.dataset import DatasetError, LoadedEpisode, Problem
from proactive_bench.suites.base import SuiteSettings
from proactive_bench.suites.odyssey.loading import FOLDER, SUITE_NAME, load_task, read_task, task_episode, task_file, task_names
from proactive_bench.suites.odyssey.context import SummarySource, parse_setting
from proactive_bench.suites.odyssey.task import OdysseyTask
from proactive_bench.suites.odyssey.validity import task_problems


@dataclass(frozen=True)
class OdysseySuite:
    """History-grounded office workflows: no live user; the agent reads the history (whole or retrieved) and acts."""

    name: str = SUITE_NAME
    folder: str = FOLDER

    def names(self, root: Path) -> list[str]:
        return task_names(root)

    def load(self, root: Path, name: str, settings: SuiteSettings) -> LoadedEpisode:
        try:
            setting = parse_setting(settings.memory, settings.top_k)
        except ValueError as exc:
            raise DatasetError([Problem(FOLDER, "memory", str(exc))]) from None
        summaries = None
        if settings.summary_model and settings.summaries_db:
            summaries = SummarySource(settings.summary_model, settings.summaries_db, settings.base_url)
        return load_task(root, name, setting, summaries)

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
        """The task loaded under the default memory setting, with its load, solvability and leak problems."""
        task, problems = read_task(root, name)
        if task is None:
            return None, problems
        problems += task_problems(task, task_file(root, name).relative_to(root).as_posix())
        loaded, found = task_episode(root, task, parse_setting(None, None))
        return loaded, problems + found

    def settings_problem(self, settings: SuiteSettings) -> str | None:
        try:
            setting = parse_setting(settings.memory, settings.top_k)
        except ValueError as exc:
            return str(exc)
        summarized = setting.granularity is not None and setting.granularity.summarized
        if summarized and not settings.summary_model:
            return f"--memory rag:{setting.granularity} needs --summary-model (the chat model that summarises each history once)"
        if settings.summary_model and not summarized:
            return "--summary-model goes with a rag:summary-* memory setting"
        return None

    def group(self, root: Path, name: str) -> str | None:
        """The task's table group: ``N-app`` by its application count (None when it does not load)."""
        task, _ = read_task(root, name)
        return f"{task.group}-app" if task is not None else None

    @property
    def formats(self) -> dict[str, type[BaseModel]]:
        return {"odyssey/<task id>/task.yaml": OdysseyTask}


SUITE = OdysseySuite()
