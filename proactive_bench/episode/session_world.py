"""One session's world on its own (``session_toolbox``, what ``pbench mcp`` serves), and the two steps a run shares
with it: the seeded state an episode starts from (``seeded_state``) and a session's opening (``open_session``).

Its own module, beside :mod:`~proactive_bench.episode.environment`, so that ``pbench mcp`` loads no agent loop,
LangGraph or model client to serve a session's tools.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from proactive_bench.dataset import LoadedEpisode, Session, start_session
from proactive_bench.env import AppStore, Memory, SeedError, ToolBox, ToolEnv, Workspace, WorkspaceSeedError, resolve_tool_names
from proactive_bench.episode.environment import episode_env

if TYPE_CHECKING:
    from proactive_bench.llm import ToolModels


def seeded_state(episode: LoadedEpisode, root: Path) -> tuple[Workspace, Memory, AppStore]:
    """The state an episode starts from: its seed copied into the workspace at ``root``, no notes, the seeded apps (in memory)."""
    apps = AppStore.seeded(episode.directory / "apps")
    return Workspace.seeded(root, episode.workspace_seed), Memory(), apps


def open_session(env: ToolEnv, episode: LoadedEpisode, session: Session) -> tuple[ToolBox, str | None]:
    """The session's toolbox (only its own tools) once it has started (clock moved, its timed rows and files placed), and
    why they could not be placed, if so (e.g. a folder the agent made where a later session's file goes)."""
    toolbox = ToolBox(env, resolve_tool_names(session.tools))
    try:
        start_session(env.require_apps(), env.workspace, episode.directory, session)
    except (SeedError, WorkspaceSeedError) as exc:
        return toolbox, f"the session's timed rows or files cannot be placed: {str(exc).splitlines()[0]}"
    return toolbox, None


def session_toolbox(episode: LoadedEpisode, session: Session, root: Path, models: ToolModels | None = None) -> ToolBox:
    """The toolbox of one session played on its own, in a fresh workspace at ``root``: the world as ``pbench episode
    --sessions <id>`` starts it (seeded workspace and apps, the session started). SeedError or WorkspaceSeedError when
    the seed or the session's timed rows or files cannot be placed."""
    workspace, memory, apps = seeded_state(episode, root)
    toolbox, unplaced = open_session(episode_env(episode, workspace, memory, apps, models), episode, session)
    if unplaced is not None:
        raise SeedError(unplaced)
    return toolbox
