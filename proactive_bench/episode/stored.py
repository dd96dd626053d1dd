"""A finished session's result rebuilt from its stored rows (grades, intent events, messages, its gaps snapshot).

What reports read back (``pbench results``, ``runs``): it takes the rows as read (:mod:`proactive_bench.store`'s
records), so it loads neither the tools nor the store's tables; ``rows.py`` writes them.
"""

from __future__ import annotations

from proactive_bench.data_model import IntentStatus, was_clipped
from proactive_bench.scoring import GradeResult, SessionResult, comp, count_statuses
from proactive_bench.store import ReadQueries, SessionRunLike, StoredGrade, StoredIntentEvent, StoredMessage

GAPS = "gaps"
"""The snapshot kind of a session's ``gaps`` (what of its source world it lacked), saved only when it has some."""


def stored_grades(store: ReadQueries, session_run: SessionRunLike) -> list[GradeResult]:
    assert session_run.id is not None
    rows: list[StoredGrade] = store.rows(StoredGrade, session_run.id)
    return [GradeResult(g.item_id, g.grader, g.weight, g.score, g.rationale, g.error) for g in rows]  # type: ignore[arg-type]  # the column holds the grader kind a GradeResult wrote


def stored_transcript(store: ReadQueries, session_run: SessionRunLike) -> list[dict[str, str]]:
    assert session_run.id is not None
    return [{"role": m.role, "content": m.content} for m in store.rows(StoredMessage, session_run.id)]


def stored_session_result(store: ReadQueries, session_run: SessionRunLike) -> SessionResult:
    """A finished session's result, rebuilt from its rows."""
    assert session_run.id is not None
    grades = stored_grades(store, session_run)
    score, basis = comp(grades)
    events: list[StoredIntentEvent] = store.rows(StoredIntentEvent, session_run.id)
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
