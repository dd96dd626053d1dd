"""An external agent's session leaves the runner's event loop free: its MCP world starts and stops in the world's own
thread, the process starts, takes its turns and exits in threads of their own, and turns never queue for a worker of
the loop's shared thread pool. Each test proves it without timing thresholds: something that can only happen while
the loop runs other coroutines has to happen during the step."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.dataset import load_episode
from proactive_bench.episode import session_toolbox
from proactive_bench.scaffolds import SessionContext
from proactive_bench.scaffolds.external import CommandAgent, ExternalAgent, ExternalSettings, McpEndpoint
from tests.helpers.loop_gates import ServerGates
from tests.helpers.paths import HELPERS, MINI

AGENT = HELPERS / "external_agent.py"


def mini_context(root: Path) -> SessionContext:
    episode = load_episode(MINI, "mini")
    toolbox = session_toolbox(episode, episode.sessions[0], root)
    return SessionContext("a1", "user", toolbox.env.workspace, toolbox.env.memory, toolbox)


async def test_a_cmd_session_starts_and_ends_while_the_loop_runs_other_coroutines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The world's start and stop (uvicorn's startup and shutdown wait for a coroutine on this loop) and the process's
    exit after ``session_end`` (the agent waits for a file a coroutine on this loop writes, with 30 s of grace)."""
    gates = ServerGates(monkeypatch)
    ctx = mini_context(tmp_path / "ws")
    gate = tmp_path / "gate"
    agent = CommandAgent(f"{sys.executable} {AGENT} gate {gate}", ExternalSettings(turn_timeout=20, exit_grace=30))
    opener = gates.open_when_free("startup")
    await agent.start_session(ctx)
    await opener
    assert (await agent.respond("hello")).reply == "turn 1"

    async def write_gate() -> None:
        gate.write_text("open")

    opener, writer = gates.open_when_free("shutdown"), asyncio.create_task(write_gate())
    await agent.end_session()
    await asyncio.gather(opener, writer)
    assert gates.free == {"startup": True, "shutdown": True}
    assert (tmp_path / "ws" / "seen.txt").read_text().splitlines()[-1] == "a1: gate seen"


class BarrierAgent(ExternalAgent):
    """A transport whose every turn waits, in its thread, until ``parties`` turns are under way at once."""

    def __init__(self, barrier: threading.Barrier) -> None:
        super().__init__("barrier", ExternalSettings(turn_timeout=30), served_nothing)
        self.barrier = barrier

    def _open(self, ctx: SessionContext, endpoint: McpEndpoint | None) -> None:
        pass

    def _deliver(self, event: dict[str, Any], deadline: float) -> None:
        pass

    def _ask(self, event: dict[str, Any], deadline: float) -> str:
        self.barrier.wait()
        return "together"

    def _close(self) -> None:
        pass


@contextmanager
def served_nothing(toolbox: Any) -> Iterator[None]:
    yield None


async def test_many_sessions_turns_run_at_once_beyond_the_loop_s_thread_pool(tmp_path: Path) -> None:
    """A sweep process's external sessions wait on their agents at once: 40 turns (more than asyncio's default pool of
    at most 32 workers) are all under way together, or none of them could pass the barrier."""
    parties = 40
    barrier = threading.Barrier(parties, timeout=20)
    ctx = mini_context(tmp_path / "ws")
    agents = [BarrierAgent(barrier) for _ in range(parties)]
    for agent in agents:
        await agent.start_session(ctx)
    try:
        turns = await asyncio.gather(*(agent.respond("go") for agent in agents))
    finally:
        for agent in agents:
            await agent.end_session()
    assert [turn.reply for turn in turns] == ["together"] * parties
