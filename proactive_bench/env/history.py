"""``search_history``: the agent's search over the user's dialogue history (OdysseyBench's retrieval tool).

The index is the run's :class:`~proactive_bench.env.toolbox.HistorySearch`
(``ToolEnv.history``), built by the odyssey suite for a ``rag:`` memory setting;
without one the tool reports that there is no history to search. An index
that embeds the query answers asynchronously (its model call is awaited);
when it fails, the tool call fails with its one-line error.
"""

from __future__ import annotations

from inspect import isawaitable

from pydantic import BaseModel, Field

from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

MAX_K = 20


class SearchHistoryArgs(BaseModel):
    query: str = Field(min_length=1, description="What to look for in the earlier conversations.")
    k: int = Field(default=5, ge=1, le=MAX_K, description="How many passages to return.")


@register_tool("search_history", group="history")
async def search_history(env: ToolEnv, args: SearchHistoryArgs) -> str:
    """Search your earlier conversations with the user; returns the best-matching passages with their dates."""
    if env.history is None:
        raise ToolError("there is no conversation history to search in this session")
    found = env.history.search(args.query, args.k)
    hits = await found if isawaitable(found) else found
    if not hits:
        return "no passage matches"
    return "\n\n".join(f"[{source}]\n{text}" for source, text in hits)
