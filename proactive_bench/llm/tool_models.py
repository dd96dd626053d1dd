"""The run's model-call path, handed to the tools that call a model themselves (simulated colleagues, embedders).

A tool's model calls go the way the agent's, the user's and the judge's do:
over the run's :class:`~proactive_bench.llm.transport.ChatTransport`
(bounded retries), through the endpoint's rate limiter, into the run's
:class:`~proactive_bench.llm.cache.CallCache` (``pbench replay`` serves
them from the record) and into the call ledger (``llmcall`` rows, the
budget) under the tool's own role (``npc``, ``embedder``).

An object built when the episode loads (before any run has a transport)
and calling a model from a tool implements :class:`UsesToolModels`: the
runner gives every run its own copy, bound to that run's path
(``with_models``), so runs sharing a loaded episode in a sweep never share
a ledger or a cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from proactive_bench.exports import moved_names
from proactive_bench.llm.cache import CallCache
from proactive_bench.llm.embeddings import EmbeddingClient
from proactive_bench.llm.ledger import Recorder, ToolRole
from proactive_bench.llm.models import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S, ChatSettings, make_chat_model
from proactive_bench.llm.transport import ChatTransport

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.rate_limiters import BaseRateLimiter


@dataclass(frozen=True)
class ToolModels:
    """One run's transport, call cache, ledger and rate limiter (the limiter belongs to ``base_url``, the run's endpoint)."""

    transport: ChatTransport
    recorder: Recorder | None = None
    cache: CallCache | None = None
    rate_limiter: BaseRateLimiter | None = None
    base_url: str | None = None
    timeout: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES

    def _limiter(self, base_url: str | None) -> BaseRateLimiter | None:
        return self.rate_limiter if base_url == self.base_url else None

    def chat(self, model: str, base_url: str | None) -> BaseChatModel:
        """``model`` on ``base_url`` at temperature 0, its calls on the run's path (the caller records them with its role)."""
        return make_chat_model(
            model,
            ChatSettings(
                base_url=base_url,
                temperature=0,
                timeout=self.timeout,
                max_retries=self.max_retries,
                cache=self.cache,
                rate_limiter=self._limiter(base_url),
                transport=self.transport,
            ),
        )

    def embeddings(self, model: str, base_url: str | None, role: ToolRole = "embedder", purpose: str = "embedding") -> EmbeddingClient:
        """An embeddings client for ``model`` on ``base_url``, its calls on the run's path, recorded as ``role``."""
        return EmbeddingClient(
            model,
            self.transport,
            base_url,
            role,
            purpose,
            self.recorder,
            self.cache,
            self._limiter(base_url),
            self.timeout,
            self.max_retries,
        )


__getattr__ = moved_names(__name__, {"UsesToolModels": "proactive_bench.llm"})
