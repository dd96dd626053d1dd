"""The odyssey suite's run settings (``OdysseySettings``, its ``settings_model``) and the memory setting they name.

Its own module, loading nothing of the suite: ``pbench episode`` and ``pbench sweep`` build their ``--memory``,
``--top-k``, ... options from this model without loading odyssey's tasks, checkers or generation code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field, model_validator

from proactive_bench.suites.base import SWEPT, NoSettings
from proactive_bench.suites.odyssey.memory_docs import Granularity

DEFAULT_MEMORY = "long-context"
MemoryKind = Literal["long-context", "rag", "none"]
DEFAULT_TOP_K = 5
RAG_PREFIX = "rag:"
SETTINGS_HELP = "long-context, none, or rag:" + "|".join(g.value for g in Granularity)


class MemorySettingError(ValueError):
    """A memory setting that cannot be used; the message is one line."""


@dataclass(frozen=True)
class MemorySetting:
    """One memory setting; ``granularity`` and ``top_k`` only for ``rag``."""

    kind: MemoryKind
    granularity: Granularity | None = None
    top_k: int | None = None

    @property
    def label(self) -> str:
        """The setting as written on the command line and in tables: ``rag:summary-chunk@5``, ``long-context``."""
        return f"{RAG_PREFIX}{self.granularity}@{self.top_k}" if self.kind == "rag" else self.kind


def parse_memory_setting(text: str, top_k: int | None = None) -> MemorySetting:
    """``long-context``, ``none`` or ``rag:<granularity>`` (top-k default :data:`DEFAULT_TOP_K`), else a one-line error."""
    value = text.strip()
    if value in ("long-context", "none"):
        if top_k is not None:
            raise MemorySettingError(f"--top-k: only with a rag: memory setting, not with {value!r}")
        return MemorySetting("long-context" if value == "long-context" else "none")
    if not value.startswith(RAG_PREFIX):
        raise MemorySettingError(f"--memory {text!r}: unknown setting; use {SETTINGS_HELP}")
    try:
        granularity = Granularity(value.removeprefix(RAG_PREFIX))
    except ValueError:
        raise MemorySettingError(f"--memory {text!r}: unknown granularity; use {SETTINGS_HELP}") from None
    k = DEFAULT_TOP_K if top_k is None else top_k
    if k < 1:
        raise MemorySettingError(f"--top-k {k}: must be at least 1")
    return MemorySetting("rag", granularity, k)


def parse_setting(memory: str | None, top_k: int | None) -> MemorySetting:
    """A run's memory setting (None: ``long-context``); MemorySettingError with a one-line reason."""
    return parse_memory_setting(memory or DEFAULT_MEMORY, top_k)


class OdysseySettings(NoSettings):
    """The odyssey suite's settings: how much of a task's history the agent gets, and how."""

    memory: str | None = Field(
        default=None,
        description="Odyssey: memory setting, long-context (default), none or rag:raw-session|raw-utterance|summary-session|summary-chunk.",
        json_schema_extra=SWEPT,
    )
    top_k: int | None = Field(
        default=None,
        ge=1,
        description="Odyssey, with rag:* memory: documents retrieved into the context (default 5).",
        json_schema_extra=SWEPT,
    )
    summary_model: str | None = Field(
        default=None, description="Odyssey, with rag:summary-*: the chat model that summarises each history once (cached in --db)."
    )
    embedding_model: str | None = Field(
        default=None,
        description="Odyssey, with rag:*: the embeddings model (openai:NAME on --base-url) that ranks the history instead of BM25 (vectors cached in --db).",
    )

    @model_validator(mode="after")
    def _fits_the_memory_setting(self) -> OdysseySettings:
        setting = parse_setting(self.memory, self.top_k)  # MemorySettingError is a ValueError: its one line
        summarized = setting.granularity is not None and setting.granularity.summarized
        if summarized and not self.summary_model:
            raise ValueError(f"--memory rag:{setting.granularity} needs --summary-model (the chat model that summarises each history once)")
        if self.summary_model and not summarized:
            raise ValueError("--summary-model goes with a rag:summary-* memory setting")
        if self.embedding_model and setting.kind != "rag":
            raise ValueError("--embedding-model goes with a rag:* memory setting")
        return self
