"""An agent that writes a deliverable longer than the evidence limit (for tests of clipping)."""

from __future__ import annotations

from proactive_bench.data_model.trace import FILE_CHARS
from proactive_bench.scaffolds.protocol import AgentTurn, SessionContext


class LongWriter:
    """Writes ``out/summary.md`` with the mean in mg/L, followed by more text than a judge is shown."""

    def start_session(self, ctx: SessionContext) -> None:
        self.tools = ctx.tools

    def respond(self, message: str) -> AgentTurn:
        body = "Batch summary: mean 4.2 mg/L\n" + "filler line for a long report\n" * (FILE_CHARS // 20)
        self.tools.call("write_file", {"path": "out/summary.md", "content": body})
        return AgentTurn(reply="I wrote out/summary.md with the mean in mg/L.")

    def end_session(self) -> None:
        self.tools = None
