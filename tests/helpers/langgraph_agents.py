"""LangGraph graphs for the graph-agent tests, loaded as ``HELPERS / "langgraph_agents.py"``:NAME.

The models are ``ChatOpenAI`` on ``OPENAI_BASE_URL`` (a test points it at a stub server before loading).
"""

from __future__ import annotations

from typing import Any, TypedDict

from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import create_react_agent


def uncheckpointed(tools: list[BaseTool]) -> CompiledStateGraph:
    """The prebuilt ReAct agent compiled without a checkpointer: pbench keeps each session's messages."""
    return create_react_agent(ChatOpenAI(model="stub-graph", max_retries=0), tools)


def _boom(state: MessagesState) -> dict[str, Any]:
    raise RuntimeError(f"graph node failed on {len(state['messages'])} message(s)")


raising = StateGraph(MessagesState).add_node("boom", _boom).add_edge(START, "boom").add_edge("boom", END).compile()
"""A graph over messages whose only node raises."""


class Counter(TypedDict):
    count: int


counting = StateGraph(Counter).add_node("step", lambda s: {"count": s["count"] + 1}).add_edge(START, "step").add_edge("step", END).compile()
"""A graph whose state has no messages."""


def not_a_graph(tools: list[BaseTool]) -> str:
    """A graph factory that returns something else."""
    return "a graph, honestly"
