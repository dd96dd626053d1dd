"""The one place a session's typed records become rows for the store (its rows become a result again in ``stored.py``).

Messages, tool calls, intent labels, grades, model calls, snapshots and an agent's error are
kept as :class:`~proactive_bench.store.database.PendingRow` values until the
session is saved whole (:meth:`~proactive_bench.store.database.Store.save_session`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from proactive_bench.data_model import IntentLabel, Message
from proactive_bench.episode.stored import GAPS
from proactive_bench.llm import LLMCallRecord
from proactive_bench.scoring import GradeResult
from proactive_bench.store import (
    AgentErrorRow,
    Grade,
    IntentEvent,
    LLMCall,
    MessageRow,
    PendingRow,
    Snapshot,
    ToolCallRow,
    pending_row,
)
from proactive_bench.tracebacks import ErrorTrace

if TYPE_CHECKING:  # annotations only: a stored session's result is read back without loading the tools
    from proactive_bench.env import ToolRecord


def message_row(message: Message) -> PendingRow:
    return pending_row(MessageRow, turn=message.turn, role=message.role, content=message.content)


def tool_call_row(record: ToolRecord) -> PendingRow:
    return pending_row(
        ToolCallRow, turn=record.turn, seq=record.seq, tool_name=record.tool_name, call=record.call, result=record.result, ok=record.ok
    )


def label_row(label: IntentLabel) -> PendingRow:
    return pending_row(
        IntentEvent,
        intent_id=label.intent_id,
        status=label.status.value,
        stage=label.stage.value,
        turn=label.turn,
        evidence=label.evidence,
        decided_by=label.decided_by,
        prompt_hash=label.prompt_hash,
    )


def grade_rows(grades: list[GradeResult]) -> list[PendingRow]:
    """A session's grades as rows to save."""
    return [
        pending_row(Grade, item_id=g.item_id, grader=g.grader, weight=g.weight, score=g.score, rationale=g.rationale, error=g.error)
        for g in grades
    ]


def call_row(record: LLMCallRecord, run_id: str, cost_usd: float | None) -> PendingRow:
    return pending_row(LLMCall, run_id=run_id, cost_usd=cost_usd, **record.__dict__)


def snapshot_row(kind: str, content: Any) -> PendingRow:
    return pending_row(Snapshot, kind=kind, content=content)


def gaps_row(gaps: list[str]) -> PendingRow:
    return snapshot_row(GAPS, {"gaps": gaps})


def agent_error_row(turn: int, failure: ErrorTrace) -> PendingRow:
    return pending_row(AgentErrorRow, turn=turn, type=failure.type, message=failure.message, frames=failure.frame_dicts())
