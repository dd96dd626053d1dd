"""A ``cmd:`` agent that is a LangGraph prebuilt ReAct agent outside pbench, with the session's tools over MCP.

    OPENAI_API_KEY=... pbench episode --persona pharmacist \
        --agent "cmd:.venv/bin/python examples/agents/langgraph_mcp.py" --agent-option env=OPENAI_API_KEY

pbench starts it in the run's workspace (once per session, or once per run with ``--agent-lifetime episode``); at each
``session_start`` it opens one MCP session on the server the message names for the whole session, turns its tools
into LangChain tools (mcp_langchain.py) and answers each ``user`` line with the graph's last message. Its model is its own: ``LANGGRAPH_MODEL`` (default
``gpt-4o-mini``) on ``OPENAI_BASE_URL`` (default OpenAI's); pass those variables by name with ``env=``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent

sys.path.insert(0, str(Path(__file__).resolve().parent))  # replay.py and mcp_langchain.py, next to this file
from mcp_langchain import langchain_tools
from replay import mcp_session


async def session(start: dict) -> None:
    """One session, from its ``session_start`` to its ``session_end``: a graph on the session's tools, a thread of its own."""
    async with mcp_session(start["mcp"]["url"], start["mcp"]["token"]) as tools:
        model = ChatOpenAI(model=os.environ.get("LANGGRAPH_MODEL", "gpt-4o-mini"), max_retries=1)
        graph = create_react_agent(model, await langchain_tools(tools), checkpointer=InMemorySaver())
        thread = {"configurable": {"thread_id": start["conversation"]}}
        while (line := await asyncio.to_thread(sys.stdin.readline)) and (event := json.loads(line))["type"] == "user":
            state = await graph.ainvoke({"messages": [("user", event["text"])]}, thread)
            print(json.dumps({"type": "reply", "text": state["messages"][-1].text}), flush=True)


async def main() -> None:
    while line := await asyncio.to_thread(sys.stdin.readline):  # stdin closed: the process's work is done
        if (event := json.loads(line))["type"] == "session_start":
            await session(event)


if __name__ == "__main__":
    asyncio.run(main())
