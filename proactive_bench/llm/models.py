"""Build LangChain chat models from ``provider:name`` strings."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from proactive_bench.llm.model_specs import ModelSpecError, known_providers, model_name
from proactive_bench.llm.transport import ChatTransport

if TYPE_CHECKING:  # LangChain's chat models load with the first model built, not with a scripted run's start
    from langchain_core.caches import BaseCache
    from langchain_core.language_models import BaseChatModel
    from langchain_core.rate_limiters import BaseRateLimiter

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_RETRIES = 3


@dataclass(frozen=True)
class ChatSettings:
    """How to reach and call a chat model (all optional).

    The key comes from ``api_key``, else ``OPENAI_API_KEY``; a local server
    without auth gets a placeholder so no real key is ever required. ``cache``
    records or replays answers (see :mod:`proactive_bench.llm.cache`);
    ``rate_limiter`` is shared by every model on one endpoint. With a
    ``transport``, openai models send their async calls over it (see
    :mod:`proactive_bench.llm.http_chat`) instead of the OpenAI SDK's client.
    ``max_tokens`` caps each answer (on a transport, sent in the one field the
    server reads: ``max_completion_tokens`` or the older ``max_tokens``, see
    :meth:`ChatTransport.cap_field`; the SDK's own client still sends both to
    other OpenAI-compatible servers).
    """

    base_url: str | None = None
    api_key: str | None = None
    temperature: float | None = None
    timeout: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES
    cache: BaseCache | None = None
    rate_limiter: BaseRateLimiter | None = None
    transport: ChatTransport | None = None
    max_tokens: int | None = None


def make_chat_model(spec: str, settings: ChatSettings = ChatSettings()) -> BaseChatModel:
    """A LangChain chat model for a model spec.

    Args:
        spec: ``openai:NAME`` (or ``openai/NAME``; any OpenAI-compatible server with ``settings.base_url``),
            another provider's ``PROVIDER:NAME`` through LangChain's ``init_chat_model``; a bare name means openai.
        settings: Endpoint, API key, timeout, retries, answer cap, cache, rate limiter and transport.

    Returns:
        The chat model, not yet called.

    Raises:
        ModelSpecError: An unknown provider, or an openai model with neither an API key nor a base URL.

    LangChain's OpenAI integration (and the SDK) load here, with the first model built, not with this module.
    """
    provider, name = model_name(spec)
    kwargs: dict[str, Any] = {"timeout": settings.timeout, "max_retries": settings.max_retries}
    optional = {
        "cache": settings.cache,
        "rate_limiter": settings.rate_limiter,
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
    }
    kwargs.update((key, value) for key, value in optional.items() if value is not None)
    base_url = settings.base_url
    if provider == "openai":
        if settings.max_tokens is not None and base_url:
            kwargs["extra_body"] = {"max_tokens": settings.max_tokens}
        key = settings.api_key or os.environ.get("OPENAI_API_KEY") or ("not-needed" if base_url else None)
        if key is None:
            raise ModelSpecError("openai models need OPENAI_API_KEY, or --base-url for a local server")
        if settings.transport is not None:
            from proactive_bench.llm.http_chat import HttpChatOpenAI

            return HttpChatOpenAI.over(settings.transport, model=name, base_url=base_url, api_key=key, **kwargs)
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(model=name, base_url=base_url, api_key=SecretStr(key), **kwargs)
    if provider not in known_providers():
        raise ModelSpecError(
            f"unknown model provider {provider!r} in {spec!r}; known: {', '.join(known_providers())} "
            "(openai:NAME or openai/NAME for any OpenAI-compatible server; others need the 'langchain' package)"
        )
    try:
        from langchain.chat_models import init_chat_model

        return init_chat_model(name, model_provider=provider, base_url=base_url, **kwargs)
    except (ImportError, ValueError) as exc:
        raise ModelSpecError(
            f"cannot build model {spec!r}: {exc} (providers other than openai need the provider's LangChain integration installed)"
        ) from exc
