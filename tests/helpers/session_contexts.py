"""A session's context on the mini persona, and a tool server that serves nothing: for driving an external agent's
``start_session``, ``respond`` and ``end_session`` directly, without a run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from proactive_bench.dataset import load_episode
from proactive_bench.episode import session_toolbox
from proactive_bench.scaffolds import SessionContext
from tests.helpers.paths import MINI


def mini_context(root: Path, session: str = "a1") -> SessionContext:
    """The mini persona's ``session`` (its own toolbox, workspace under ``root``)."""
    episode = load_episode(MINI, "mini")
    toolbox = session_toolbox(episode, next(s for s in episode.sessions if s.id == session), root)
    return SessionContext(session, "user", toolbox.env.workspace, toolbox.env.memory, toolbox)


@contextmanager
def served_nothing(toolbox: Any) -> Iterator[None]:
    """A ``ToolServer`` for a session with no tool server."""
    yield None
