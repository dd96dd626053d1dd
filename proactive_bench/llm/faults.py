"""What a failed model call means: one decision, shared by the transport, structured output and the probe.

:func:`classify` sorts every failure into a :class:`Fault`:

- ``TRANSIENT``: worth asking again as it was — 408, 409, 429, 502, 503, 504
  *whatever their text says* (a gateway's "upstream tool server overloaded"
  is still overload), timeouts, dropped connections, bodies cut short, not
  JSON or over the size cap;
- ``AUTH``: 401/403, no retry or other method can help;
- ``CONTEXT_LENGTH``: the prompt is longer than the model's context;
- ``REJECTED``: the server refuses the request's shape — a 4xx or a 500
  whose text names a request feature (``response_format``, ``tools``,
  ``max_completion_tokens``, ...), or a 400/404/415/422: the method is
  abandoned, never retried;
- ``SERVER_ERROR``: any other 5xx (retried unless it repeats);
- ``CLIENT_ERROR``: any other 4xx (not retried; structured output tries the
  method once more before falling through).
"""

from __future__ import annotations

import re
from enum import StrEnum


class MalformedBodyError(ValueError):
    """The server answered 200 with a body that is not a JSON object (cut short, an HTML error page, too large, ...)."""


class Fault(StrEnum):
    TRANSIENT = "transient"
    AUTH = "auth"
    CONTEXT_LENGTH = "context_length"
    REJECTED = "rejected"
    SERVER_ERROR = "server_error"
    CLIENT_ERROR = "client_error"


TRANSIENT_STATUSES = frozenset({408, 409, 429, 502, 503, 504})
"""Always transient, whatever the answer's text names."""
REJECTING_STATUSES = frozenset({400, 404, 415, 422})
"""A rejection of the request even when the text names no feature."""
REQUEST_FEATURE = re.compile(
    r"response_format|json_schema|json_object|tool_choice|\btools?\b|\bfunctions?\b|function.?call|max_completion_tokens|max_tokens",
    re.IGNORECASE,
)
CONTEXT_LENGTH = re.compile(
    r"context (length|window|size)|maximum context|too many tokens|prompt is too long|reduce the length", re.IGNORECASE
)


def classify(exc: BaseException) -> Fault | None:
    """The kind of fault ``exc`` is; None for an exception that is no model server's answer (a bug, a cancellation)."""
    import openai  # here, not at the top: a run that makes no model call never loads the SDK

    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status in TRANSIENT_STATUSES:
            return Fault.TRANSIENT
        if status in (401, 403):
            return Fault.AUTH
        if is_context_length_error(exc):
            return Fault.CONTEXT_LENGTH
        if status in REJECTING_STATUSES or ((400 <= status < 500 or status == 500) and names_request_feature(exc)):
            return Fault.REJECTED
        return Fault.SERVER_ERROR if status >= 500 else Fault.CLIENT_ERROR
    if isinstance(exc, openai.APIConnectionError | MalformedBodyError | TimeoutError):  # connection errors include the SDK's timeouts
        return Fault.TRANSIENT
    return None


def names_request_feature(exc: BaseException) -> bool:
    """Whether an HTTP error's message names a request feature (``classify`` decides whether that is a rejection)."""
    import openai

    return isinstance(exc, openai.APIStatusError) and REQUEST_FEATURE.search(str(exc.message)) is not None


def names_field(exc: BaseException, field: str) -> bool:
    """Whether a rejection's message names the request field ``field`` (e.g. ``max_completion_tokens``)."""
    return classify(exc) is Fault.REJECTED and re.search(rf"\b{re.escape(field)}\b", str(getattr(exc, "message", ""))) is not None


def is_context_length_error(exc: BaseException) -> bool:
    """Whether an HTTP error says the prompt is longer than the model's context."""
    import openai

    return isinstance(exc, openai.APIStatusError) and CONTEXT_LENGTH.search(str(exc.message)) is not None
