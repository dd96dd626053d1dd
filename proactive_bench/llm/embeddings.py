"""Embeddings from an OpenAI-compatible ``/embeddings`` endpoint, over the run's model-call path.

:class:`EmbeddingClient` posts ``{"model", "input"}`` through a
:class:`~proactive_bench.llm.transport.ChatTransport` (bounded retries with
backoff on 429, 5xx, timeouts, dropped connections and bodies that are not
JSON), waits for the endpoint's rate limiter, keeps every answer in the
run's :class:`~proactive_bench.llm.cache.CallCache` (so ``pbench replay``
serves it from the record, and a miss there is an error, never a server
call) and records each attempt in the call ledger with its role and
purpose. An answer that cannot be used (a failed request, a wrong number of
vectors, empty or non-numeric ones) raises :class:`EmbeddingsError`: a
retrieval never goes on with missing vectors.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Any

from langchain_core.rate_limiters import BaseRateLimiter

from proactive_bench.llm.cache import CallCache
from proactive_bench.llm.context import one_line
from proactive_bench.llm.ledger import ERROR_TEXT_LIMIT, LLMCallRecord, Recorder, ToolRole, record_retries
from proactive_bench.llm.model_specs import ModelSpecError, model_name
from proactive_bench.llm.models import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S
from proactive_bench.llm.retry_log import listen, unlisten
from proactive_bench.llm.transport import DEFAULT_BASE_URL, EMBEDDINGS_PATH, ChatTransport, MalformedBodyError

METHOD = "embeddings"


class EmbeddingsError(RuntimeError):
    """Vectors could not be obtained: the one-line message names the model, the endpoint and the reason."""


@dataclass
class EmbeddingClient:
    """``model`` (``openai:NAME`` or ``NAME``) on an OpenAI-compatible server, called as ``role`` for ``purpose``."""

    model: str
    transport: ChatTransport
    base_url: str | None = None
    role: ToolRole = "embedder"
    purpose: str = "embedding"
    recorder: Recorder | None = None
    cache: CallCache | None = None
    rate_limiter: BaseRateLimiter | None = None
    timeout: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES
    api_key: str | None = None

    def __post_init__(self) -> None:
        try:
            provider, self._name = model_name(self.model)
        except ModelSpecError as exc:
            raise EmbeddingsError(f"embedding model {self.model!r}: {exc}") from None
        if provider != "openai":
            raise EmbeddingsError(
                f"embedding model {self.model!r}: only openai:NAME (any OpenAI-compatible /v1/embeddings server) is supported"
            )
        key = self.api_key or os.environ.get("OPENAI_API_KEY") or ("not-needed" if self.base_url else None)
        if key is None:
            raise EmbeddingsError(f"embedding model {self.model!r} needs OPENAI_API_KEY, or a base URL for a local server")
        self._headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
        self.url = f"{(self.base_url or DEFAULT_BASE_URL).rstrip('/')}{EMBEDDINGS_PATH}"
        self._settings = json.dumps({"kind": METHOD, "model": self._name, "url": self.url}, sort_keys=True)  # the cache's "model settings"

    @property
    def name(self) -> str:
        return f"openai:{self._name}"

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order: from the record when it has them, else in one request."""
        if not texts:
            return []
        started = time.perf_counter()
        prompt = json.dumps(texts)
        served = self.cache.lookup(prompt, self._settings) if self.cache is not None else None  # replay: a miss raises
        if served:
            vectors = _vectors(json.loads(served[0].text), len(texts))
            self._record(started, None, cached=True)
            return vectors
        if self.rate_limiter is not None:
            await self.rate_limiter.aacquire()
        import openai  # here: loading the SDK (and LangChain's generations, for the record) is for a client that calls
        from langchain_core.outputs import Generation

        listener = listen(record_retries(self.recorder, role=self.role, purpose=self.purpose, model=self.name, method=METHOD))
        try:
            answer = await self.transport.complete(
                self.url, self._headers, {"model": self._name, "input": texts}, self.timeout, self.max_retries
            )
            vectors = _vectors(answer.get("data"), len(texts))
        except (openai.APIError, MalformedBodyError, ValueError) as exc:  # APIError: HTTP errors, timeouts, lost connections
            error = one_line(f"{type(exc).__name__}: {exc}", ERROR_TEXT_LIMIT)
            self._record(started, error)
            raise EmbeddingsError(f"embeddings from {self.name} at {self.url} failed: {error}") from None
        finally:
            unlisten(listener)
        if self.cache is not None:
            self.cache.update(prompt, self._settings, [Generation(text=json.dumps(vectors))])
        usage = answer.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        self._record(started, None, prompt_tokens=usage.get("prompt_tokens"))
        return vectors

    def _record(self, started: float, error: str | None, cached: bool = False, prompt_tokens: int | None = None) -> None:
        if self.recorder is not None:
            self.recorder(
                LLMCallRecord(
                    role=self.role,
                    purpose=self.purpose,
                    model=self.name,
                    method=METHOD,
                    ok=error is None,
                    latency_ms=(time.perf_counter() - started) * 1000,
                    error=error,
                    cached=cached,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=0 if prompt_tokens is not None else None,
                )
            )


def _vectors(data: Any, count: int) -> list[list[float]]:
    """The answer's vectors in input order; ValueError when they are not ``count`` non-empty lists of numbers."""
    if not isinstance(data, list) or len(data) != count:
        raise ValueError(f"asked for {count} vector(s), got {len(data) if isinstance(data, list) else 'no list of'} vector(s)")
    if all(isinstance(item, dict) for item in data):  # an /embeddings answer: {"index", "embedding"} items
        data = [item.get("embedding") for item in sorted(data, key=lambda item: item.get("index", 0))]
    vectors = []
    for vector in data:
        if not isinstance(vector, list) or not vector or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector):
            raise ValueError("an empty or non-numeric vector in the answer")
        vectors.append([float(x) for x in vector])
    return vectors
