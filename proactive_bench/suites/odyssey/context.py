"""What of the user's history an odyssey session gets: the memory context of the run's setting, in its opening message.

The context goes into the session's opening message (the trigger), so every
agent sees it the same way and the react agent reads the whole history under
``long-context`` (never a condensed digest). Under ``rag:*`` the opening
message holds the top-k retrieved documents and ``search_history`` searches
the same index (``ToolEnv.history``). The context's token count is recorded
with the run (``RunSpec.memory_tokens``, from ``LoadedEpisode.memory_tokens``).
Summaries (``rag:summary-*``) are made by the run's summary model once per
task and served from the results database's call cache afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from proactive_bench.env import HistorySearch
from proactive_bench.llm import ChatSettings, ChatTransport
from proactive_bench.store import Store
from proactive_bench.suites.odyssey.memory import MemoryContext, MemorySetting, MemorySettingError, memory_context, parse_memory_setting
from proactive_bench.suites.odyssey.memory_docs import history_days
from proactive_bench.suites.odyssey.memory_summaries import Summarizer, SummaryError
from proactive_bench.suites.odyssey.task import OdysseyTask

DEFAULT_MEMORY = "long-context"
HISTORY_HEADING = "Our earlier conversations (oldest first):"
RETRIEVED_HEADING = "Passages retrieved from our earlier conversations (the search_history tool finds more):"
TASK_HEADING = "Task:"
T = TypeVar("T")


@dataclass(frozen=True)
class SummarySource:
    """Who makes summaries for ``rag:summary-*``: a chat model, its endpoint, and the results database caching them."""

    model: str
    database: str
    """The results database: a SQLite path or a database URL (see ``proactive_bench.store``)."""
    base_url: str | None = None


@dataclass(frozen=True)
class OpeningContext:
    """The history text given to the agent, its token count, and the index ``search_history`` uses (retrieval only)."""

    text: str
    tokens: int
    search: HistorySearch | None = None
    heading: str = HISTORY_HEADING

    def opening(self, intent: str) -> str:
        """The session's opening message: the context (if any), then the task intent."""
        if not self.text:
            return intent
        return f"{self.heading}\n\n{self.text}\n\n{TASK_HEADING} {intent}"


def parse_setting(memory: str | None, top_k: int | None) -> MemorySetting:
    """A run's memory setting (None: ``long-context``); MemorySettingError with a one-line reason."""
    return parse_memory_setting(memory or DEFAULT_MEMORY, top_k)


def task_context(task: OdysseyTask, setting: MemorySetting, summaries: SummarySource | None = None) -> OpeningContext:
    """The opening context of ``task`` under ``setting``; ValueError (one line) when it cannot be made."""
    if setting.granularity is not None and setting.granularity.summarized and summaries is None:
        raise MemorySettingError(f"rag:{setting.granularity} needs a summary model (--summary-model)")
    try:
        made = _run(_memory_context(task, setting, summaries))
    except SummaryError as exc:
        raise ValueError(str(exc)) from None
    if setting.kind == "rag":
        return OpeningContext(made.text, made.tokens, made.index, RETRIEVED_HEADING)
    return OpeningContext(made.text, made.tokens)


async def _memory_context(task: OdysseyTask, setting: MemorySetting, summaries: SummarySource | None) -> MemoryContext:
    """The context, with the summary model's connections opened and closed on this event loop."""
    days = history_days(task.history)
    if summaries is None:
        return await memory_context(days, setting, task.intent, task_id=task.id)
    async with ChatTransport() as transport:
        chat = ChatSettings(base_url=summaries.base_url, temperature=0, transport=transport)
        summarizer = Summarizer(summaries.model, Store(summaries.database).answers, chat)
        return await memory_context(days, setting, task.intent, task_id=task.id, summarizer=summarizer)


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end from synchronous code, also when an event loop is running in this thread (audits)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()

