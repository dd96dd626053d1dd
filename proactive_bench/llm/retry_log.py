"""Transport-level retries reported to whoever made the call, so that every attempt is recorded.

The transport retries transient faults (rate limits, dropped connections,
bodies that are not JSON, ...) inside one model call. A caller that records
its calls sets :data:`RETRY_LISTENER` around the call (with :func:`listen`);
the transport reports each failed attempt it retries to that listener, which
writes it to the call ledger with the caller's role, purpose and method. Only
the retry path reads the variable: a call that succeeds first time costs one
``ContextVar.set``/``reset``.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar, Token

RetryListener = Callable[[str, float], None]
"""Called with the retried attempt's error text and its latency in milliseconds."""

RETRY_LISTENER: ContextVar[RetryListener | None] = ContextVar("retry_listener", default=None)


def listen(listener: RetryListener | None) -> Token[RetryListener | None]:
    """Send the retries of calls made from this context to ``listener``; pass the token to :func:`unlisten`."""
    return RETRY_LISTENER.set(listener)


def unlisten(token: Token[RetryListener | None]) -> None:
    RETRY_LISTENER.reset(token)


def note_retry(error: str, latency_ms: float) -> None:
    """Report a retried attempt to the context's listener, if any."""
    listener = RETRY_LISTENER.get()
    if listener is not None:
        listener(error, latency_ms)
