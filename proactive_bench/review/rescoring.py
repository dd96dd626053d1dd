"""Grade a finished run again from what it saved, without running the agent or the user.

Each finished session's final state is rebuilt from the store and its
checkpoint: the dialogue and tool records from their rows, the workspace
from the session-end copy, memory and app state from their snapshots. The
checklist is graded on that state (with a new judge model if given) and the
session's grades are replaced; intent labels are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proactive_bench.data_model import FINAL_OUTCOMES, Evidence, Message, SessionOutcome
from proactive_bench.dataset import GraderResolver, LoadedEpisode, depends_on_map
from proactive_bench.env import AppStore, Memory, ToolRecord
from proactive_bench.episode import (
    CallLedger,
    ResumeError,
    grade_rows,
    opened_checkpoint,
    run_spec,
)
from proactive_bench.llm import ChatSettings, make_chat_model
from proactive_bench.review.stored_results import run_scoring, stored_run_result
from proactive_bench.scoring import (
    EpisodeResult,
    JudgeSettings,
    RubricJudge,
    grade_session,
)
from proactive_bench.store import (
    MessageRow,
    RunLike,
    SessionRunLike,
    Store,
    ToolCallRow,
)


@contextmanager
def saved_evidence(store: Store, run: RunLike, session_run: SessionRunLike, graders: GraderResolver) -> Iterator[Evidence]:
    """The evidence of a finished session as it stood when the session ended (its workspace unpacked while in use)."""
    assert session_run.id is not None
    with opened_checkpoint(store, run, session_run.position) as workspace:
        if workspace is None:
            raise ResumeError(f"run {run.id}: the workspace of session {session_run.session_id} was not saved")
        apps = AppStore()
        apps.restore(store.snapshot(session_run.id, "apps") or {})
        yield Evidence(
            transcript=[Message(m.role, m.content, m.turn) for m in store.rows(MessageRow, session_run.id)],
            tool_records=[ToolRecord(t.tool_name, t.call, t.result, t.ok, t.turn, t.seq) for t in store.rows(ToolCallRow, session_run.id)],
            workspace=workspace,
            memory=Memory(store.snapshot(session_run.id, "memory") or {}),
            resolve_python=graders,
            apps=apps,
            apps_at_start=store.snapshot(session_run.id, "apps_start"),  # None for runs made before it was kept
        )


async def rescore_run(store: Store, run: RunLike, loaded: LoadedEpisode, judge_model: str | None, base_url: str | None) -> EpisodeResult:
    """Re-grade every finished session of a run (an errored one only under the π-Bench protocol, which grades its partial
    trace) and return the updated result."""
    ledger = CallLedger(run.id)
    any_turn = run_spec(run).protocol == "pibench"
    chat = ChatSettings(base_url=base_url, temperature=0)
    judge = RubricJudge(make_chat_model(judge_model, chat), judge_model, ledger, JudgeSettings(any_turn=any_turn)) if judge_model else None
    graders = GraderResolver(Path(run.data_root))
    by_id = {s.id: s for s in loaded.sessions}
    graded_errors = run_scoring(run).errored_sessions_graded
    for session_run in store.session_runs(run.id):
        if session_run.status not in FINAL_OUTCOMES:
            continue
        session = by_id.get(session_run.session_id)
        if session is not None and (session_run.status != SessionOutcome.ERROR or graded_errors):
            assert session_run.id is not None
            with saved_evidence(store, run, session_run, graders) as evidence:
                grades = await grade_session(session, evidence, judge)
            store.replace_grades(session_run.id, grade_rows(grades))
            store.add_rows(session_run.id, ledger.take())
    return stored_run_result(store, run, depends_on_map(loaded.episode))
