"""Is a model server there at all? A quick look before a run creates anything.

A dead ``--base-url`` used to cost a minute of retries and a screen of
identical warnings per session; :func:`check_reachable` asks each endpoint
once (``GET {base_url}/models``, a few seconds at most) and raises
:class:`EndpointError` with one line naming the URL, the roles using it and
the cause. Any HTTP answer, even an error status, counts as reachable: the
server is there, and what it supports is the structured caller's business.
"""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence

CHECK_TIMEOUT_S = 3.0


class EndpointError(RuntimeError):
    """A model server that cannot be reached."""


def is_openai_model(spec: str | None) -> bool:
    """Whether a model string means an OpenAI-compatible server (``openai:NAME``, ``openai/NAME`` or a bare name)."""
    if not spec:
        return False
    if ":" in spec:
        return spec.partition(":")[0] == "openai"
    return "/" not in spec or spec.startswith("openai/")


def check_reachable(endpoints: Mapping[str, Sequence[str]], timeout: float = CHECK_TIMEOUT_S) -> None:
    """Raise :class:`EndpointError` for the first of ``{base_url: roles}`` that does not answer at all."""
    for base_url, roles in endpoints.items():
        cause = _unreachable(base_url, timeout)
        if cause is not None:
            raise EndpointError(f"cannot reach the model server at {base_url} (used by: {', '.join(roles)}): {cause}")


def _unreachable(base_url: str, timeout: float) -> str | None:
    """Why ``base_url`` gives no HTTP answer, or None when it answers."""
    request = urllib.request.Request(f"{base_url.rstrip('/')}/models", method="GET")
    try:
        with urllib.request.urlopen(request, timeout=timeout):  # noqa: S310 (the user's own endpoint)
            return None
    except urllib.error.HTTPError:
        return None  # an answer, whatever its status
    except urllib.error.URLError as exc:
        return _reason(exc.reason)
    except (TimeoutError, socket.timeout):
        return f"no answer within {timeout:g} s"
    except (OSError, ValueError) as exc:
        return _reason(exc)


def _reason(reason: object) -> str:
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused (is the server running, on this port?)"
    if isinstance(reason, socket.gaierror):
        return f"unknown host ({reason.strerror})"
    if isinstance(reason, TimeoutError | socket.timeout):
        return "no answer in time"
    return f"{type(reason).__name__}: {reason}" if isinstance(reason, BaseException) else str(reason)
