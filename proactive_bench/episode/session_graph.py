"""The LangGraph state machine of one session: agent and simulated user in turns.

State is a typed dict of typed records (messages, intent labels, leaks);
nodes are functions of the state that get the session's
:class:`SessionRuntime` as LangGraph's run context (``context_schema``);
routing is two small pure functions. The session ends when the user has
nothing left to reveal after an agent reply (every intent terminal), when a
judgment fails (``error``), or at the turn cap (``truncated``, never scored as
a normal end).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Annotated, Any, Protocol, TypedDict

import structlog
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from proactive_bench.data_model import (
    Evidence,
    IntentLabel,
    IntentStatus,
    Leak,
    Message,
    SessionOutcome,
)
from proactive_bench.dataset import GraderResolver, Persona, Session
from proactive_bench.env import Memory, ToolBox, ToolRecord, Workspace
from proactive_bench.episode.tracing import NO_TRACE, RunTrace
from proactive_bench.scaffolds import Scaffold, call_respond
from proactive_bench.tracebacks import ErrorTrace
from proactive_bench.user import UserSimulator, UserView

log = structlog.get_logger(__name__)


class SessionState(TypedDict):
    turn: int
    pending: str
    transcript: Annotated[list[Message], operator.add]
    labels: Annotated[list[IntentLabel], operator.add]
    leaks: Annotated[list[Leak], operator.add]
    changed_files: list[str]
    outcome: SessionOutcome
    error: str | None
    failure: ErrorTrace | None
    """The exception the agent raised, when it failed."""


class TurnSink(Protocol):
    """Where finished turns go (the store); called once per node run."""

    def agent_turn(self, reply: Message, records: list[ToolRecord]) -> None: ...

    def user_turn(self, labels: list[IntentLabel], message: Message | None) -> None: ...


@dataclass
class SessionRuntime:
    """Everything one session's run needs besides its state: LangGraph's run context for the nodes."""

    persona: Persona
    session: Session
    agent: Scaffold
    user: UserSimulator
    toolbox: ToolBox
    workspace: Workspace
    memory: Memory
    graders: GraderResolver
    sink: TurnSink
    max_turns: int
    known: frozenset[str] = frozenset()
    """Intents whose convention the agent already knows from an earlier session (the user credits no question about them)."""
    trace: RunTrace = NO_TRACE
    """The run's trace: each turn is a span in it (agent reply and user answer), its labels events."""
    labels_at_cap: bool = False
    """The user's labels of the last turn before the cap are kept, their message never delivered (the π-Bench release
    judges the last reply too); by default only its completions count."""
    apps_at_start: dict[str, list[dict[str, Any]]] | None = field(init=False)

    def __post_init__(self) -> None:
        apps = self.toolbox.env.apps
        self.apps_at_start = apps.snapshot() if apps is not None else None  # for app_rows_added

    def evidence(self, transcript: list[Message]) -> Evidence:
        return Evidence(
            transcript=list(transcript),
            tool_records=list(self.toolbox.records),
            workspace=self.workspace,
            memory=self.memory,
            resolve_python=self.graders,
            apps=self.toolbox.env.apps,
            apps_at_start=self.apps_at_start,
        )


def opening_message(session: Session) -> Message:
    """The session's trigger as the transcript's first message (turn 0)."""
    return Message("event" if session.trigger.type == "event" else "user", session.trigger.message, 0)


def initial_state(session: Session) -> SessionState:
    opening = opening_message(session)
    return SessionState(
        turn=0,
        pending=opening.content,
        transcript=[opening],
        labels=[],
        leaks=[],
        changed_files=[],
        outcome=SessionOutcome.RUNNING,
        error=None,
        failure=None,
    )


def failed_state(error: str, failure: ErrorTrace | None = None) -> SessionState:
    """The final state of a session that could not start (its scaffold failed): nothing happened in it."""
    return SessionState(
        turn=0,
        pending="",
        transcript=[],
        labels=[],
        leaks=[],
        changed_files=[],
        outcome=SessionOutcome.ERROR,
        error=error,
        failure=failure,
    )


def agent_failed(turn: int, failure: ErrorTrace) -> str:
    """``agent failed at turn 3: ValueError: message (agent.py:42 in respond)`` (turn 0: in ``start_session``)."""
    return f"agent failed {f'at turn {turn}' if turn else 'to start the session'}: {failure.summary}"


# The routing functions are coroutine functions only so that LangGraph calls them on the
# event loop: a plain function would be sent to a worker thread at every step.


async def after_agent(state: SessionState) -> str:
    return "user" if state["outcome"] == SessionOutcome.RUNNING else END


async def after_user(state: SessionState) -> str:
    return "agent" if state["outcome"] == SessionOutcome.RUNNING else END


async def agent_node(state: SessionState, runtime: Runtime[SessionRuntime]) -> dict[str, Any]:
    """One agent turn: answer the pending message (tools run inside), note changed files."""
    rt = runtime.context
    turn = state["turn"] + 1
    rt.toolbox.turn = turn
    rt.trace.begin_turn(turn)
    first_record = len(rt.toolbox.records)
    before = rt.workspace.fingerprint()
    try:
        with rt.trace.agent_answering():
            reply = (await call_respond(rt.agent, state["pending"])).reply
    except Exception as exc:  # the agent under test failed; record it, never score it as normal
        failure = ErrorTrace.of(exc)
        log.warning("agent_failed", session=rt.session.id, turn=turn, error=failure.summary)
        rt.sink.agent_turn(Message("agent", "", turn), rt.toolbox.records[first_record:])
        return {"turn": turn, "outcome": SessionOutcome.ERROR, "error": agent_failed(turn, failure), "failure": failure}
    rt.toolbox.end_turn()
    after = rt.workspace.fingerprint()
    changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    message = Message("agent", reply, turn)
    rt.sink.agent_turn(message, rt.toolbox.records[first_record:])
    return {"turn": turn, "transcript": [message], "changed_files": changed}


async def user_node(state: SessionState, runtime: Runtime[SessionRuntime]) -> dict[str, Any]:
    """One user turn: label intents, then reveal, answer, or end the session."""
    rt = runtime.context
    turn = state["turn"]
    done = {label.intent_id for label in state["labels"]}
    open_intents = [i for i in rt.session.intents if i.id not in done]
    view = UserView(
        persona=rt.persona,
        session=rt.session,
        open_intents=open_intents,
        evidence=rt.evidence(state["transcript"]),
        turn=turn,
        turn_tool_records=[r for r in rt.toolbox.records if r.turn == turn],
        changed_files=state["changed_files"],
        earlier_labels=state["labels"],
        known=rt.known,
    )
    try:
        decision = await rt.user.decide(view)
    except Exception as exc:  # a judgment that could not be made ends the session as an error
        decision_error: str | None = f"user simulator failed: {exc}"
    else:
        decision_error = decision.error
        if decision_error is None and decision.message is None and open_intents and not _all_closed(decision.labels, open_intents):
            decision_error = "the user simulator produced no message while intents remain open"
    if decision_error is not None:
        rt.sink.user_turn([], None)
        return {"outcome": SessionOutcome.ERROR, "error": decision_error}
    labels, text, outcome = [replace(label, turn=turn) for label in decision.labels], decision.message, SessionOutcome.RUNNING
    if text is None:
        outcome = SessionOutcome.COMPLETED
    elif turn >= rt.max_turns:
        if not rt.labels_at_cap:
            labels = [label for label in labels if label.status == IntentStatus.COMPLETED]
        text, outcome = None, SessionOutcome.TRUNCATED
    message = Message("user", text, turn) if text is not None else None
    rt.sink.user_turn(labels, message)
    rt.trace.end_turn(labels)
    update: dict[str, Any] = {"labels": labels, "outcome": outcome}
    if decision.leaks:
        update["leaks"] = [Leak(turn, decision.leaks)]
    if message is not None:
        update["pending"] = message.content
        update["transcript"] = [message]
    return update


@cache
def session_graph() -> Any:
    """The agent/user loop, compiled once; each run gets its session's runtime as the run context."""
    graph = StateGraph(SessionState, context_schema=SessionRuntime)
    graph.add_node("agent", agent_node)
    graph.add_node("user", user_node)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["user", END])
    graph.add_conditional_edges("user", after_user, ["agent", END])
    return graph.compile()


def _all_closed(labels: list[IntentLabel], open_intents: list[Any]) -> bool:
    return {label.intent_id for label in labels} >= {i.id for i in open_intents}


async def run_session_graph(rt: SessionRuntime) -> SessionState:
    """Run one session to its end and return the final state."""
    config: RunnableConfig = {"recursion_limit": 2 * rt.max_turns + 10}
    state = await session_graph().ainvoke(initial_state(rt.session), config, context=rt)
    return state
