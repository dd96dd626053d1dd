"""The session graph's nodes run their inner model calls outside the graph's run config, unless a callback handler listens."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from proactive_bench.episode.session_graph import outside_graph_run


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
