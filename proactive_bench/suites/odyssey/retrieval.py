"""Retrieval over memory documents: BM25 (the offline default) and embedding similarity.

Both rank every document for a query and return the top ``k`` in rank order
(ties in history order); ``search`` gives (source, text) pairs for the
``search_history`` tool (:class:`proactive_bench.env.HistorySearch`).
BM25 (``rank-bm25``'s Okapi BM25) scores lower-cased word tokens without
English stop words, and a document sharing no word with the query is not
returned. Embedding retrieval ranks by cosine similarity of the vectors an
:class:`~proactive_bench.suites.odyssey.retrieval_embedders.Embedder` gives;
it is asynchronous (``build``, ``retrieve`` and ``search`` are awaited, the
query's vector being a model call), and ``with_models`` puts a run's queries on
that run's model-call path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from rank_bm25 import BM25Okapi

from proactive_bench.llm import UsesToolModels
from proactive_bench.suites.odyssey.memory_docs import MemoryDoc
from proactive_bench.suites.text_words import words

if TYPE_CHECKING:
    from proactive_bench.llm import ToolModels
    from proactive_bench.suites.odyssey.retrieval_embedders import Embedder


def top_k(docs: Sequence[MemoryDoc], scores: Sequence[float], k: int, minimum: float | None = None) -> list[MemoryDoc]:
    """The ``k`` best-scored documents, best first (ties in history order); only scores above ``minimum`` when given."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    scored = [(score, n) for n, score in enumerate(scores) if minimum is None or score > minimum]
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [docs[n] for _, n in scored[:k]]


class BM25Retriever:
    """Okapi BM25 over the documents' words; needs no model and no network."""

    name = "bm25"

    def __init__(self, docs: Sequence[MemoryDoc]) -> None:
        self.docs = list(docs)
        self._index = BM25Okapi([words(doc.text) or [""] for doc in self.docs]) if self.docs else None

    def scores(self, query: str) -> Sequence[float]:
        terms = words(query)
        if self._index is None or not terms:
            return [0.0] * len(self.docs)
        return [float(s) for s in self._index.get_scores(terms)]

    def retrieve(self, query: str, k: int) -> list[MemoryDoc]:
        """The ``k`` best documents for ``query``, best first; a document sharing no word with it is not returned."""
        return top_k(self.docs, self.scores(query), k, minimum=0.0)

    def search(self, query: str, k: int) -> list[tuple[str, str]]:
        """:meth:`retrieve` as (source, text) pairs, for the ``search_history`` tool."""
        return [(doc.source, doc.text) for doc in self.retrieve(query, k)]


class EmbeddingRetriever:
    """Cosine similarity between the query's vector and each document's (build it with :meth:`build`)."""

    def __init__(self, docs: Sequence[MemoryDoc], embedder: Embedder, matrix: np.ndarray | None) -> None:
        self.docs = list(docs)
        self.embedder = embedder
        self.name = embedder.name
        self._matrix = matrix

    @classmethod
    async def build(cls, docs: Sequence[MemoryDoc], embedder: Embedder) -> EmbeddingRetriever:
        """The index of ``docs``: their vectors asked of ``embedder`` (EmbeddingError when they cannot be had)."""
        matrix = _normalised(np.array(await embedder.embed([doc.text for doc in docs]), dtype=float)) if docs else None
        return cls(docs, embedder, matrix)

    def with_models(self, models: ToolModels) -> EmbeddingRetriever:
        """The same index, its queries embedded on one run's model-call path (see :class:`~proactive_bench.llm.ToolModels`)."""
        embedder = self.embedder.with_models(models) if isinstance(self.embedder, UsesToolModels) else self.embedder
        return EmbeddingRetriever(self.docs, embedder, self._matrix)

    async def scores(self, query: str) -> Sequence[float]:
        if self._matrix is None:
            return []
        vector = _normalised(np.array(await self.embedder.embed([query]), dtype=float))[0]
        if vector.shape[0] != self._matrix.shape[1]:
            raise ValueError(f"{self.name}: the query's vector has {vector.shape[0]} dimensions, the documents' {self._matrix.shape[1]}")
        return [float(s) for s in self._matrix @ vector]

    async def retrieve(self, query: str, k: int) -> list[MemoryDoc]:
        """The ``k`` documents most similar to ``query``, best first."""
        return top_k(self.docs, await self.scores(query), k)

    async def search(self, query: str, k: int) -> list[tuple[str, str]]:
        """:meth:`retrieve` as (source, text) pairs, for the ``search_history`` tool (awaited by it)."""
        return [(doc.source, doc.text) for doc in await self.retrieve(query, k)]


def _normalised(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)
