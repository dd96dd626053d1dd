"""``RecordedAgent``: an external agent's recorded run served again (``pbench replay`` of a ``cmd:``, ``http:`` or
``a2a:`` run), without starting the agent.

Each turn checks that the agent is asked what it was asked in the recorded run, re-applies the turn's recorded
tool calls through the session's toolbox (so the workspace, the apps and the evidence come out as they did),
checks that each answers as recorded, and replies the recorded reply. Any difference is a
:class:`ReplayMismatchError` naming the session and turn, which ends the session as ``error``: a replay never
diverges silently. Files the agent changed in the workspace without a tool are not replayed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from proactive_bench.scaffolds.protocol import AgentTurn, SessionContext

SHOWN_CHARS = 80


class ReplayMismatchError(RuntimeError):
    """The replayed session asked, or a re-applied tool call answered, other than in the recorded run; one line."""


@dataclass(frozen=True)
class RecordedCall:
    """One tool call of a recorded turn, with what it answered."""

    tool_name: str
    args: dict[str, Any]
    result: dict[str, Any]
    ok: bool


@dataclass(frozen=True)
class RecordedTurn:
    """One agent turn of a recorded session: the message it answered, its tool calls in order, its reply."""

    message: str
    calls: list[RecordedCall] = field(default_factory=list)
    reply: str = ""


class RecordedAgent:
    """The recorded turns of run ``source`` (``{session id: turns}``), served turn by turn: see the module's docstring."""

    def __init__(self, source: str, turns: Mapping[str, list[RecordedTurn]]) -> None:
        self.source = source
        self.turns = turns
        self._ctx: SessionContext | None = None
        self._done = 0

    def start_session(self, ctx: SessionContext) -> None:
        self._ctx, self._done = ctx, 0

    async def respond(self, message: str) -> AgentTurn:
        assert self._ctx is not None, "respond before start_session"
        session, number = self._ctx.session_id, self._done + 1
        where = f"replay of run {self.source}: session {session}, turn {number}"
        recorded = self.turns.get(session, [])
        if number > len(recorded):
            raise ReplayMismatchError(f"{where}: the recorded run has no such turn (asked {_shown(message)})")
        turn = recorded[number - 1]
        if message != turn.message:
            raise ReplayMismatchError(f"{where}: the agent is asked {_shown(message)}, in the recorded run {_shown(turn.message)}")
        for call in turn.calls:
            record = await self._ctx.tools.acall(call.tool_name, call.args)
            if (record.ok, record.result) != (call.ok, call.result):
                raise ReplayMismatchError(
                    f"{where}: {call.tool_name} answered {_shown(str(record.result))}, in the recorded run {_shown(str(call.result))}"
                )
        self._done = number
        return AgentTurn(turn.reply)

    def end_session(self) -> None:
        self._ctx = None


def _shown(text: str) -> str:
    return repr(text[:SHOWN_CHARS]) + ("..." if len(text) > SHOWN_CHARS else "")
