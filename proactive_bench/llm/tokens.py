"""A prompt's tokens as the model server counts them, where it offers a count.

pbench estimates tokens from characters (:data:`~proactive_bench.llm.caps.CHARS_PER_TOKEN`);
a small model's tokenizer may count more, and a prompt clipped to fit by the
estimate overflows its window. llama.cpp's server and vLLM serve
``POST /tokenize`` at the server's root (beside ``/v1``), in two shapes:

- llama.cpp: ``{"content": TEXT, "add_special": true}`` → ``{"tokens": [ids]}``;
- vLLM: ``{"model": NAME, "prompt": TEXT, "add_special_tokens": true}`` →
  ``{"count": N, "max_model_len": M, "tokens": [ids]}``.

:func:`count_tokens` tries both on a server's first count and remembers, per
transport, which one it answers (or that it answers neither: an OpenAI
endpoint, say; then the caller estimates with a margin). A failed count is
None, never an error: counting only sharpens the clip.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

TOKENIZE_PATH = "/tokenize"
COUNT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class TokenizeShape:
    """One server family's ``/tokenize`` request and how its answer gives the count."""

    name: str
    request: Callable[[str, str], dict[str, Any]]
    """``(model, text)`` → the JSON body."""
    count: Callable[[Any], int | None]
    """The answer → the number of tokens, None when it is not this shape's answer."""


def _llama_count(answer: Any) -> int | None:
    tokens = answer.get("tokens") if isinstance(answer, dict) else None
    return len(tokens) if isinstance(tokens, list) and tokens and "count" not in answer else None


def _vllm_count(answer: Any) -> int | None:
    count = answer.get("count") if isinstance(answer, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else None


SHAPES = (
    TokenizeShape("llama.cpp", lambda model, text: {"content": text, "add_special": True}, _llama_count),
    TokenizeShape("vllm", lambda model, text: {"model": model, "prompt": text, "add_special_tokens": True}, _vllm_count),
)
"""Tried in this order on a server's first count (a llama.cpp server answers vLLM's shape with no tokens)."""

PostJson = Callable[[str, dict[str, str], dict[str, Any], float], Awaitable[Any]]
"""``(url, headers, body, timeout)`` → the JSON answer, None when there is none (``ChatTransport.post_json``)."""


def tokenize_url(base_url: str) -> str:
    """Where a server's tokenizer answers: its root (the OpenAI base URL without ``/v1``) + ``/tokenize``."""
    return base_url.rstrip("/").removesuffix("/v1") + TOKENIZE_PATH


async def count_tokens(
    post_json: PostJson, known: dict[str, str | None], base_url: str, model: str, headers: dict[str, str], text: str
) -> int | None:
    """``text``'s tokens as the server at ``base_url`` counts them for ``model``; None when it offers no count.

    ``known``: the shape each server answered (None: neither), kept by the caller (the transport) across calls.
    """
    url = tokenize_url(base_url)
    if url in known:
        name = known[url]
        shapes = [shape for shape in SHAPES if shape.name == name]
    else:
        shapes = list(SHAPES)
    for shape in shapes:
        counted = shape.count(await post_json(url, headers, shape.request(model, text), COUNT_TIMEOUT_S))
        if counted is not None:
            known[url] = shape.name
            return counted
    if url not in known:
        known[url] = None  # neither shape: estimated from now on
    return None
