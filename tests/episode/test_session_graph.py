"""The session graph's nodes run their inner model calls outside the graph's run config, unless a callback handler listens;
a run nothing observes takes the plain step loop (each node's function, its update merged as the graph's channels merge it),
an observed one LangGraph's graph, with the same session either way."""

from __future__ import annotations

import asyncio
import operator
import sqlite3
from contextlib import closing
from contextvars import ContextVar
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any, TypedDict
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import var_child_runnable_config
from langgraph.errors import GraphRecursionError, NodeCancelledError
from langgraph.graph import END, START, StateGraph

import proactive_bench.episode.session_graph as session_graph_module
from proactive_bench.data_model import SessionOutcome
from proactive_bench.episode.session_graph import outside_graph_run
from proactive_bench.testing.stub_server import Reply, StubServer
from tests.helpers.cli import run_cli, stub_server_args
from tests.helpers.paths import MINI
from tests.helpers.stub_models import FakeUserModel, agent_model


class _State(TypedDict):
    seen: list[Any]


class _Parents(BaseCallbackHandler):
    """Records the parent run and the metadata of each chat-model call."""

    run_inline = True

    def __init__(self) -> None:
        self.calls: list[tuple[UUID | None, dict[str, Any]]] = []

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        self.calls.append((parent_run_id, kwargs.get("metadata") or {}))


def _run(graph_handler: _Parents | None) -> _Parents:
    """One node calls a chat model twice, outside the graph's run and inside it; the model's own handler records both."""
    model_handler = _Parents()
    model = FakeListChatModel(responses=["a", "b"], callbacks=[model_handler])

    async def node(state: _State) -> dict[str, Any]:
        with outside_graph_run():
            await model.ainvoke("outside")
        await model.ainvoke("inside")
        return {"seen": []}

    graph = StateGraph(_State)
    graph.add_node("node", node)
    graph.add_edge(START, "node")
    graph.add_edge("node", END)
    config: RunnableConfig = {"callbacks": [graph_handler]} if graph_handler is not None else {}
    asyncio.run(graph.compile().ainvoke({"seen": []}, config))
    return model_handler


def test_without_a_listener_the_inner_call_does_not_inherit_the_graph_run() -> None:
    (outside_parent, outside_meta), (inside_parent, inside_meta) = _run(None).calls
    assert outside_parent is None and "langgraph_node" not in outside_meta
    assert inside_parent is not None and inside_meta.get("langgraph_node") == "node"  # the block's effect ends with it


def test_with_a_listener_on_the_graph_run_the_inner_call_still_nests_under_it() -> None:
    graph_handler = _Parents()
    (outside_parent, outside_meta), (inside_parent, _) = _run(graph_handler).calls
    assert outside_parent is not None and outside_meta.get("langgraph_node") == "node"
    assert len(graph_handler.calls) == 2  # the graph's handler saw both calls


def _respond(body: dict[str, Any]) -> Reply:
    """The user and judge models (``stub-*``) answer as a competent user; the agent writes the summary, then says so."""
    return FakeUserModel(gullible=True)(body) if body["model"].startswith("stub-") else agent_model(body)


def _episode(server: StubServer, db: Path) -> None:
    result = run_cli(
        "episode", "--data", str(MINI), "--persona", "mini", "--model", "openai:agent", *stub_server_args(server.base_url), "--db", str(db)
    )
    assert result.exit_code == 0, result.output


def _session(db: Path) -> list[list[Any]]:
    """What the run stored, without ids and times: messages, tool calls, labels, grades, sessions' ends."""
    queries = [
        "select s.position, m.turn, m.role, m.content from message m join sessionrun s on s.id = m.session_run_id",
        "select s.position, t.turn, t.seq, t.tool_name, t.ok from toolcall t join sessionrun s on s.id = t.session_run_id",
        "select s.position, e.turn, e.intent_id, e.status, e.stage from intentevent e join sessionrun s on s.id = e.session_run_id",
        "select s.position, g.item_id, g.score, g.error from grade g join sessionrun s on s.id = g.session_run_id",
        "select position, status, turns, steps, error from sessionrun",
        "select role, purpose, method, ok, attempt from llmcall",
    ]
    with closing(sqlite3.connect(db)) as conn:
        return [sorted(map(list, conn.execute(query))) for query in queries]


class _Chains(BaseCallbackHandler):
    """Records the name of each chain run started."""

    run_inline = True

    def __init__(self) -> None:
        self.names: set[str] = set()

    def on_chain_start(self, serialized: dict[str, Any] | None, inputs: Any, **kwargs: Any) -> None:
        self.names.add(str(kwargs.get("name")))


def test_a_run_nothing_observes_takes_the_step_loop_and_an_observed_one_langgraphs_graph_with_the_same_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken: list[str] = []
    compiled, steps = session_graph_module.session_graph, session_graph_module.run_steps

    def graph_spy() -> Any:
        taken.append("graph")
        return compiled()

    async def steps_spy(*args: Any) -> Any:
        taken.append("steps")
        return await steps(*args)

    monkeypatch.setattr(session_graph_module, "session_graph", graph_spy)
    monkeypatch.setattr(session_graph_module, "run_steps", steps_spy)
    with StubServer(_respond) as server:
        _episode(server, tmp_path / "lean.db")
        assert taken and set(taken) == {"steps"}
        taken.clear()
        chains = _Chains()
        token = var_child_runnable_config.set({"callbacks": [chains]})  # the run is called from one a handler listens to
        try:
            _episode(server, tmp_path / "observed.db")
        finally:
            var_child_runnable_config.reset(token)
        assert taken and set(taken) == {"graph"}
    assert {"agent", "user"} <= chains.names  # the nodes' runs, as LangGraph reports them
    lean, observed = _session(tmp_path / "lean.db"), _session(tmp_path / "observed.db")
    assert all(lean[:5]) and lean == observed


class _Loop(TypedDict):
    turn: int
    transcript: Annotated[list[int], operator.add]
    outcome: SessionOutcome


def test_the_session_graph_is_langgraph_s_with_the_nodes_and_routes_of_the_step_loop() -> None:
    """The compiled graph has the ``agent`` and ``user`` nodes, from the start to ``agent``, each to the other or the end."""
    drawn = session_graph_module.session_graph().get_graph()
    assert {node for node in drawn.nodes} == {START, "agent", "user", END}
    assert {(e.source, e.target) for e in drawn.edges} == {
        (START, "agent"),
        ("agent", "user"),
        ("agent", END),
        ("user", "agent"),
        ("user", END),
    }
    assert session_graph_module.END == END
    running, ended = {"turn": 1}, {"outcome": SessionOutcome.TRUNCATED}
    assert [session_graph_module.next_node(node, update) for node in ("agent", "user") for update in (running, ended)] == [
        "user",
        END,
        "agent",
        END,
    ]


def test_the_step_loop_merges_updates_as_the_graphs_channels_do_and_stops_at_the_recursion_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both runs of nodes that count turns and append to the transcript end in the same state (five node runs within a limit of 6);
    at the limit (five runs, the last one ending the run) both raise the same error."""

    async def agent(state: Any, runtime: Any) -> dict[str, Any]:
        turn = state["turn"] + 1
        ended = {} if turn < runtime.context.max_turns else {"outcome": SessionOutcome.COMPLETED}
        return {"turn": turn, "transcript": [turn], **ended}

    async def user(state: Any, runtime: Any) -> dict[str, Any]:
        return {"transcript": [-state["turn"]]}

    nodes = {"agent": agent, "user": user}
    monkeypatch.setattr(session_graph_module, "_NODES", nodes)
    monkeypatch.setattr(session_graph_module, "_REDUCERS", {"transcript": operator.add})
    compiled = session_graph_module.compile_graph(_Loop, nodes, SimpleNamespace)
    rt: Any = SimpleNamespace(max_turns=3)
    start: Any = {"turn": 0, "transcript": [0], "outcome": SessionOutcome.RUNNING}
    expected = asyncio.run(compiled.ainvoke(start, {"recursion_limit": 6}, context=rt, version="v2")).value
    assert asyncio.run(session_graph_module.run_steps(rt, start, 6)) == expected
    assert expected == {"turn": 3, "transcript": [0, 1, -1, 2, -2, 3], "outcome": SessionOutcome.COMPLETED}
    with pytest.raises(GraphRecursionError) as by_graph:
        asyncio.run(compiled.ainvoke(start, {"recursion_limit": 5}, context=rt, version="v2"))
    with pytest.raises(GraphRecursionError) as by_loop:
        asyncio.run(session_graph_module.run_steps(rt, start, 5))
    assert str(by_loop.value) == str(by_graph.value)


def test_a_cancellation_a_node_raises_itself_is_a_node_failure_in_the_step_loop_as_in_the_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """A node body raising ``CancelledError`` while its task is not cancelled: LangGraph's ``NodeCancelledError`` either way."""

    async def agent(state: Any, runtime: Any) -> dict[str, Any]:
        raise asyncio.CancelledError

    nodes = {"agent": agent, "user": agent}  # the user node is never reached
    monkeypatch.setattr(session_graph_module, "_NODES", nodes)
    start: Any = {"turn": 0, "transcript": []}
    with pytest.raises(NodeCancelledError):
        asyncio.run(session_graph_module.compile_graph(_Loop, nodes).ainvoke(start, version="v2"))
    with pytest.raises(NodeCancelledError) as by_loop:
        asyncio.run(session_graph_module.run_steps(SimpleNamespace(), start, 5))  # type: ignore[arg-type]
    assert isinstance(by_loop.value.__cause__, asyncio.CancelledError)


def test_a_cancelled_run_of_the_step_loop_stays_cancelled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's own cancellation (its task cancelled while a node waits) propagates as ``CancelledError``, as in the graph."""

    async def agent(state: Any, runtime: Any) -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("never set")

    monkeypatch.setattr(session_graph_module, "_NODES", {"agent": agent})

    async def cancelled() -> None:
        run = asyncio.ensure_future(session_graph_module.run_steps(SimpleNamespace(), {"turn": 0}, 5))  # type: ignore[arg-type]
        await asyncio.sleep(0.01)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(cancelled())


_MARK: ContextVar[str] = ContextVar("_MARK", default="unset")


def test_what_a_node_sets_in_a_context_variable_stays_in_it_in_the_step_loop_as_in_the_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each node runs on a copy of the context: the next node and the caller do not see what it set, either way."""
    seen: list[str] = []

    async def agent(state: Any, runtime: Any) -> dict[str, Any]:
        seen.append(_MARK.get())
        _MARK.set("set by agent")
        return {"turn": 1}

    async def user(state: Any, runtime: Any) -> dict[str, Any]:
        seen.append(_MARK.get())
        return {"turn": 2, "outcome": SessionOutcome.COMPLETED}

    nodes = {"agent": agent, "user": user}
    monkeypatch.setattr(session_graph_module, "_NODES", nodes)
    start: Any = {"turn": 0, "transcript": [], "outcome": SessionOutcome.RUNNING}

    async def both() -> None:
        await session_graph_module.compile_graph(_Loop, nodes).ainvoke(start, version="v2")
        seen.append(_MARK.get())
        await session_graph_module.run_steps(SimpleNamespace(), start, 5)  # type: ignore[arg-type]
        seen.append(_MARK.get())

    asyncio.run(both())
    assert seen == ["unset"] * 6
