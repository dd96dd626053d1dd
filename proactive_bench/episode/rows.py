"""The one place a session's typed records become rows for the store, and its rows a result again.

Messages, tool calls, intent labels, grades, model calls, snapshots and an agent's error are
kept as :class:`~proactive_bench.store.database.PendingRow` values until the
session is saved whole (:meth:`~proactive_bench.store.database.Store.save_session`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from proactive_bench.data_model import IntentLabel, IntentStatus, Message, was_clipped
from proactive_bench.llm import LLMCallRecord
from proactive_bench.scoring import GradeResult, SessionResult, comp, count_statuses
from proactive_bench.store import (
    AgentErrorRow,
    Grade,
    IntentEvent,
    LLMCall,
    MessageRow,
    PendingRow,
    SessionRun,
    Snapshot,
    Store,
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


GAPS = "gaps"
"""The snapshot kind of a session's ``gaps`` (what of its source world it lacked), saved only when it has some."""


def gaps_row(gaps: list[str]) -> PendingRow:
    return snapshot_row(GAPS, {"gaps": gaps})


def agent_error_row(turn: int, failure: ErrorTrace) -> PendingRow:
    return pending_row(AgentErrorRow, turn=turn, type=failure.type, message=failure.message, frames=failure.frame_dicts())


def stored_grades(store: Store, session_run: SessionRun) -> list[GradeResult]:
    assert session_run.id is not None
    rows: list[Grade] = store.rows(Grade, session_run.id)
    return [GradeResult(g.item_id, g.grader, g.weight, g.score, g.rationale, g.error) for g in rows]  # type: ignore[arg-type]  # the column holds the grader kind a GradeResult wrote


def stored_transcript(store: Store, session_run: SessionRun) -> list[dict[str, str]]:
    assert session_run.id is not None
    return [{"role": m.role, "content": m.content} for m in store.rows(MessageRow, session_run.id)]


def stored_session_result(store: Store, session_run: SessionRun) -> SessionResult:
    """A finished session's result, rebuilt from its rows."""
    assert session_run.id is not None
    grades = stored_grades(store, session_run)
    score, basis = comp(grades)
    events: list[IntentEvent] = store.rows(IntentEvent, session_run.id)
    counts = count_statuses([e.status for e in events], session_run.intents)
    return SessionResult(
        session_run.session_id,
        session_run.status,
        session_run.turns,
        counts,
        grades,
        score,
        basis,
        session_run.error,
        stored_transcript(store, session_run),
        sum(was_clipped(e.evidence) for e in events),
        tuple(e.intent_id for e in events if e.status == IntentStatus.PROVIDED),
        tuple((e.intent_id, e.status) for e in events),
        gaps=tuple((store.snapshot(session_run.id, GAPS) or {}).get("gaps", [])),
    )
