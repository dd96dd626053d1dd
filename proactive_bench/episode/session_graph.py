"""The LangGraph state machine of one session: agent and simulated user in turns.

State is a typed dict of plain data; nodes are functions of the state that
find the :class:`SessionRuntime` in the config; routing is two small pure functions. The
session ends when the user has nothing left to reveal after an agent reply
(every intent terminal), when a judgment fails (``error``), or at the turn
cap (``truncated``, never scored as a normal end).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Literal, Protocol, TypedDict

import structlog
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from proactive_bench.data_model import Evidence, Message
from proactive_bench.dataset import GraderResolver, Persona, Session
from proactive_bench.env import Memory, ToolBox, ToolRecord, Workspace
from proactive_bench.scaffolds import Scaffold, call_respond
from proactive_bench.user import IntentLabel, IntentStatus, UserSimulator, UserView

log = structlog.get_logger(__name__)

Outcome = Literal["running", "completed", "truncated", "error"]


class SessionState(TypedDict):
    turn: int
    pending: str
    transcript: Annotated[list[dict[str, Any]], operator.add]
    labels: Annotated[list[dict[str, Any]], operator.add]
    leaks: Annotated[list[dict[str, Any]], operator.add]
    changed_files: list[str]
    outcome: Outcome
    error: str | None


class TurnSink(Protocol):
    """Where finished turns go (the store); called once per node run."""

    def agent_turn(self, turn: int, reply: str, records: list[ToolRecord]) -> None: ...

    def user_turn(self, turn: int, labels: list[IntentLabel], message: str | None) -> None: ...


@dataclass
class SessionRuntime:
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
    apps_at_start: dict[str, list[dict[str, Any]]] | None = field(init=False)

    def __post_init__(self) -> None:
        apps = self.toolbox.env.apps
        self.apps_at_start = apps.snapshot() if apps is not None else None  # for app_rows_added

    def evidence(self, transcript: list[dict[str, Any]]) -> Evidence:
        return Evidence(
            transcript=[Message(m["role"], m["content"], m["turn"]) for m in transcript],
            tool_records=list(self.toolbox.records),
            workspace=self.workspace,
            memory=self.memory,
            resolve_python=self.graders,
            apps=self.toolbox.env.apps,
            apps_at_start=self.apps_at_start,
        )


def initial_state(session: Session) -> SessionState:
    role = "event" if session.trigger.type == "event" else "user"
    return SessionState(
        turn=0,
        pending=session.trigger.message,
        transcript=[{"role": role, "content": session.trigger.message, "turn": 0}],
        labels=[],
        leaks=[],
        changed_files=[],
        outcome="running",
        error=None,
    )


# The routing functions are coroutine functions only so that LangGraph calls them on the
# event loop: a plain function would be sent to a worker thread at every step.


async def after_agent(state: SessionState) -> str:
    return "user" if state["outcome"] == "running" else END


async def after_user(state: SessionState) -> str:
    return "agent" if state["outcome"] == "running" else END


def _runtime(config: RunnableConfig) -> SessionRuntime:
    return config["configurable"]["runtime"]  # type: ignore[no-any-return]


async def agent_node(state: SessionState, config: RunnableConfig) -> dict[str, Any]:
    """One agent turn: answer the pending message (tools run inside), note changed files."""
    rt = _runtime(config)
    turn = state["turn"] + 1
    rt.toolbox.turn = turn
    first_record = len(rt.toolbox.records)
    before = rt.workspace.fingerprint()
    try:
        reply = (await call_respond(rt.agent, state["pending"])).reply
    except Exception as exc:  # the agent under test failed; record it, never score it as normal
        log.warning("agent_failed", session=rt.session.id, turn=turn, error=repr(exc))
        rt.sink.agent_turn(turn, "", rt.toolbox.records[first_record:])
        return {"turn": turn, "outcome": "error", "error": f"agent failed at turn {turn}: {exc}"}
    after = rt.workspace.fingerprint()
    changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    rt.sink.agent_turn(turn, reply, rt.toolbox.records[first_record:])
    return {
        "turn": turn,
        "transcript": [{"role": "agent", "content": reply, "turn": turn}],
        "changed_files": changed,
    }


async def user_node(state: SessionState, config: RunnableConfig) -> dict[str, Any]:
    """One user turn: label intents, then reveal, answer, or end the session."""
    rt = _runtime(config)
    turn = state["turn"]
    done = {label["intent_id"] for label in state["labels"]}
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
    )
    try:
        decision = await rt.user.decide(view)
    except Exception as exc:  # a judgment that could not be made ends the session as an error
        decision_error: str | None = f"user simulator failed: {exc}"
    else:
        decision_error = decision.error
        if decision_error is None and decision.message is None and open_intents and not _all_closed(
            decision.labels, open_intents
        ):
            decision_error = "the user simulator produced no message while intents remain open"
    if decision_error is not None:
        rt.sink.user_turn(turn, [], None)
        return {"outcome": "error", "error": decision_error}
    labels, message, outcome = decision.labels, decision.message, "running"
    if message is None:
        outcome = "completed"
    elif turn >= rt.max_turns:
        labels = [label for label in labels if label.status == IntentStatus.COMPLETED]
        message, outcome = None, "truncated"
    rt.sink.user_turn(turn, labels, message)
    update: dict[str, Any] = {"labels": [_label_dict(label, turn) for label in labels], "outcome": outcome}
    if decision.leaks:
        update["leaks"] = [{"turn": turn, "intents": decision.leaks}]
    if message is not None:
        update["pending"] = message
        update["transcript"] = [{"role": "user", "content": message, "turn": turn}]
    return update


@cache
def session_graph() -> Any:
    """The agent/user loop, compiled once; each run gets its session's runtime through the config."""
    graph = StateGraph(SessionState)
    graph.add_node("agent", agent_node)
    graph.add_node("user", user_node)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", after_agent, ["user", END])
    graph.add_conditional_edges("user", after_user, ["agent", END])
    return graph.compile()


def _all_closed(labels: list[IntentLabel], open_intents: list[Any]) -> bool:
    return {label.intent_id for label in labels} >= {i.id for i in open_intents}


def _label_dict(label: IntentLabel, turn: int) -> dict[str, Any]:
    return {
        "intent_id": label.intent_id,
        "status": label.status.value,
        "stage": label.stage.value,
        "turn": turn,
        "evidence": label.evidence,
        "decided_by": label.decided_by,
        "prompt_hash": label.prompt_hash,
    }


async def run_session_graph(rt: SessionRuntime) -> SessionState:
    """Run one session to its end and return the final state."""
    config: RunnableConfig = {"recursion_limit": 2 * rt.max_turns + 10, "configurable": {"runtime": rt}}
    state = await session_graph().ainvoke(initial_state(rt.session), config)
    return state  # type: ignore[no-any-return]
