"""A signal that a model request has left, for work that should run while its caller waits on the model.

The runner writes a finished session while the next session's first request
is out: set :data:`REQUEST_SENT` to an event in the calling task's context,
and :class:`~proactive_bench.llm.transport.ChatTransport` sets the event as it
sends a request from that context (tasks started from it inherit the value);
the runner's call ledger sets it when a call is recorded, for models that do
not use the transport.
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar

REQUEST_SENT: ContextVar[asyncio.Event | None] = ContextVar("request_sent", default=None)


def note_request_sent() -> None:
    """Set the context's event, if any: whatever waits on it runs once the caller is waiting on its answer."""
    sent = REQUEST_SENT.get()
    if sent is not None:
        sent.set()
