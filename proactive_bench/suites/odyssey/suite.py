"""The :class:`OdysseySuite`: odyssey tasks under ``<root>/odyssey/``, each a one-session episode."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from proactive_bench.dataset import DatasetError, LoadedEpisode, Problem
from proactive_bench.suites.base import SuiteContext
from proactive_bench.suites.odyssey.context import HistoryModels
from proactive_bench.suites.odyssey.loading import FOLDER, SUITE_NAME, TASKS, load_task, read_task, task_episode, task_file
from proactive_bench.suites.odyssey.settings import OdysseySettings, parse_setting
from proactive_bench.suites.odyssey.task import OdysseyTask
from proactive_bench.suites.odyssey.validity import task_problems
from proactive_bench.suites.task_files import FolderSuite, TaskFolder


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


@dataclass(frozen=True)
class OdysseySuite(FolderSuite):
    """History-grounded office workflows: no live user; the agent reads the history (whole or retrieved) and acts."""

    name: str = SUITE_NAME
    folder: str = FOLDER
    tasks: ClassVar[TaskFolder] = TASKS
    settings_model: ClassVar[type[BaseModel]] = OdysseySettings

    def load(self, root: Path, name: str, settings: SuiteContext) -> LoadedEpisode:
        try:
            own = settings.parsed(OdysseySettings)
            setting = parse_setting(own.memory, own.top_k)
        except ValueError as exc:
            raise DatasetError([Problem(FOLDER, "memory", str(exc))]) from None
        models = HistoryModels(own.summary_model, own.embedding_model, settings.summaries_db, settings.base_url)
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

    @staticmethod
    def grid(values: Mapping[str, Any]) -> list[dict[str, Any]]:
        """A sweep's memory settings × top-k values (top-k pairs only with retrieval settings); the summary model goes
        with the summarised settings, the embeddings model with the retrieval ones (with none swept: stays, to be refused)."""
        memories, top_ks = _listed(values.get("memory")), _listed(values.get("top_k"))
        summary, embedding = values.get("summary_model"), values.get("embedding_model")
        if not memories:
            return [{"top_k": k, "embedding_model": embedding} for k in top_ks] or [{"embedding_model": embedding}]
        rag_swept = any(m.startswith("rag:") for m in memories)
        return [
            {
                "memory": memory,
                "top_k": k,
                "summary_model": summary if "summary" in memory else None,
                "embedding_model": embedding if memory.startswith("rag:") or not rag_swept else None,
            }
            for memory in memories
            for k in (top_ks if memory.startswith("rag:") and top_ks else [None])
        ]

    def group(self, root: Path, name: str) -> str | None:
        """The task's table group: ``N-app`` by its application count (None when it does not load)."""
        task, _ = read_task(root, name)
        return f"{task.group}-app" if task is not None else None

    @property
    def formats(self) -> dict[str, type[BaseModel]]:
        return {"odyssey/<task id>/task.yaml": OdysseyTask}


SUITE = OdysseySuite()
