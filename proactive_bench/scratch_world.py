"""A throwaway copy of an episode's world, for checks that replay or probe it (``pbench validate``)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolEnv
from proactive_bench.env.workspace import Workspace
from proactive_bench.loading import LoadedEpisode
from proactive_bench.runner import episode_env


@contextmanager
def scratch_world(episode: LoadedEpisode) -> Iterator[ToolEnv]:
    """The episode's seeded workspace, empty memory and seeded apps in a temporary folder.

    Raises :class:`~proactive_bench.env.apps.base.SeedError` on entry when the app seeds are broken,
    :class:`~proactive_bench.env.workspace.WorkspaceSeedError` when the workspace seed holds a link or special file.
    """
    with tempfile.TemporaryDirectory(prefix="pbench-scratch-") as tmp:
        apps = AppStore()
        apps.seed_from(episode.directory / "apps")
        yield episode_env(episode, Workspace.seeded(Path(tmp) / "ws", episode.workspace_seed), Memory(), apps)
