"""One session run as the trajectory viewer shows it: turns, tool calls, intent tags, grades, diffs.

Turn 0 holds the opening request (or event). Turn ``t >= 1`` holds the
agent's tool calls and reply, then the intent statuses the user gave on that
reply (tags), then the user's message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from proactive_bench.dataset import Session
from proactive_bench.env import expand_snapshot
from proactive_bench.episode import run_spec, stored_session_result
from proactive_bench.llm import one_line
from proactive_bench.reporting.html.diffs import (
    FileDiff,
    TableDiff,
    app_diff,
    workspace_diff,
)
from proactive_bench.reporting.html.readable import readable
from proactive_bench.reporting.html.sources import EpisodeCatalog
from proactive_bench.scoring import SessionResult
from proactive_bench.store import (
    AgentErrorRow,
    IntentEvent,
    MessageRow,
    RunLike,
    SessionRunLike,
    Store,
    ToolCallRow,
)
from proactive_bench.tracebacks import ErrorTrace

MAX_TOOL_TEXT = 20_000
"""Characters of a tool call's arguments or result shown; the rest is counted."""


@dataclass(frozen=True)
class ToolCallView:
    name: str
    args: str
    result: str
    ok: bool

    @property
    def brief(self) -> str:
        """The arguments on one short line, for the collapsed summary."""
        return one_line(self.args, 100)


@dataclass(frozen=True)
class IntentTag:
    intent_id: str
    text: str
    status: str
    stage: str
    turn: int
    evidence: str
    decided_by: str


@dataclass
class Turn:
    number: int
    user: str | None = None
    """The user's message of this turn (turn 0: the opening request or event)."""
    user_role: str = "user"
    agent: str | None = None
    tool_calls: list[ToolCallView] = field(default_factory=list)
    tags: list[IntentTag] = field(default_factory=list)


@dataclass(frozen=True)
class GradeView:
    item_id: str
    text: str
    grader: str
    weight: float
    status: str
    rationale: str
    error: str | None


@dataclass(frozen=True)
class IntentSummary:
    """A hidden intent with its final status (``unresolved`` without one) and where it got it."""

    intent_id: str
    text: str
    status: str
    turn: int | None


@dataclass
class SessionView:
    anchor: str
    run: RunLike
    ablation: str
    session_run: SessionRunLike
    title: str
    category: str
    result: SessionResult
    turns: list[Turn]
    intents: list[IntentSummary]
    grades: list[GradeView]
    diff: list[FileDiff] | None = None
    """Workspace changes in this session; None when it left no snapshot."""
    diff_base: str | None = None
    """What the diff starts from: the previous session's snapshot or the run's starting workspace."""
    app_changes: list[TableDiff] | None = None
    """App rows this session added, changed or removed; None when it left no app snapshot."""
    agent_error: ErrorTrace | None = None
    """The exception the agent raised, with its own frames, when it failed."""

    @property
    def session_id(self) -> str:
        return self.session_run.session_id


def session_views(store: Store, run: RunLike, catalog: EpisodeCatalog) -> list[SessionView]:
    """Every session run of a run, in order; each diff is against the previous snapshot (the seed first)."""
    views = []
    previous, base = catalog.seed_snapshot(store, run)
    previous_apps = catalog.seed_apps(run)
    ablation = run_spec(run).ablation
    for session_run in store.session_runs(run.id):
        assert session_run.id is not None
        snapshot = store.snapshot(session_run.id, "workspace")
        view = _session_view(store, run, ablation, session_run, catalog.session(run, session_run.session_id))
        if snapshot is not None:
            snapshot = expand_snapshot(previous, snapshot)  # a delta's base is the previous session's snapshot
            view.diff, view.diff_base = workspace_diff(previous, snapshot), base
            previous, base = snapshot, f"since {session_run.session_id}"
        apps = store.snapshot(session_run.id, "apps")
        if apps is not None:
            view.app_changes, previous_apps = app_diff(previous_apps, apps), apps
        views.append(view)
    return views


def _session_view(store: Store, run: RunLike, ablation: str, session_run: SessionRunLike, session: Session | None) -> SessionView:
    assert session_run.id is not None
    intent_text = {i.id: i.text for i in session.intents} if session else {}
    events: list[IntentEvent] = store.rows(IntentEvent, session_run.id)
    tags = [IntentTag(e.intent_id, intent_text.get(e.intent_id, ""), e.status, e.stage, e.turn, e.evidence, e.decided_by) for e in events]
    result = stored_session_result(store, session_run)
    item_text = {c.id: c.text for c in session.checklist} if session else {}
    grades = [GradeView(g.item_id, item_text.get(g.item_id, ""), g.grader, g.weight, g.status, g.rationale, g.error) for g in result.grades]
    failures = [ErrorTrace.from_stored(e.type, e.message, e.frames) for e in store.rows(AgentErrorRow, session_run.id)]
    return SessionView(
        anchor=f"session-{session_run.id}",
        run=run,
        ablation=ablation,
        session_run=session_run,
        title=session.title if session else "",
        category=session.category if session else "?",
        result=result,
        turns=_turns(store.rows(MessageRow, session_run.id), store.rows(ToolCallRow, session_run.id), tags),
        intents=_intent_summaries(list(intent_text) or [t.intent_id for t in tags], intent_text, tags),
        grades=grades,
        agent_error=failures[0] if failures else None,
    )


def _turns(messages: list[MessageRow], calls: list[ToolCallRow], tags: list[IntentTag]) -> list[Turn]:
    turns: dict[int, Turn] = {}
    for message in messages:
        turn = turns.setdefault(message.turn, Turn(message.turn))
        if message.role == "agent":
            turn.agent = message.content
        else:
            turn.user, turn.user_role = message.content, message.role
    for call in sorted(calls, key=lambda c: (c.turn, c.seq)):
        turns.setdefault(call.turn, Turn(call.turn)).tool_calls.append(
            ToolCallView(call.tool_name, _shown(call.call), _shown(call.result), call.ok)
        )
    for tag in tags:
        turns.setdefault(tag.turn, Turn(tag.turn)).tags.append(tag)
    return [turns[n] for n in sorted(turns)]


def _intent_summaries(order: list[str], text: dict[str, str], tags: list[IntentTag]) -> list[IntentSummary]:
    final = {t.intent_id: t for t in tags}
    return [
        IntentSummary(i, text.get(i, ""), final[i].status if i in final else "unresolved", final[i].turn if i in final else None)
        for i in order
    ]


def _shown(value: Any) -> str:
    text = readable(value)
    if len(text) <= MAX_TOOL_TEXT:
        return text
    return f"{text[:MAX_TOOL_TEXT]}\n… ({len(text) - MAX_TOOL_TEXT} more characters not shown)"
