"""Known conventions: which of a session's intents restate a requirement the agent already has.

Intents of one episode that restate one requirement (file every deliverable in
the index, copy the supervisor, open with the summary) share a ``convention``
key. The requirement is *known* at a session when the run has already played,
earlier, either

- a session holding an intent with that key that received a label there
  (met unasked, asked, or told: the agent has seen the requirement applied or
  stated), or
- the ``source_session`` of a persistent intent with that key (the session
  whose work established it).

A question about a known requirement earns no inferred credit
(:func:`proactive_bench.user.combine_stages`); docs/metrics.md gives the rule
and the paper's reason. Sessions an ablation removed did not run, so they make
nothing known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from proactive_bench.dataset.schema import Session


def known_intents(session: Session, sessions: Iterable[Session], played: Mapping[str, Iterable[str]]) -> frozenset[str]:
    """Ids of ``session``'s intents whose convention is known when it starts.

    ``sessions`` are the episode's sessions (every one, for the sources of its
    persistent intents); ``played`` maps each session the run played before
    this one to the ids of its intents that received a label.
    """
    if not any(i.convention is not None for i in session.intents):
        return frozenset()
    known: set[str] = set()
    for other in sessions:
        labelled = set(played.get(other.id, ()))
        for intent in other.intents:
            if intent.convention is None:
                continue
            if intent.id in labelled or (intent.source_session is not None and intent.source_session in played):
                known.add(intent.convention)
    return frozenset(i.id for i in session.intents if i.convention in known)


def convention_members(sessions: Iterable[Session]) -> Mapping[str, list[tuple[str, str]]]:
    """Convention key -> the ``(session id, intent id)`` pairs that hold it, in episode order."""
    members: dict[str, list[tuple[str, str]]] = {}
    for session in sessions:
        for intent in session.intents:
            if intent.convention is not None:
                members.setdefault(intent.convention, []).append((session.id, intent.id))
    return members
