"""The :class:`OdysseySuite`: odyssey tasks under ``<root>/odyssey/``, each a one-session episode."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel

from proactive_bench.dataset import DatasetError, LoadedEpisode, Problem
from proactive_bench.suites.base import SuiteSettings, trainee_settings_problem
from proactive_bench.suites.odyssey.context import HistoryModels, parse_setting
from proactive_bench.suites.odyssey.loading import FOLDER, SUITE_NAME, TASKS, load_task, read_task, task_episode, task_file
from proactive_bench.suites.odyssey.task import OdysseyTask
from proactive_bench.suites.odyssey.validity import task_problems
from proactive_bench.suites.task_files import FolderSuite, TaskFolder


@dataclass(frozen=True)
class OdysseySuite(FolderSuite):
    """History-grounded office workflows: no live user; the agent reads the history (whole or retrieved) and acts."""

    name: str = SUITE_NAME
    folder: str = FOLDER
    tasks: ClassVar[TaskFolder] = TASKS

    def load(self, root: Path, name: str, settings: SuiteSettings) -> LoadedEpisode:
        try:
            setting = parse_setting(settings.memory, settings.top_k)
        except ValueError as exc:
            raise DatasetError([Problem(FOLDER, "memory", str(exc))]) from None
        models = HistoryModels(settings.summary_model, settings.embedding_model, settings.summaries_db, settings.base_url)
        return load_task(root, name, setting, models)

    reads = {
        r"details\[\d+\]\.cue": ("history", "intent"),
        r"details\[\d+\]\.id": ("reference",),
        r"reference\[\d+\]\.tool": ("apps", "tools"),
        "": ("history", "intent", "now"),
    }
    """A detail's cue is searched in the history and the intent, its use in the reference steps; the tools offered
    come from the apps and the extras; the memory context (a problem of the whole file) from the history."""

    def task_checked(self, root: Path, task: OdysseyTask) -> tuple[LoadedEpisode | None, list[Problem]]:
        """The task loaded under the default memory setting, with its solvability, leak and load problems."""
        problems = task_problems(task, task_file(root, task.id).relative_to(root).as_posix())
        loaded, found = task_episode(root, task, parse_setting(None, None))
        return loaded, problems + found

    def settings_problem(self, settings: SuiteSettings) -> str | None:
        if problem := trainee_settings_problem(settings):
            return problem
        try:
            setting = parse_setting(settings.memory, settings.top_k)
        except ValueError as exc:
            return str(exc)
        summarized = setting.granularity is not None and setting.granularity.summarized
        if summarized and not settings.summary_model:
            return f"--memory rag:{setting.granularity} needs --summary-model (the chat model that summarises each history once)"
        if settings.summary_model and not summarized:
            return "--summary-model goes with a rag:summary-* memory setting"
        if settings.embedding_model and setting.kind != "rag":
            return "--embedding-model goes with a rag:* memory setting"
        return None

    def group(self, root: Path, name: str) -> str | None:
        """The task's table group: ``N-app`` by its application count (None when it does not load)."""
        task, _ = read_task(root, name)
        return f"{task.group}-app" if task is not None else None

    @property
    def formats(self) -> dict[str, type[BaseModel]]:
        return {"odyssey/<task id>/task.yaml": OdysseyTask}


SUITE = OdysseySuite()
