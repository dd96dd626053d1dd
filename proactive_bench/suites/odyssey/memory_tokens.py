"""The one token counter behind the context-token figures of the memory settings.

tiktoken's ``cl100k_base`` is used when its encoding can be loaded without a
download: tiktoken fetches encodings from the network on first use, so it is
only tried when ``TIKTOKEN_CACHE_DIR`` (tiktoken's own offline cache setting)
is set and the encoding loads from there. Otherwise the count is the
documented approximation ``ceil(characters / 4)``, OpenAI's rule of thumb for
English text. Every figure is stored with the counter's name, so results
made with different counters are never mixed up silently.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from proactive_bench.logs import get_logger

try:  # installed with langchain-openai; optional here, and its encodings are downloads
    import tiktoken
except ImportError:  # pragma: no cover
    tiktoken = None  # type: ignore[assignment]  # the optional module's stand-in: callers check for None

log = get_logger(__name__)

CHARS_PER_TOKEN_ESTIMATE = 4
TIKTOKEN_ENCODING = "cl100k_base"


class TokenCounter(Protocol):
    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class ApproxCounter:
    """``ceil(len(text) / 4)``: needs nothing, gives the same figure on every machine."""

    name: str = f"approx-chars/{CHARS_PER_TOKEN_ESTIMATE}"

    def count(self, text: str) -> int:
        return self.count_length(len(text))

    def count_length(self, chars: int) -> int:
        """The count of any text of ``chars`` characters."""
        return math.ceil(chars / CHARS_PER_TOKEN_ESTIMATE)


@dataclass(frozen=True)
class TiktokenCounter:
    """A tiktoken encoding's token count."""

    encoding: Any
    name: str

    def count(self, text: str) -> int:
        return len(self.encoding.encode(text, disallowed_special=()))


@lru_cache(maxsize=1)
def default_token_counter() -> TokenCounter:
    """tiktoken from its local cache when one is configured, else :class:`ApproxCounter` (see the module doc)."""
    if tiktoken is not None and os.environ.get("TIKTOKEN_CACHE_DIR"):
        try:
            return TiktokenCounter(tiktoken.get_encoding(TIKTOKEN_ENCODING), f"tiktoken:{TIKTOKEN_ENCODING}")
        except Exception as exc:  # no encoding offline: fall back, and say so
            log.warning("tiktoken_unavailable", error=f"{type(exc).__name__}: {exc}", fallback=ApproxCounter().name)
    return ApproxCounter()


def count_tokens(text: str) -> int:
    return default_token_counter().count(text)
