"""The LangGraph state machine of one session: agent and simulated user in turns.

State is a typed dict of typed records (messages, intent labels, leaks);
nodes are functions of the state that get the session's
:class:`SessionRuntime` as LangGraph's run context (``context_schema``) and
return the state's update; one pure rule (:func:`next_node`) routes from it:
the other node while the session runs, else the end. A run a callback handler
observes runs them in LangGraph's compiled graph, each node's update and route
as the :class:`~langgraph.types.Command` it returns there; any other in
:func:`run_steps`, the same steps without LangGraph's machinery nor its import
(with LangChain's tracers and LangSmith, which it loads: about 0.45 s of CPU at
each start of a run nothing observes). The session ends when the user has
nothing left to reveal after an agent reply (every intent terminal), when a
judgment fails (``error``), or at the turn cap (``truncated``, never scored as
a normal end).
"""

from __future__ import annotations

import asyncio
import contextvars
import operator
import sys
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Protocol, TypedDict, cast, get_origin, get_type_hints

from proactive_bench.data_model import (
    Evidence,
    IntentLabel,
    IntentStatus,
    Leak,
    Message,
    SessionOutcome,
)
from proactive_bench.dataset import GraderResolver, Persona, Session
from proactive_bench.env import Memory, SteadyWorkspace, ToolBox, ToolRecord, Workspace, jail
from proactive_bench.episode.tracing import NO_TRACE, RunTrace
from proactive_bench.llm import has_handlers, unobserved
from proactive_bench.logs import get_logger
from proactive_bench.scaffolds import Scaffold, acts_only_through_tools, call_respond
from proactive_bench.tracebacks import ErrorTrace
from proactive_bench.user import UserSimulator, UserView

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

log = get_logger(__name__)

END = "__end__"
"""Where a session's run goes when it ends: LangGraph's ``END`` node."""


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
    turn_end: tuple[dict[str, str], jail.Scan] | None = field(default=None, init=False)
    """The workspace as the agent's last turn left it (its fingerprint and walk), or as the session opened it before the
    first turn: the start the next turn's changes are counted from, and what the user's judgment of the turn looks at
    (the user changes no file); None until the first turn starts."""
    walked_records: int = field(default=0, init=False)
    """How many tool calls the session had made when ``turn_end`` was walked."""

    def __post_init__(self) -> None:
        apps = self.toolbox.env.apps
        self.apps_at_start = apps.snapshot() if apps is not None else None  # for app_rows_added

    def walk(self) -> tuple[dict[str, str], jail.Scan]:
        """Walk and fingerprint the workspace as it stands: the new ``turn_end``."""
        scan = self.workspace.scan()
        self.turn_end, self.walked_records = (self.workspace.fingerprint(scan), scan), len(self.toolbox.records)
        return self.turn_end

    def unchanged_walk(self) -> tuple[dict[str, str], jail.Scan] | None:
        """``turn_end`` while the workspace is still as it was walked: the agent is one of pbench's own baselines, which
        change it only through their tools (:func:`~proactive_bench.scaffolds.acts_only_through_tools`), and has called
        none since; else None (walk it again)."""
        if self.turn_end is not None and len(self.toolbox.records) == self.walked_records and acts_only_through_tools(self.agent):
            return self.turn_end
        return None

    def evidence(self, transcript: list[Message], scan: jail.Scan | None = None) -> Evidence:
        """The session as it stands, for the user's judgment of a turn or the grades at its end: the workspace seen
        through a :class:`SteadyWorkspace` (walked once, or ``scan`` when given, and each file read once, however many
        checks glob and read it)."""
        return Evidence(
            transcript=list(transcript),
            tool_records=list(self.toolbox.records),
            workspace=SteadyWorkspace(self.workspace, scan),
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


class NodeRuntime(Protocol):
    """What a node gets besides the state: LangGraph's ``Runtime`` in the graph, :func:`run_steps`' own outside it; both hold
    the session's runtime as their ``context``."""

    @property
    def context(self) -> SessionRuntime: ...


@dataclass(frozen=True)
class _StepRuntime:
    context: SessionRuntime


def inherited_config() -> RunnableConfig | None:
    """The LangChain run config a call made here would inherit (LangChain's ``var_child_runnable_config``); None while
    LangChain's runnable-config module is not loaded, as then nothing can have set it."""
    module = sys.modules.get("langchain_core.runnables.config")
    return module.var_child_runnable_config.get() if module is not None else None


@contextmanager
def outside_graph_run() -> Iterator[None]:
    """Around a node's own work (the agent's reply, the user's judgment): the model and graph calls inside do not inherit the
    session graph's run config, so LangChain builds no child callback managers for them from it nor merges its
    ``langgraph_*`` metadata into theirs. When a callback handler listens on the session graph's run (a LangSmith tracer),
    the config is kept, so the calls still nest under the node's run."""
    config = inherited_config()
    if config is None or has_handlers(config.get("callbacks")):
        yield
        return
    from langchain_core.runnables.config import var_child_runnable_config  # loaded: it holds a config

    token = var_child_runnable_config.set(None)
    try:
        yield
    finally:
        var_child_runnable_config.reset(token)


def next_node(node: str, update: dict[str, Any]) -> str:
    """The pure routing rule: after ``node``'s ``update``, the other node while the session runs, else the end."""
    if update.get("outcome", SessionOutcome.RUNNING) != SessionOutcome.RUNNING:
        return END
    return "user" if node == "agent" else "agent"


async def agent_node(state: SessionState, runtime: NodeRuntime) -> dict[str, Any]:
    """One agent turn: answer the pending message (tools run inside), note changed files."""
    rt = runtime.context
    turn = state["turn"] + 1
    rt.toolbox.turn = turn
    rt.trace.begin_turn(turn)
    first_record = len(rt.toolbox.records)
    before = (rt.turn_end or rt.walk())[0]  # the session's first turn starts from the workspace as the session opened it
    try:
        with rt.trace.agent_answering(), outside_graph_run():
            reply = (await call_respond(rt.agent, state["pending"])).reply
    except Exception as exc:  # the agent under test failed; record it, never score it as normal
        failure = ErrorTrace.of(exc)
        log.warning("agent_failed", session=rt.session.id, turn=turn, error=failure.summary)
        rt.sink.agent_turn(Message("agent", "", turn), rt.toolbox.records[first_record:])
        return {"turn": turn, "outcome": SessionOutcome.ERROR, "error": agent_failed(turn, failure), "failure": failure}
    rt.toolbox.end_turn()
    after = (rt.unchanged_walk() or rt.walk())[0]
    changed = [] if after is before else sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    message = Message("agent", reply, turn)
    rt.sink.agent_turn(message, rt.toolbox.records[first_record:])
    return {"turn": turn, "transcript": [message], "changed_files": changed}


async def user_node(state: SessionState, runtime: NodeRuntime) -> dict[str, Any]:
    """One user turn: label intents, then reveal, answer, or end the session."""
    rt = runtime.context
    turn = state["turn"]
    done = {label.intent_id for label in state["labels"]}
    open_intents = [i for i in rt.session.intents if i.id not in done]
    view = UserView(
        persona=rt.persona,
        session=rt.session,
        open_intents=open_intents,
        evidence=rt.evidence(state["transcript"], rt.turn_end[1] if rt.turn_end is not None else None),
        turn=turn,
        turn_tool_records=[r for r in rt.toolbox.records if r.turn == turn],
        changed_files=state["changed_files"],
        earlier_labels=state["labels"],
        known=rt.known,
    )
    try:
        with outside_graph_run():
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


Node = Callable[[SessionState, NodeRuntime], Coroutine[Any, Any, dict[str, Any]]]
_NODES: dict[str, Node] = {"agent": agent_node, "user": user_node}


@cache
def session_graph() -> Any:
    """The agent/user loop as LangGraph's graph, compiled once; each run gets its session's runtime as the run context."""
    return compile_graph(SessionState, _NODES, SessionRuntime)


def compile_graph(state_schema: type[Any], nodes: dict[str, Node], context_schema: type[Any] | None = None) -> Any:
    """``nodes`` (by name; the run starts at ``agent``) as LangGraph's compiled graph: each node returns its update with
    :func:`next_node`'s route as a ``Command``, under its own name (a tracer sees the node runs by those names)."""
    from langgraph.graph import START, StateGraph  # loads with an observed run only

    graph = StateGraph(state_schema, context_schema=context_schema)
    for name, node in nodes.items():
        graph.add_node(name, _commanding(name, node), destinations=(next_node(name, {}), END))
    graph.add_edge(START, "agent")
    return graph.compile()


def _commanding(name: str, node: Node) -> Callable[..., Coroutine[Any, Any, Any]]:
    """The node ``name`` for LangGraph's graph: its update and route as a ``Command`` (LangGraph passes ``runtime`` by name)."""
    from langgraph.types import Command

    async def commanding(state: Any, *, runtime: Any) -> Any:
        update = await node(state, runtime)
        return Command(update=update, goto=next_node(name, update))

    return commanding


_REDUCERS: dict[str, Callable[[Any, Any], Any]] = {
    key: hint.__metadata__[0] for key, hint in get_type_hints(SessionState, include_extras=True).items() if get_origin(hint) is Annotated
}
"""The state's keys that merge an update with their reducer (``operator.add``), as the graph's channels do; the others take it."""


async def run_steps(rt: SessionRuntime, state: SessionState, recursion_limit: int) -> SessionState:
    """The graph's run for a session nothing observes: from the ``agent`` node, each node's update merged into the state as the
    graph's channels merge it, then :func:`next_node` followed, to the end; without LangGraph's step machinery (task
    preparation, channel writes, a checkpoint and a callback manager per step: about a sixth of pbench's CPU per session) nor
    its import. At ``recursion_limit`` node runs, LangGraph's :class:`~langgraph.errors.GraphRecursionError`; a
    :class:`asyncio.CancelledError` a node raises itself (its task not being cancelled), LangGraph's
    :class:`~langgraph.errors.NodeCancelledError`: as the graph raises them (LangGraph loads to raise them)."""
    runtime = _StepRuntime(rt)
    node, steps = "agent", 0
    while node != END:
        try:
            # in a task of its own on a copy of the context, as LangGraph runs a node: what the node sets in context variables
            # stays in it
            update = await asyncio.create_task(_NODES[node](state, runtime), context=contextvars.copy_context())
        except asyncio.CancelledError as exc:
            task = asyncio.current_task()
            if task is not None and task.cancelling() == 0:  # the node's own, not the run's cancellation: a node failure
                from langgraph.errors import NodeCancelledError

                raise NodeCancelledError(node) from exc
            raise
        values: dict[str, Any] = dict(state)
        for key, value in update.items():
            values[key] = _REDUCERS[key](values[key], value) if key in _REDUCERS else value
        state, node, steps = cast(SessionState, values), next_node(node, update), steps + 1
        if steps == recursion_limit:  # LangGraph's step count reaches its limit even when this step was the last
            from langgraph.errors import ErrorCode, GraphRecursionError, create_error_message

            raise GraphRecursionError(
                create_error_message(
                    message=f"Recursion limit of {recursion_limit} reached without hitting a stop condition. "
                    "You can increase the limit by setting the `recursion_limit` config key.",
                    error_code=ErrorCode.GRAPH_RECURSION_LIMIT,
                )
            )
    return state


def _all_closed(labels: list[IntentLabel], open_intents: list[Any]) -> bool:
    return {label.intent_id for label in labels} >= {i.id for i in open_intents}


async def run_session_graph(rt: SessionRuntime) -> SessionState:
    """Run one session to its end and return the final state."""
    limit = 2 * rt.max_turns + 10
    inherited = inherited_config()
    if unobserved(inherited.get("callbacks") if inherited is not None else None):
        return await run_steps(rt, initial_state(rt.session), limit)
    # v2: the final state only (v1 streams every step's updates besides, to find interrupts the nodes never raise)
    output = await session_graph().ainvoke(initial_state(rt.session), {"recursion_limit": limit}, context=rt, version="v2")
    state: SessionState = output.value
    return state
