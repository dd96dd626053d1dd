"""The suite extension point: what a task is, how it loads as a pbench episode, and the run settings it takes.

A :class:`Suite` turns the tasks of one kind under a dataset root into
:class:`~proactive_bench.dataset.LoadedEpisode` objects the engine runs
unchanged (session graph, runner, store, checkpoints, sweeps, replay).
``pibench`` (persona episodes under ``episodes/``) is the default; ``odyssey``
(history-grounded office tasks under ``odyssey/``) and ``agentif``
(AgentIF-OneDay-style everyday tasks under ``agentif/``) are contributed by
their subpackages the way a plugin is, declared by name here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel

from proactive_bench.dataset import LoadedEpisode, Problem
from proactive_bench.registry import Registry

DEFAULT_SUITE = "pibench"


@dataclass(frozen=True)
class SuiteSettings:
    """The per-run settings a suite may take (``RunSpec.memory``, ``top_k``, ``summary_model``, ...); the pibench suite takes none."""

    memory: str | None = None
    top_k: int | None = None
    summary_model: str | None = None
    """The chat model that summarises histories for ``rag:summary-*`` (odyssey)."""
    summaries_db: str | None = None
    """The results database whose call cache keeps those summaries (and the history's embeddings)."""
    base_url: str | None = None
    """The summary model's OpenAI-compatible endpoint (and the LLM colleagues', trainee)."""
    days: int | None = None
    """Trainee: working days per scenario (1 or 2; day 2 opens with feedback on day 1)."""
    hints: str | None = None
    """Trainee: the guidance each objective carries (none, data, method, both)."""
    npc: str | None = None
    """Trainee: the colleagues' backend (rules or llm)."""
    npc_model: str | None = None
    """Trainee, with --npc llm: the chat model that plays the colleagues."""
    clock: str | None = None
    """Trainee: simulated minutes per tool call and per agent step, ``CALL,STEP`` (default ``2,1``)."""
    embedding_model: str | None = None
    """Odyssey, with ``rag:*``: the embeddings model that ranks the history (None: BM25); its vectors are cached in ``summaries_db``."""

    @property
    def trainee_given(self) -> bool:
        """Whether any trainee-only setting is set (other suites refuse them)."""
        return any(v is not None for v in (self.days, self.hints, self.npc, self.npc_model, self.clock))


class Suite(Protocol):
    """A kind of task: where its tasks live, how one loads as an episode, which run settings it accepts."""

    @property
    def name(self) -> str:
        """The suite's name (``--suite``); read-only, so a frozen dataclass or a class attribute fits."""
        ...

    @property
    def folder(self) -> str:
        """The folder of the dataset root its tasks live in (``episodes``, ``odyssey``)."""
        ...

    def names(self, root: Path) -> list[str]:
        """The episodes of the suite in a dataset.

        Args:
            root: The dataset root (its :attr:`folder` holds the suite's tasks).

        Returns:
            The episode names (persona ids, task ids) under ``root``, sorted; empty when there are none.
        """
        ...

    def load(self, root: Path, name: str, settings: SuiteSettings) -> LoadedEpisode:
        """One episode ready to run.

        Args:
            root: The dataset root.
            name: The episode's name, one of :meth:`names`.
            settings: The run's suite settings (already accepted by :meth:`settings_problem`).

        Returns:
            The loaded episode: its sessions, hidden intents, checklists and seed state.

        Raises:
            DatasetError: The episode does not load; every problem is listed.
        """
        ...

    def load_all(self, root: Path) -> tuple[dict[str, LoadedEpisode], list[Problem]]:
        """Every episode of the suite in a dataset, for ``pbench validate``.

        Args:
            root: The dataset root.

        Returns:
            The episodes that load, by name, and every problem found in those that do not (and in those that do).
        """
        ...

    def problems(self, root: Path, name: str) -> list[Problem]:
        """The checks of ``pbench validate`` for one episode (the pibench suite's deeper lint is validation.lint).

        Args:
            root: The dataset root.
            name: The episode's name.

        Returns:
            Every problem found, each naming its file, field and reason; empty for a valid episode.
        """
        ...

    def settings_problem(self, settings: SuiteSettings) -> str | None:
        """Whether a run's suite settings fit the suite.

        Args:
            settings: The settings a run or sweep asks for.

        Returns:
            Why they do not fit (one line), or None when they do.
        """
        ...

    def group(self, root: Path, name: str) -> str | None:
        """The group an episode is reported under.

        Args:
            root: The dataset root.
            name: The episode's name.

        Returns:
            The group (odyssey: ``1-app``..``3-app``), or None when the suite does not group its episodes.
        """
        ...

    @property
    def formats(self) -> dict[str, type[BaseModel]]:
        """The file formats of the suite's tasks, ``{what the file is: model}``, for ``pbench schema``."""
        ...


SUITES: Registry[Suite] = Registry(
    "suites", builtins={"odyssey": "proactive_bench.suites.odyssey:SUITE", "agentif": "proactive_bench.suites.agentif:SUITE",
                        "trainee": "proactive_bench.suites.trainee:SUITE"},
)
"""Every suite by name: ``pibench`` built in, ``odyssey``, ``agentif`` and ``trainee`` from their subpackages, plugins from ``pbench.suites`` entry points."""


def memory_settings_problem(settings: SuiteSettings) -> str | None:
    """The one line refusing odyssey's memory settings, for the suites that take none."""
    if any(v is not None for v in (settings.memory, settings.top_k, settings.summary_model, settings.embedding_model)):
        return "--memory, --top-k, --summary-model and --embedding-model apply to the odyssey suite only"
    return None


def trainee_settings_problem(settings: SuiteSettings) -> str | None:
    """The one line refusing the trainee suite's settings, for the suites that take none."""
    if settings.trainee_given:
        return "--days, --hints, --npc, --npc-model and --clock apply to the trainee suite only"
    return None
