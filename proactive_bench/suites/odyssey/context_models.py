"""An odyssey memory context made with models: summaries (``rag:summary-*``) and embeddings, on one HTTP transport.

Its own module so that the model clients (openai, LangChain) load only for a run that names a summary or an
embedding model: loading and validating tasks under the default settings needs neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from proactive_bench.llm import ChatSettings, ChatTransport, EmbeddingClient, EmbeddingsError
from proactive_bench.store import Store
from proactive_bench.suites.odyssey.memory import MemoryContext, memory_context
from proactive_bench.suites.odyssey.memory_summaries import Summarizer, SummaryError
from proactive_bench.suites.odyssey.retrieval_embedders import PURPOSE as EMBEDDING_PURPOSE, OpenAIEmbedder

if TYPE_CHECKING:
    from proactive_bench.suites.odyssey.context import HistoryModels
    from proactive_bench.suites.odyssey.memory_docs import HistoryDay
    from proactive_bench.suites.odyssey.settings import MemorySetting
    from proactive_bench.suites.odyssey.task import OdysseyTask


async def models_context(task: OdysseyTask, days: list[HistoryDay], setting: MemorySetting, models: HistoryModels) -> MemoryContext:
    """The context, with the models' connections opened and closed on this event loop; ValueError (one line) when a
    summary or an embedding cannot be made."""
    embedding_model = models.embedding_model if setting.kind == "rag" else None
    answers = Store(models.database).answers if models.database else None
    try:
        async with ChatTransport() as transport:
            summarizer = embedder = None
            if models.summary_model and answers is not None:
                chat = ChatSettings(base_url=models.base_url, temperature=0, transport=transport)
                summarizer = Summarizer(models.summary_model, answers, chat)
            if embedding_model:
                embedder = OpenAIEmbedder(EmbeddingClient(embedding_model, transport, models.base_url, purpose=EMBEDDING_PURPOSE), answers)
            return await memory_context(days, setting, task.intent, task_id=task.id, summarizer=summarizer, embedder=embedder)
    except (SummaryError, EmbeddingsError) as exc:
        raise ValueError(str(exc)) from None
