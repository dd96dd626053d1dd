"""Build LangChain chat models from ``provider:name`` strings."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from langchain_core.caches import BaseCache
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.rate_limiters import BaseRateLimiter

if TYPE_CHECKING:
    from proactive_bench.llm.transport import ChatTransport

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_RETRIES = 3


class ModelSpecError(ValueError):
    """A model string that cannot be turned into a chat model."""


def known_providers() -> list[str]:
    """``openai``, and the providers LangChain's ``init_chat_model`` knows when the ``langchain`` package is installed."""
    try:
        from langchain.chat_models.base import _SUPPORTED_PROVIDERS  # type: ignore[import-not-found]
    except ImportError:
        return ["openai"]
    return ["openai", *sorted(set(_SUPPORTED_PROVIDERS) - {"openai"})]


def model_name(spec: str) -> tuple[str, str]:
    """``(provider, name)`` of ``provider:NAME``, ``openai/NAME`` or a bare name (openai)."""
    if ":" in spec:
        provider, _, name = spec.partition(":")
    elif spec.startswith("openai/"):
        provider, name = "openai", spec.removeprefix("openai/")
    else:
        provider, name = "openai", spec
    if not name:
        raise ModelSpecError(f"model {spec!r} has no name after the provider")
    return provider, name


def make_chat_model(
    spec: str,
    base_url: str | None = None,
    api_key: str | None = None,
    temperature: float | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_retries: int = DEFAULT_MAX_RETRIES,
    cache: BaseCache | None = None,
    rate_limiter: BaseRateLimiter | None = None,
    transport: ChatTransport | None = None,
    max_tokens: int | None = None,
) -> BaseChatModel:
    """``openai:NAME`` (any OpenAI-compatible server with ``base_url``) or another
    provider through LangChain's ``init_chat_model``. A bare name means openai.

    The key comes from ``api_key``, else ``OPENAI_API_KEY``; a local server
    without auth gets a placeholder so no real key is ever required. ``cache``
    records or replays answers (see :mod:`proactive_bench.llm.cache`);
    ``rate_limiter`` is shared by every model on one endpoint. With a
    ``transport``, openai models send their async calls over it (see
    :mod:`proactive_bench.llm.transport`) instead of the OpenAI SDK's client.
    ``max_tokens`` caps each answer (sent to other OpenAI-compatible servers
    also as the older ``max_tokens``, which most of them read instead of
    ``max_completion_tokens``).
    """
    provider, name = model_name(spec)
    kwargs: dict[str, object] = {"timeout": timeout, "max_retries": max_retries}
    if cache is not None:
        kwargs["cache"] = cache
    if rate_limiter is not None:
        kwargs["rate_limiter"] = rate_limiter
    if temperature is not None:
        kwargs["temperature"] = temperature
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    if provider == "openai":
        if max_tokens is not None and base_url:
            kwargs["extra_body"] = {"max_tokens": max_tokens}
        from langchain_openai import ChatOpenAI

        key = api_key or os.environ.get("OPENAI_API_KEY") or ("not-needed" if base_url else None)
        if key is None:
            raise ModelSpecError("openai models need OPENAI_API_KEY, or --base-url for a local server")
        if transport is not None:
            from proactive_bench.llm.transport import HttpChatOpenAI

            return HttpChatOpenAI.over(transport, model=name, base_url=base_url, api_key=key, **kwargs)
        return ChatOpenAI(model=name, base_url=base_url, api_key=key, **kwargs)
    if provider not in known_providers():
        raise ModelSpecError(
            f"unknown model provider {provider!r} in {spec!r}; known: {', '.join(known_providers())} "
            "(openai:NAME or openai/NAME for any OpenAI-compatible server; others need the 'langchain' package)"
        )
    try:
        from langchain.chat_models import init_chat_model  # type: ignore[import-not-found]

        return init_chat_model(name, model_provider=provider, base_url=base_url, **kwargs)
    except (ImportError, ValueError) as exc:
        raise ModelSpecError(f"cannot build model {spec!r}: {exc} (providers other than openai need the provider's LangChain integration installed)") from exc
