"""The Ray executor's :class:`ClusterLimits` actor: a sweep's request rate and spending for the whole cluster.

Its own module, importing only the standard library: Ray starts the actor in a
new worker process, which imports the module the class is defined in, so the
actor is up after Ray's own start-up instead of after pbench's episode stack
(langchain, langgraph, the store) has loaded there too.
"""

from __future__ import annotations

import time


class ClusterLimits:
    """A sweep's request rate per endpoint and its spending for the whole cluster: one Ray actor that every runner calls.

    The rate is a token bucket per endpoint (refilled at ``requests_per_second``,
    holding at most one second of requests, as the local limiter does). A
    caller reserves a token and is told how long to wait before sending, so the
    actor never sleeps and one call costs one round trip.
    """

    def __init__(self, requests_per_second: float | None, spent_usd: float) -> None:
        self.rate = requests_per_second
        self.capacity = max(1.0, requests_per_second or 0.0)
        self.buckets: dict[str, tuple[float, float]] = {}
        """endpoint: (tokens, when counted); tokens below zero are reservations not yet due."""
        self.spent_usd = spent_usd

    def reserve(self, endpoint: str, blocking: bool = True) -> float:
        """Take a token of the endpoint's bucket: the seconds to wait before sending; -1 (nothing taken) when not ``blocking`` and none is free."""
        if not self.rate:
            return 0.0
        now = time.monotonic()
        tokens, counted = self.buckets.get(endpoint, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - counted) * self.rate)
        if tokens < 1.0 and not blocking:
            self.buckets[endpoint] = (tokens, now)
            return -1.0
        self.buckets[endpoint] = (tokens - 1.0, now)
        return max(0.0, (1.0 - tokens) / self.rate)

    def add(self, cost_usd: float) -> float:
        """Count what a runner spent; the cluster's spending now."""
        self.spent_usd += cost_usd
        return self.spent_usd

    def spent(self) -> float:
        return self.spent_usd

    def ready(self) -> bool:
        """Answered once the actor is up (its process started and its module imported)."""
        return True
