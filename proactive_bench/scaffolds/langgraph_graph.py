"""A compiled LangGraph graph as the agent under test (``--model module:attr`` or ``path.py:attr``).

The attribute is either a compiled graph over messages (a ``CompiledStateGraph`` or any ``Pregel`` with a
``messages`` channel, e.g. ``langgraph.prebuilt.create_react_agent``'s), or a graph factory: a callable with one
parameter named ``tools`` that takes the session's tools as LangChain tools (:func:`as_langchain_tools`, each
call recorded through the session's toolbox) and returns such a graph; it is called at each session start.

Each user turn invokes the graph with the new human message; the reply is the text of the last AI message. A
graph compiled with a checkpointer gets a fresh thread per session on it; a graph without one is given the
session's whole message list each turn (kept here), so it also starts each session afresh. Each chat-model
call of the graph declares a step on the session's toolbox, as the ``react`` scaffold's model calls do. A turn makes
at most ``DEFAULT_MAX_TOOL_CALLS`` tool calls, as the ``react`` scaffold's and external agents' do: the ones past it are
refused unrun (a prebuilt ReAct graph runs every call of a model answer at once, however many it holds).
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage
from langchain_core.tools import BaseTool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.pregel import Pregel

from proactive_bench.env import ToolBox
from proactive_bench.scaffolds.defaults import DEFAULT_MAX_TOOL_CALLS
from proactive_bench.scaffolds.langchain_tools import as_langchain_tools
from proactive_bench.scaffolds.protocol import (
    EVENT_PREFIX,
    AgentTurn,
    ScaffoldLoadError,
    SessionContext,
)

GraphFactory = Callable[[list[BaseTool]], Pregel]
FACTORY_PARAMETER = "tools"
"""The one parameter a graph factory takes: what tells it apart from a scaffold factory (which takes options)."""


def is_graph_attr(attr: Any) -> bool:
    """Whether a loaded ``module:attr`` is a compiled graph or a graph factory (a callable taking ``tools``)."""
    if isinstance(attr, Pregel):
        return True
    try:
        parameters = list(inspect.signature(attr).parameters)
    except (TypeError, ValueError):
        return False
    return not inspect.isclass(attr) and parameters == [FACTORY_PARAMETER]


def check_graph(graph: Any, spec: str) -> Pregel:
    """``graph`` if it is a compiled graph with a ``messages`` channel; else a one-line :class:`ScaffoldLoadError`."""
    if not isinstance(graph, Pregel):
        raise ScaffoldLoadError(f"scaffold {spec!r}: the graph factory returned {type(graph).__name__}, not a compiled LangGraph graph")
    if "messages" not in graph.channels:
        state = ", ".join(sorted(k for k in graph.channels if not k.startswith("__") and not k.startswith("branch:"))) or "none"
        raise ScaffoldLoadError(
            f"scaffold {spec!r}: the LangGraph graph has no 'messages' state key (its keys: {state}); pbench talks to graphs over messages"
        )
    return graph


class GraphAgent:
    """A scaffold driving a compiled LangGraph graph, one conversation (thread) per session."""

    def __init__(self, source: Pregel | GraphFactory, spec: str) -> None:
        self.spec = spec
        self._source = check_graph(source, spec) if isinstance(source, Pregel) else source
        self._graph: Pregel | None = None
        self._ctx: SessionContext | None = None
        self._thread = ""
        self._turns = 0
        self._messages: list[AnyMessage] = []

    def start_session(self, ctx: SessionContext) -> None:
        graph = self._source if isinstance(self._source, Pregel) else check_graph(self._source(as_langchain_tools(ctx.tools)), self.spec)
        self._graph, self._ctx, self._messages, self._turns = graph, ctx, [], 0
        ctx.tools.max_calls_per_turn = DEFAULT_MAX_TOOL_CALLS
        self._thread = f"pbench-{ctx.session_id}-{uuid.uuid4().hex[:12]}"

    def end_session(self) -> None:
        self._graph, self._ctx, self._messages = None, None, []

    async def respond(self, message: str) -> AgentTurn:
        """Invoke the graph on the new message; the text of the last AI message after it is the reply."""
        graph, ctx = self._graph, self._ctx
        if graph is None or ctx is None:
            raise RuntimeError("respond() called before start_session()")
        text = EVENT_PREFIX + message if self._turns == 0 and ctx.trigger == "event" else message
        self._turns += 1
        checkpointed = isinstance(graph.checkpointer, BaseCheckpointSaver)
        state = await graph.ainvoke(
            {"messages": [HumanMessage(text)] if checkpointed else [*self._messages, HumanMessage(text)]},
            {"configurable": {"thread_id": self._thread}, "callbacks": [_StepPerModelCall(ctx.tools)]},
        )
        messages = state.get("messages") if isinstance(state, dict) else None
        if not isinstance(messages, list):
            raise TypeError(f"the graph returned no 'messages' list (got {type(state).__name__})")
        self._messages = [] if checkpointed else messages
        last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
        replies = [m for m in messages[last_human + 1 :] if isinstance(m, AIMessage)]
        return AgentTurn(reply=str(replies[-1].text) if replies else "")


class _StepPerModelCall(BaseCallbackHandler):
    """Declares a step on the session's toolbox at each chat-model call of the graph, as the react scaffold does."""

    run_inline = True

    def __init__(self, toolbox: ToolBox) -> None:
        self.toolbox = toolbox

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any) -> None:
        self.toolbox.begin_step()
