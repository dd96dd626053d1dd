"""A throwaway copy of an episode's world, for checks that replay or probe it (``pbench validate``).

The checks walk the sessions in order on one scratch world, each started with
:func:`start_scratch_session` as a run starts it, so that app-state evidence is
judged on the rows the session really sees.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proactive_bench.dataset import LoadedEpisode, Session, start_session
from proactive_bench.env import (
    AppStore,
    Memory,
    ToolBox,
    ToolEnv,
    Workspace,
    resolve_tool_names,
    scratch_directory,
)
from proactive_bench.episode import episode_env


@contextmanager
def scratch_world(episode: LoadedEpisode) -> Iterator[ToolEnv]:
    """The episode's seeded workspace, empty memory and seeded apps in a temporary folder (in memory where possible).

    Raises :class:`~proactive_bench.env.apps.base.SeedError` on entry when the app seeds are broken,
    :class:`~proactive_bench.env.workspace.WorkspaceSeedError` when the workspace seed holds a link or special file.
    """
    with scratch_directory("pbench-scratch-") as tmp:
        apps = AppStore.seeded(episode.directory / "apps")
        yield episode_env(episode, Workspace.seeded(Path(tmp) / "ws", episode.workspace_seed), Memory(), apps)


def start_scratch_session(env: ToolEnv, episode: LoadedEpisode, session: Session) -> ToolBox:
    """Start a session on the scratch world as a run does (clock, timed app rows); the session's tools on it.

    Raises :class:`~proactive_bench.env.apps.base.SeedError` when the session's timed rows do not fit,
    KeyError naming an unknown tool or group (both reported by other checks of ``pbench validate``).
    """
    start_session(env.require_apps(), env.workspace, episode.directory, session)
    return ToolBox(env, resolve_tool_names(session.tools))
