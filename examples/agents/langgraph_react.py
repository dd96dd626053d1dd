"""A LangGraph prebuilt ReAct agent as the agent under test, with pbench's tools handed to it as LangChain tools.

    OPENAI_API_KEY=... pbench episode --persona pharmacist --agent examples/agents/langgraph_react.py:agent

``agent(tools)`` is a graph factory: pbench calls it at each session start with the session's tools (every call
goes through pbench's toolbox and is recorded as evidence) and talks to the graph it returns, one checkpointer
thread per session. The graph's model is its own: ``LANGGRAPH_MODEL`` (default ``gpt-4o-mini``) on the
OpenAI-compatible endpoint in ``OPENAI_BASE_URL`` (default OpenAI's). A graph of your own plugs in the same way:
build it from ``tools`` and return it compiled (docs/external-agents.md, "LangGraph graphs").
"""

from __future__ import annotations

import os

from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import create_react_agent

PROMPT = (
    "You are a capable assistant working in the user's folder with the tools you are given. Do the work the user "
    "asks for with the tools, ask about what you cannot find out yourself, and answer briefly."
)


def agent(tools: list[BaseTool]) -> CompiledStateGraph:
    """The ReAct graph over this session's tools, with an in-memory checkpointer (pbench gives each session a thread)."""
    model = ChatOpenAI(model=os.environ.get("LANGGRAPH_MODEL", "gpt-4o-mini"), max_retries=1)
    return create_react_agent(model, tools, prompt=PROMPT, checkpointer=InMemorySaver())
