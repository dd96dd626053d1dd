"""Records of model calls: who called, which model, how, tokens, latency, outcome."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal

CallRole = Literal["agent", "user", "judge"]


@dataclass(frozen=True)
class LLMCallRecord:
    """One attempt at one model call; the store keeps every attempt."""

    role: CallRole
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


Recorder = Callable[[LLMCallRecord], None]


def ignore_record(_record: LLMCallRecord) -> None:
    """A recorder that keeps nothing (for library use without a store)."""


def usage_tokens(message: Any) -> tuple[int | None, int | None]:
    """Prompt and completion tokens from a LangChain message's usage metadata, if any."""
    usage = getattr(message, "usage_metadata", None) or {}
    return usage.get("input_tokens"), usage.get("output_tokens")
