"""The status words of the benchmark, one enum per thing that has a status.

Each is a ``StrEnum``: a member equals its word, so what is stored in the
results database, written to JSON or printed is the same word as before.
The store (which sits below this package) holds these words in its status
columns (:mod:`proactive_bench.store.tables`).
"""

from __future__ import annotations

from enum import StrEnum


class IntentStatus(StrEnum):
    """The terminal label the simulated user gives a hidden intent (priority: completed > inferred > provided)."""

    COMPLETED = "completed"
    INFERRED = "inferred"
    PROVIDED = "provided"


class SessionOutcome(StrEnum):
    """How a session run ended (``running`` while it plays). Not an intent's status, though one word is shared."""

    RUNNING = "running"
    COMPLETED = "completed"
    """Every hidden intent received a label."""
    TRUNCATED = "truncated"
    """The turn budget ran out first."""
    ERROR = "error"
    """The agent, the user simulator or the framework failed."""


FINAL_OUTCOMES = frozenset({SessionOutcome.COMPLETED, SessionOutcome.TRUNCATED, SessionOutcome.ERROR})
"""The outcomes of a finished session run (saved whole; a resumed run does not play it again)."""


class RunStatus(StrEnum):
    """Where an episode run stands."""

    CREATED = "created"
    """Never started."""
    RUNNING = "running"
    """At least one session saved."""
    FINISHED = "finished"
    STOPPED = "stopped"
    """Stopped early (budget, or a model server that went away)."""
    INTERRUPTED = "interrupted"
    """Stopped by Ctrl-C or SIGTERM; ``pbench resume`` continues it."""
    FAILED = "failed"


PARTIAL_RUN_STATUSES = frozenset({RunStatus.CREATED, RunStatus.RUNNING, RunStatus.STOPPED, RunStatus.INTERRUPTED, RunStatus.FAILED})
"""Run statuses of a run that did not play every planned session (budget, Ctrl-C, crash)."""


class SweepStatus(StrEnum):
    """Where a sweep stands: running, or settled from its runs' statuses."""

    RUNNING = "running"
    FINISHED = "finished"
    """Every run finished."""
    STOPPED = "stopped"
    """A run was stopped (budget)."""
    INTERRUPTED = "interrupted"
    """Stopped by Ctrl-C or SIGTERM; ``pbench resume`` continues it."""
    PARTIAL = "partial"
    """Some runs did not finish for another reason."""


INPUT_ENDED = "input ended: the person at the terminal stopped playing"
"""Why a session played by a person (``pbench play``, either seat) ended when their input stream did."""


class InputEnded(EOFError):
    """The input stream of the person at the terminal ended (:data:`INPUT_ENDED`)."""
