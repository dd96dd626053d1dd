"""Records of model calls: who called, which model, how, tokens, latency, outcome."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from proactive_bench.llm.caps import CUT_NOTE, CallRole
from proactive_bench.llm.retry_log import RetryListener

ToolRole = Literal["npc", "embedder"]
"""Model calls made from inside a tool: a simulated colleague's judgment, a retrieval index's embeddings."""
ERROR_TEXT_LIMIT = 300
CACHED_FLAG = "pbench_cached"
"""Set in a served answer's ``response_metadata`` (by the call cache) so recorders can tell replayed calls apart."""


def is_cached(message: Any) -> bool:
    """Whether a model answer was served from the record instead of the server."""
    return bool((getattr(message, "response_metadata", None) or {}).get(CACHED_FLAG))


@dataclass(frozen=True)
class LLMCallRecord:
    """One attempt at one model call; the store keeps every attempt."""

    role: CallRole | ToolRole
    purpose: str
    model: str
    method: str
    ok: bool
    latency_ms: float
    attempt: int = 1
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None
    prompt_hash: str | None = None
    cached: bool = False
    """Served from a recorded run (replay or resume): no tokens were spent."""


Recorder = Callable[[LLMCallRecord], None]


def usage_fields(message: Any) -> dict[str, Any]:
    """Token counts and the cached flag of a LangChain answer, as LLMCallRecord fields; an answer
    that stopped at the max_tokens cap also gets ``error`` :data:`~proactive_bench.llm.caps.CUT_NOTE`."""
    usage = getattr(message, "usage_metadata", None) or {}
    fields = {"prompt_tokens": usage.get("input_tokens"), "completion_tokens": usage.get("output_tokens"), "cached": is_cached(message)}
    if (getattr(message, "response_metadata", None) or {}).get("finish_reason") == "length":
        fields["error"] = CUT_NOTE
    return fields


def record_retries(recorder: Recorder | None, **fields: Any) -> RetryListener | None:
    """A retry listener (see :mod:`~proactive_bench.llm.retry_log`) that records each transport retry
    as a failed attempt with ``fields`` (role, purpose, model, method, ...)."""
    if recorder is None:
        return None

    def record(error: str, latency_ms: float) -> None:
        recorder(LLMCallRecord(ok=False, latency_ms=latency_ms, error=f"transport retry: {error[:ERROR_TEXT_LIMIT]}", **fields))

    return record
