"""A scripted reference agent whose endpoint fails at the start of chosen sessions (for tests of failed work)."""

from __future__ import annotations

from proactive_bench.scaffolds.protocol import SessionContext
from proactive_bench.scaffolds.scripted import ScriptedAgent

CRASHING = {"s02_dalbavancin_pt_review", "s13_ivpo_conversion_round", "a3"}


class CrashingReference(ScriptedAgent):
    """``scripted:reference``, except that the sessions in :data:`CRASHING` fail before the first turn."""

    def __init__(self) -> None:
        super().__init__("reference")

    def start_session(self, ctx: SessionContext) -> None:
        if ctx.session_id in CRASHING:
            raise ConnectionError("model endpoint refused the connection")
        super().start_session(ctx)
