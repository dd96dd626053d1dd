"""A LangGraph graph that replays a recorded run: a replay baseline (see replay.py) in the graph-factory form.

    pbench episode --persona pharmacist --model scripted:reference --db ref.db
    pbench export latest --db ref.db --out reference.jsonl
    PBENCH_RECORDING=reference.jsonl pbench episode --persona pharmacist --agent examples/agents/langgraph_reference.py:agent

The graph is LangGraph's prebuilt ReAct agent over the session's tools; only its chat model is a stand-in that
answers from the recording: one recorded tool call per model call, then the turn's recorded reply. It finds its
session by the session's opening message, and its turn by the messages so far.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import create_react_agent

sys.path.insert(0, str(Path(__file__).resolve().parent))  # replay.py, next to this file
from replay import NOTHING_LEFT, Turn, recorded_turns


class ReplayModel(BaseChatModel):
    """Answers from the recorded turns, keyed by each session's opening message."""

    sessions: dict[str, list[Turn]]

    @property
    def _llm_type(self) -> str:
        return "replay"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ReplayModel:
        return self  # the recorded calls name the tools already

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
        opening = str(messages[humans[0]].content)
        turns = next((t for key, t in self.sessions.items() if opening.endswith(key)), [])
        calls, reply = turns[len(humans) - 1] if len(humans) <= len(turns) else NOTHING_LEFT
        made = sum(len(m.tool_calls) for m in messages[humans[-1] :] if isinstance(m, AIMessage))
        if made < len(calls):
            name, args = calls[made]
            answer = AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call_{len(messages)}", "type": "tool_call"}])
        else:
            answer = AIMessage(reply)
        return ChatResult(generations=[ChatGeneration(message=answer)])


def openings(path: str) -> list[str]:
    """Each recorded session's opening message (the trigger), in the recording's order."""
    return [json.loads(line)["messages"][0]["content"] for line in open(path)]


def agent(tools: list[BaseTool]) -> CompiledStateGraph:
    path = os.environ["PBENCH_RECORDING"]
    model = ReplayModel(sessions=dict(zip(openings(path), recorded_turns(path).values(), strict=True)))
    graph = create_react_agent(model, tools, checkpointer=InMemorySaver())
    return graph.with_config(recursion_limit=1000)  # a recorded turn may make ~100 calls, a model call each
