"""What of the user's history an odyssey session gets: the memory context of the run's setting, in its opening message.

The context goes into the session's opening message (the trigger), so every
agent sees it the same way and the react agent reads the whole history under
``long-context`` (never a condensed digest). Under ``rag:*`` the opening
message holds the top-k retrieved documents and ``search_history`` searches
the same index (``ToolEnv.history``). The context's token count is recorded
with the run (``RunSpec.memory_tokens``, from ``LoadedEpisode.memory_tokens``).
Summaries (``rag:summary-*``) are made by the run's summary model once per
task and served from the results database's call cache afterwards; with an
embeddings model, the documents' vectors are kept there the same way, and the
agent's ``search_history`` queries are the run's own recorded calls (see
:class:`~proactive_bench.suites.odyssey.retrieval_embedders.OpenAIEmbedder`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from proactive_bench.env import HistorySearch
from proactive_bench.suites.odyssey.memory import MemoryContext, memory_context, whole_context
from proactive_bench.suites.odyssey.settings import MemorySetting, MemorySettingError
from proactive_bench.suites.odyssey.task import OdysseyTask

HISTORY_HEADING = "Our earlier conversations (oldest first):"
RETRIEVED_HEADING = "Passages retrieved from our earlier conversations (the search_history tool finds more):"
TASK_HEADING = "Task:"
T = TypeVar("T")


@dataclass(frozen=True)
class HistoryModels:
    """The models preparing a retrieval memory: who summarises (``rag:summary-*``), who embeds (else BM25 ranks),
    their endpoint, and the results database keeping what they made."""

    summary_model: str | None = None
    embedding_model: str | None = None
    database: str | None = None
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


def task_context(task: OdysseyTask, setting: MemorySetting, models: HistoryModels = HistoryModels()) -> OpeningContext:
    """The opening context of ``task`` under ``setting``; ValueError (one line) when it cannot be made."""
    if setting.granularity is not None and setting.granularity.summarized and not (models.summary_model and models.database):
        raise MemorySettingError(f"rag:{setting.granularity} needs a summary model (--summary-model) and the results database")
    if setting.kind != "rag" and models.summary_model is None:  # as _memory_context makes it, without an event loop
        made = whole_context(task.days(), setting)
    else:
        made = _run(_memory_context(task, setting, models))
    if setting.kind == "rag":
        return OpeningContext(made.text, made.tokens, made.index, RETRIEVED_HEADING)
    return OpeningContext(made.text, made.tokens)


async def _memory_context(task: OdysseyTask, setting: MemorySetting, models: HistoryModels) -> MemoryContext:
    """The context; with a summary or embedding model, made by ``context_models`` (which loads the model clients)."""
    days = task.days()
    if models.summary_model is None and (models.embedding_model is None or setting.kind != "rag"):
        return await memory_context(days, setting, task.intent, task_id=task.id)
    from proactive_bench.suites.odyssey.context_models import models_context  # DEFERRED: openai and LangChain, for model-made contexts only

    return await models_context(task, days, setting, models)


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end from synchronous code, also when an event loop is running in this thread (audits)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
