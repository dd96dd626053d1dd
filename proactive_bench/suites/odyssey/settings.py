"""The memory settings of an odyssey run: how much of the user's history the agent is given.

``long-context`` (the default): the whole history in the opening message.
``none``: no history at all (the ablation showing the history is needed).
``rag:<granularity>``: the history indexed at one granularity (``raw-session``,
``raw-utterance``, ``summary-session``, ``summary-chunk``), the ``top_k``
documents best matching the task intent in the opening message, and the
``search_history`` tool over the same index.
"""

from __future__ import annotations

from dataclasses import dataclass

LONG_CONTEXT = "long-context"
NO_MEMORY = "none"
RAG_PREFIX = "rag:"
GRANULARITIES = ("raw-session", "raw-utterance", "summary-session", "summary-chunk")
DEFAULT_MEMORY = LONG_CONTEXT
DEFAULT_TOP_K = 5
MEMORY_CHOICES = (LONG_CONTEXT, NO_MEMORY, *(RAG_PREFIX + g for g in GRANULARITIES))


@dataclass(frozen=True)
class MemorySetting:
    """A parsed ``--memory`` value with its ``--top-k`` (retrieval only)."""

    kind: str
    """``long-context``, ``none`` or ``rag``."""
    granularity: str | None = None
    top_k: int | None = None

    @property
    def retrieval(self) -> bool:
        return self.kind == "rag"

    @property
    def label(self) -> str:
        return f"{RAG_PREFIX}{self.granularity}" if self.retrieval else self.kind


def parse_memory(memory: str | None, top_k: int | None) -> MemorySetting:
    """The setting named by ``memory`` (None: the default) and ``top_k``; ValueError with a one-line reason."""
    name = (memory or DEFAULT_MEMORY).strip()
    if name not in MEMORY_CHOICES:
        raise ValueError(f"unknown memory setting {name!r}; choose one of: {', '.join(MEMORY_CHOICES)}")
    if not name.startswith(RAG_PREFIX):
        if top_k is not None:
            raise ValueError(f"--top-k applies to the rag:* memory settings, not to {name!r}")
        return MemorySetting(name)
    if top_k is not None and top_k < 1:
        raise ValueError(f"--top-k must be at least 1, got {top_k}")
    return MemorySetting("rag", name.removeprefix(RAG_PREFIX), top_k or DEFAULT_TOP_K)
