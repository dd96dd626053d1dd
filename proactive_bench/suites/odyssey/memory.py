"""Memory settings of odyssey runs: what of the user's history the agent is given, and its size in tokens.

- ``long-context``: the whole history;
- ``rag:<granularity>`` with top-k: the history is cut into documents at that
  granularity (:class:`~proactive_bench.suites.odyssey.memory_docs.Granularity`),
  the ``k`` best for the task intent are given (in history order, each with
  its source), and the same index backs the ``search_history`` tool; BM25
  unless an embedder is given;
- ``none``: no history (the ablation showing the history is needed).

:func:`memory_context` builds it; the token figure uses
:func:`~proactive_bench.suites.odyssey.memory_tokens.default_token_counter`
unless a counter is given, and names the counter it used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from proactive_bench.suites.odyssey.memory_docs import Granularity, HistoryDay, MemoryDoc, raw_documents, render_history
from proactive_bench.suites.odyssey.memory_tokens import TokenCounter, default_token_counter
from proactive_bench.suites.odyssey.retrieval import BM25Retriever, EmbeddingRetriever
from proactive_bench.suites.odyssey.settings import MemorySetting, MemorySettingError

if TYPE_CHECKING:
    from proactive_bench.suites.odyssey.memory_summaries import Summarizer
    from proactive_bench.suites.odyssey.retrieval_embedders import Embedder

Retriever = BM25Retriever | EmbeddingRetriever


@dataclass(frozen=True)
class MemoryContext:
    """What the agent is given of its history under one setting."""

    setting: MemorySetting
    docs: tuple[MemoryDoc, ...]
    """The documents given (all days for long-context, the top-k for rag, none for none)."""
    text: str
    """Their text as it goes into the agent's first message ("" for none)."""
    tokens: int
    token_counter: str
    retriever: str | None = None
    """``bm25`` or the embedding model's name (rag only)."""
    summary_prompt_hash: str | None = None
    index: Retriever | None = None
    """The index ``search_history`` searches (rag only): ``index.search(query, k)``."""


async def build_documents(
    task_id: str,
    days: Sequence[HistoryDay],
    granularity: Granularity,
    summarizer: Summarizer | None = None,
) -> list[MemoryDoc]:
    """The history's documents at ``granularity``; a summary granularity needs a summarizer (else a one-line error)."""
    if not granularity.summarized:
        return raw_documents(days, granularity)
    if summarizer is None:
        raise MemorySettingError(f"--memory rag:{granularity}: summaries need a summary model, and none was given")
    return await summarizer.documents(task_id, days, granularity)


def whole_context(days: Sequence[HistoryDay], setting: MemorySetting, counter: TokenCounter | None = None) -> MemoryContext:
    """The context of a setting that retrieves nothing (``long-context``: the whole history; ``none``), made at once:
    no model, no index, nothing to wait for."""
    counter = counter or default_token_counter()
    if setting.kind == "none":
        return MemoryContext(setting, (), "", 0, counter.name)
    if setting.kind != "long-context":
        raise ValueError(f"{setting.kind} retrieves: its context is made by memory_context")
    text = render_history(days)
    return MemoryContext(setting, tuple(raw_documents(days, Granularity.RAW_SESSION)), text, counter.count(text), counter.name)


async def memory_context(
    days: Sequence[HistoryDay],
    setting: MemorySetting,
    query: str,
    *,
    task_id: str,
    summarizer: Summarizer | None = None,
    embedder: Embedder | None = None,
    counter: TokenCounter | None = None,
) -> MemoryContext:
    """The context for one task: ``query`` is the task intent (what rag retrieves by)."""
    counter = counter or default_token_counter()
    if setting.kind != "rag":
        return whole_context(days, setting, counter)
    assert setting.granularity is not None and setting.top_k is not None  # parse_memory_setting guarantees both
    docs = await build_documents(task_id, days, setting.granularity, summarizer)
    index: Retriever
    if embedder is not None:
        index = await EmbeddingRetriever.build(docs, embedder)
        hits = await index.retrieve(query, setting.top_k)
    else:
        index = BM25Retriever(docs)
        hits = index.retrieve(query, setting.top_k)
    order = {doc.id: n for n, doc in enumerate(docs)}
    given = tuple(sorted(hits, key=lambda doc: order[doc.id]))
    text = "\n\n".join(f"[{doc.source}]\n{doc.text}" for doc in given)
    prompt_hash = summarizer.prompt_hash(setting.granularity) if setting.granularity.summarized and summarizer else None
    return MemoryContext(setting, given, text, counter.count(text), counter.name, index.name, prompt_hash, index)
