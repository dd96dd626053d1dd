"""An agent that notes the world at each session's start (tests of ``--ablation``: what a removed session left, if anything)."""

from __future__ import annotations

from typing import NamedTuple

from proactive_bench import AgentTurn, SessionContext


class SeenWorld(NamedTuple):
    """The workspace's files, the memory's keys and the earlier transcripts' openings when a session started."""

    session_id: str
    files: list[str]
    memory: list[str]
    history: list[str]


SEEN: list[SeenWorld] = []
"""One entry per session started, in order."""


class WorldSeeingAgent:
    """Notes the world, writes one memory entry naming the session, and asks nothing (the user provides what it needs)."""

    def start_session(self, ctx: SessionContext) -> None:
        openings = [transcript[0]["content"] for transcript in ctx.history if transcript]
        SEEN.append(SeenWorld(ctx.session_id, ctx.workspace.files(), [key for key, _ in ctx.memory.items()], openings))
        ctx.memory.write(f"seen/{ctx.session_id}", f"I worked on {ctx.session_id}.")

    def respond(self, message: str) -> AgentTurn:
        return AgentTurn(reply="Noted.")

    def end_session(self) -> None:
        pass
