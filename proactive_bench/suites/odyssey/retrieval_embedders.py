"""Embedders for history retrieval: the protocol, and an OpenAI-compatible ``/v1/embeddings`` client.

:class:`OpenAIEmbedder` sends its requests through langchain-openai's
``OpenAIEmbeddings`` (raw text, no client-side tokenising, which would need a
tiktoken download): the SDK retries 408/409/429/5xx and dropped connections a
bounded number of times, with backoff and ``Retry-After``. Each failed
attempt and each finished call is recorded (role ``agent``, purpose
``memory_embedding``). Vectors are cached in the results database's recorded
answers (``Store.answers``), one per text, under
``odyssey-embeddings/<server hash>/<model>``, so a text is embedded once per
server and model. The API key is taken from the argument or
``OPENAI_API_KEY`` and never stored or logged.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from typing import Any, Protocol

import httpx2
import openai
from langchain_openai import OpenAIEmbeddings

from proactive_bench.llm import LLMCallRecord, Recorder, one_line
from proactive_bench.store import RecordedAnswers

CACHE_PREFIX = "odyssey-embeddings"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
PURPOSE = "memory_embedding"
ERROR_LIMIT = 300
DEFAULT_RETRIES = 3
DEFAULT_TIMEOUT_S = 60.0


class EmbeddingError(ValueError):
    """Vectors could not be obtained (bad settings, or the server failed after its retries).

    A ValueError, so that a ``search_history`` call whose query cannot be embedded
    comes back to the agent as a failed tool call (the ToolBox's contract) instead of ending the session.
    """


class Embedder(Protocol):
    """Turns texts into vectors; ``name`` identifies the model in results."""

    name: str

    def embed(self, texts: list[str]) -> list[list[float]]: ...


class OpenAIEmbedder:
    """``model`` (``openai:NAME`` or ``NAME``) on an OpenAI-compatible server's ``/embeddings``."""

    def __init__(
        self, model: str, base_url: str | None = None, api_key: str | None = None, *, answers: RecordedAnswers | None = None,
        recorder: Recorder | None = None, max_retries: int = DEFAULT_RETRIES, timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        provider, _, name = model.rpartition(":") if ":" in model else ("openai", "", model)
        if provider != "openai" or not name:
            raise EmbeddingError(f"embedding model {model!r}: only openai:NAME (any OpenAI-compatible /v1/embeddings server) is supported")
        key = api_key or os.environ.get("OPENAI_API_KEY") or ("not-needed" if base_url else None)
        if key is None:
            raise EmbeddingError(f"embedding model {model!r} needs OPENAI_API_KEY, or a base URL for a local server")
        self.name = f"openai:{name}"
        self.recorder = recorder
        self.answers = answers
        server = hashlib.sha256((base_url or DEFAULT_BASE_URL).encode()).hexdigest()[:12]
        self.namespace = f"{CACHE_PREFIX}/{server}/{name}"
        self._sent: dict[int, float] = {}
        hooks = {"request": [self._on_request], "response": [self._on_response]}
        self._client = OpenAIEmbeddings(
            model=name, base_url=base_url, api_key=key, max_retries=max_retries, timeout=timeout,  # type: ignore[arg-type]
            check_embedding_ctx_length=False, http_client=httpx2.Client(event_hooks=hooks, timeout=timeout),
        )

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, from the cache where recorded, the rest in one request."""
        keys = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
        found = self._cached(set(keys))
        missing = list(dict.fromkeys(text for text, key in zip(texts, keys) if key not in found))
        if missing:
            for text, vector in zip(missing, self._request(missing)):
                key = hashlib.sha256(text.encode()).hexdigest()
                found[key] = vector
                if self.answers is not None:
                    self.answers.add(self.namespace, key, 0, json.dumps(vector))
            if self.answers is not None:
                self.answers.flush()
        return [found[key] for key in keys]

    def _cached(self, keys: set[str]) -> dict[str, list[float]]:
        if self.answers is None:
            return {}
        recorded = {key for key, _ in self.answers.keys(self.namespace)} & keys
        return {key: json.loads(self.answers.generations(self.namespace, key, 0) or "[]") for key in recorded}

    def _request(self, texts: list[str]) -> list[list[float]]:
        started = time.perf_counter()
        try:
            vectors = self._client.embed_documents(texts)
        except (openai.APIError, httpx2.HTTPError, ValueError, KeyError, TypeError) as exc:
            error = one_line(f"{type(exc).__name__}: {exc}", ERROR_LIMIT)
            self._record(started, False, error)
            raise EmbeddingError(f"embeddings from {self.name} failed: {error}") from None
        if len(vectors) != len(texts) or not all(vectors):
            error = f"asked for {len(texts)} vector(s), got {len(vectors)} (or empty ones)"
            self._record(started, False, error)
            raise EmbeddingError(f"embeddings from {self.name} failed: {error}")
        self._record(started, True, None)
        return [list(map(float, vector)) for vector in vectors]

    def _on_request(self, request: Any) -> None:
        self._sent[id(request)] = time.perf_counter()

    def _on_response(self, response: Any) -> None:
        """Record an attempt the server refused (the SDK may retry it)."""
        started = self._sent.pop(id(response.request), time.perf_counter())
        if response.status_code >= 400:
            self._record(started, False, f"HTTP {response.status_code} (attempt)")

    def _record(self, started: float, ok: bool, error: str | None) -> None:
        if self.recorder is not None:
            self.recorder(LLMCallRecord(
                role="agent", purpose=PURPOSE, model=self.name, method="embeddings", ok=ok,
                latency_ms=(time.perf_counter() - started) * 1000, error=error,
            ))
