"""Is a model server there at all? A quick look before a run creates anything, and a watch during a sweep.

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
from collections.abc import Iterable, Mapping, Sequence

from proactive_bench.logs import get_logger

log = get_logger(__name__)

CHECK_TIMEOUT_S = 3.0


class EndpointError(RuntimeError):
    """A model server that cannot be reached."""


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
        with urllib.request.urlopen(request, timeout=timeout):  # the user's own endpoint
            return None
    except urllib.error.HTTPError:
        return None  # an answer, whatever its status
    except urllib.error.URLError as exc:
        return _reason(exc.reason)
    except TimeoutError:
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


DEFAULT_PAUSE_AFTER = 5


class EndpointHealth:
    """Consecutive connection failures per model server, for a sweep to pause the runs of one that went away.

    The sweep's :class:`~proactive_bench.llm.transport.ChatTransport` reports
    each request's outcome; after ``pause_after`` connection errors in a row
    (timeouts included; HTTP errors do not count: the server is there) the
    endpoint is paused for the rest of the process. Runs using it stop before
    their next session, are left ``stopped``, and ``pbench resume`` continues
    them; a session that ended in error while its server was failing is not
    saved, so it runs again then.
    """

    def __init__(self, pause_after: int = DEFAULT_PAUSE_AFTER) -> None:
        self.pause_after = pause_after
        self._failing: dict[str, int] = {}
        self.paused: dict[str, str] = {}
        """Paused base URLs and why."""

    def succeeded(self, base_url: str) -> None:
        if self._failing:
            self._failing.pop(base_url, None)

    def failed(self, base_url: str, error: str) -> None:
        count = self._failing[base_url] = self._failing.get(base_url, 0) + 1
        if count >= self.pause_after and base_url not in self.paused:
            self.paused[base_url] = f"{count} connection errors in a row, the last: {error}"
            log.warning(
                "endpoint_paused",
                url=base_url,
                reason=self.paused[base_url],
                hint="its runs stop after their current session; pbench resume continues them",
            )

    def pause_reason(self, base_urls: Iterable[str], failing_counts: bool = False) -> str | None:
        """Why the first of ``base_urls`` that is paused is (or, with ``failing_counts``, failing since its last answer), or None."""
        for url in base_urls:
            if url in self.paused:
                return f"{url}: {self.paused[url]}"
            if failing_counts and self._failing.get(url):
                return f"{url}: {self._failing[url]} connection error(s) in a row"
        return None
