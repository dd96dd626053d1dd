"""Model strings: ``provider:NAME``, ``openai/NAME`` or a bare name (openai), and the providers known."""

from __future__ import annotations


class ModelSpecError(ValueError):
    """A model string that cannot be turned into a chat model."""


def known_providers() -> list[str]:
    """``openai``, and the providers LangChain's ``init_chat_model`` knows when the ``langchain`` package is installed."""
    try:
        from langchain.chat_models.base import _SUPPORTED_PROVIDERS
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


def is_openai_model(spec: str | None) -> bool:
    """Whether a model string means an OpenAI-compatible server (``openai:NAME``, ``openai/NAME`` or a bare name)."""
    try:
        return bool(spec) and model_name(spec or "")[0] == "openai"
    except ModelSpecError:
        return False
