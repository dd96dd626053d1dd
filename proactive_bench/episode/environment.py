"""An episode's tool environment (``episode_env``): what the runner, ``pbench mcp`` and validation's scratch worlds build.

Its own module so that building one loads no agent loop, LangGraph or model client: ``pbench validate`` replays the
reference solutions in it without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import proactive_bench.env as env  # VirtualClock by attribute: the clock app (its tables and tools) loads with an episode that keeps time
import proactive_bench.llm as llm  # the package, not its names: the model clients load only for a part bound to a run's models
from proactive_bench.env import AppStore, Memory, ToolEnv, Workspace

if TYPE_CHECKING:
    from proactive_bench.dataset import LoadedEpisode
    from proactive_bench.llm import ToolModels

Part = TypeVar("Part")


def episode_env(episode: LoadedEpisode, workspace: Workspace, memory: Memory, apps: AppStore, models: ToolModels | None = None) -> ToolEnv:
    """The tool environment of an episode run: its workspace, memory, apps, web corpus, skills, colleagues and clock.

    Colleagues and a history index that call a model get this run's own copy on ``models`` (the run's model-call path).
    """
    clock = env.VirtualClock(apps, episode.clock_rates) if episode.clock_rates is not None else None
    return ToolEnv(
        workspace,
        memory,
        apps,
        web_root=episode.directory / "web",
        skills_root=episode.directory / "skills",
        history=_bound(episode.history, models),
        colleagues=_bound(episode.colleagues, models),
        clock=clock,
    )


def _bound(part: Part, models: ToolModels | None) -> Part:
    """``part`` on the run's model-call path when it calls a model, else as it is."""
    return part.with_models(models) if models is not None and isinstance(part, llm.UsesToolModels) else part
