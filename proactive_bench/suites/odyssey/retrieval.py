"""Retrieval over memory documents: BM25 (the offline default) and embedding similarity.

Both rank every document for a query and return the top ``k`` in rank order
(ties in history order); ``search`` gives (source, text) pairs for the
``search_history`` tool (:class:`proactive_bench.env.HistorySearch`).
BM25 (``rank-bm25``'s Okapi BM25) scores lower-cased word tokens without
English stop words, and a document sharing no word with the query is not
returned. Embedding retrieval ranks by cosine similarity of the vectors an
:class:`~proactive_bench.suites.odyssey.retrieval_embedders.Embedder` gives.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rank_bm25 import BM25Okapi

from proactive_bench.suites.odyssey.memory_docs import MemoryDoc
from proactive_bench.suites.odyssey.retrieval_embedders import Embedder
from proactive_bench.suites.text_words import words


class _Ranking:
    """Top-k over a subclass's scores."""

    docs: list[MemoryDoc]
    name: str

    def scores(self, query: str) -> Sequence[float]:
        raise NotImplementedError

    def retrieve(self, query: str, k: int) -> list[MemoryDoc]:
        """The ``k`` best documents for ``query``, best first."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        scored = [(score, n) for n, score in enumerate(self.scores(query)) if self.matches(score)]
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        return [self.docs[n] for _, n in scored[:k]]

    def matches(self, score: float) -> bool:
        return True

    def search(self, query: str, k: int) -> list[tuple[str, str]]:
        """:meth:`retrieve` as (source, text) pairs, for the ``search_history`` tool."""
        return [(doc.source, doc.text) for doc in self.retrieve(query, k)]


class BM25Retriever(_Ranking):
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

    def matches(self, score: float) -> bool:
        return score > 0


class EmbeddingRetriever(_Ranking):
    """Cosine similarity between the query's vector and each document's."""

    def __init__(self, docs: Sequence[MemoryDoc], embedder: Embedder) -> None:
        self.docs = list(docs)
        self.embedder = embedder
        self.name = embedder.name
        self._matrix = _normalised(np.array(embedder.embed([doc.text for doc in self.docs]), dtype=float)) if self.docs else None

    def scores(self, query: str) -> Sequence[float]:
        if self._matrix is None:
            return []
        vector = _normalised(np.array(self.embedder.embed([query]), dtype=float))[0]
        if vector.shape[0] != self._matrix.shape[1]:
            raise ValueError(f"{self.name}: the query's vector has {vector.shape[0]} dimensions, the documents' {self._matrix.shape[1]}")
        return [float(s) for s in self._matrix @ vector]


def _normalised(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)
