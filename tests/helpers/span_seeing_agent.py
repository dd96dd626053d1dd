"""An agent that notes the OpenTelemetry span current while it answers (tests of ``--otel``: an instrumented agent's spans nest under the turn)."""

from __future__ import annotations

from opentelemetry import trace

from proactive_bench import AgentTurn, SessionContext

SEEN: list[int] = []
"""The span id current at each answer, in order."""


class SpanSeeingAgent:
    """Lists the workspace (one tool call) and asks nothing: the user provides what it needs."""

    def start_session(self, ctx: SessionContext) -> None:
        self.ctx = ctx

    async def respond(self, message: str) -> AgentTurn:
        SEEN.append(trace.get_current_span().get_span_context().span_id)
        await self.ctx.tools.acall("list_files", {"path": "."})
        return AgentTurn(reply="Noted.")

    def end_session(self) -> None:
        pass
