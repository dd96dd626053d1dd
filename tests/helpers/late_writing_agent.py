"""An agent whose first reply leaves a write behind it (a background task that runs after the turn has ended), and that
notes how often the workspace was walked between the user's judgment and its next turn (tests of the turns' walks)."""

from __future__ import annotations

import asyncio

from proactive_bench import AgentTurn, SessionContext, Workspace

WALKS = [0]
"""Walks of any workspace so far (the test counts them)."""

BETWEEN_TURNS: list[int] = []
"""Per agent turn after the first: the walks since the user's judgment of the turn before ended."""

JUDGED_AT = [0]
"""``WALKS`` when the user's last judgment ended (the test's user sets it)."""


class LateWritingAgent:
    """Turn 1: writes ``during.md`` and leaves ``late.md`` to a task that writes it once the turn is over; then only replies."""

    def start_session(self, ctx: SessionContext) -> None:
        self.workspace: Workspace = ctx.workspace
        self.turn = 0

    async def respond(self, message: str) -> AgentTurn:
        self.turn += 1
        if self.turn == 1:
            self.workspace.write_text("during.md", "written in the turn\n")
            asyncio.get_running_loop().call_soon(self.workspace.write_text, "late.md", "written after the turn\n")
        else:
            BETWEEN_TURNS.append(WALKS[0] - JUDGED_AT[0])
        return AgentTurn(reply="Noted.")

    def end_session(self) -> None:
        pass
