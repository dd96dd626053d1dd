"""Embedders for history retrieval: the protocol, and an OpenAI-compatible ``/v1/embeddings`` embedder.

:class:`OpenAIEmbedder` asks through an :class:`~proactive_bench.llm.EmbeddingClient`
(pbench's transport: bounded retries with backoff and ``Retry-After`` on
429, 5xx, timeouts and dropped connections), asynchronously. Two uses:

- the history's documents, embedded when the task loads: each vector is kept
  in the results database's recorded answers (``Store.answers``), one per text,
  under ``odyssey-embeddings/<server hash>/<model>``, so a text is embedded
  once per server and model (as summaries are);
- the agent's ``search_history`` queries, inside a run: :meth:`OpenAIEmbedder.with_models`
  puts them on the run's model-call path (rate limit, call cache, so that
  ``pbench replay`` serves them from the record, and the call ledger under
  role ``embedder``).

Vectors that cannot be obtained raise :class:`EmbeddingError` (one line);
a retrieval never goes on with an empty result instead.
"""

from __future__ import annotations

import hashlib
import json
from typing import Protocol

from proactive_bench.llm import EmbeddingClient, EmbeddingsError, ToolModels
from proactive_bench.store import RecordedAnswers

CACHE_PREFIX = "odyssey-embeddings"
PURPOSE = "memory_embedding"
QUERY_PURPOSE = "history_search"


class EmbeddingError(ValueError):
    """Vectors could not be obtained (bad settings, or the server failed after its retries).

    A ValueError, so that a ``search_history`` call whose query cannot be embedded
    comes back to the agent as a failed tool call (the ToolBox's contract) instead of ending the session.
    """


class Embedder(Protocol):
    """Turns texts into vectors; ``name`` identifies the model in results."""

    name: str

    async def embed(self, texts: list[str]) -> list[list[float]]: ...


class OpenAIEmbedder:
    """Vectors from ``client``; with ``answers``, each text's vector is kept there and asked for once per server and model."""

    def __init__(self, client: EmbeddingClient, answers: RecordedAnswers | None = None) -> None:
        self.client = client
        self.name = client.name
        self.answers = answers
        server = hashlib.sha256(client.url.encode()).hexdigest()[:12]
        self.namespace = f"{CACHE_PREFIX}/{server}/{client.name.removeprefix('openai:')}"

    def with_models(self, models: ToolModels) -> OpenAIEmbedder:
        """The same model on one run's model-call path, for the agent's queries (no vector store: the run's call cache keeps them)."""
        return OpenAIEmbedder(models.embeddings(self.client.model, self.client.base_url, "embedder", QUERY_PURPOSE))

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, from the vector store where kept, the rest in one request."""
        keys = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
        found = self._kept(set(keys))
        missing = list(dict.fromkeys(text for text, key in zip(texts, keys, strict=True) if key not in found))
        if missing:
            try:
                vectors = await self.client.embed(missing)
            except EmbeddingsError as exc:
                raise EmbeddingError(str(exc)) from None
            for text, vector in zip(missing, vectors, strict=True):
                key = hashlib.sha256(text.encode()).hexdigest()
                found[key] = vector
                if self.answers is not None:
                    self.answers.add(self.namespace, key, 0, json.dumps(vector))
            if self.answers is not None:
                self.answers.flush()
        return [found[key] for key in keys]

    def _kept(self, keys: set[str]) -> dict[str, list[float]]:
        if self.answers is None:
            return {}
        recorded = {key for key, _ in self.answers.keys(self.namespace)} & keys
        return {key: json.loads(self.answers.generations(self.namespace, key, 0) or "[]") for key in recorded}
