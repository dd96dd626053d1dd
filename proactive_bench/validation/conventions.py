"""Checks on ``convention:`` keys: a key names one requirement the episode restates, and it must be able to become known.

- two intents of one session holding the same key restate one requirement
  twice (an error: only one of them could ever be credited);
- a key held by one intent only, which no ``source_session`` establishes,
  never becomes known and marks nothing (a warning: drop it, or give it to
  the intents that restate it).
"""

from __future__ import annotations

from proactive_bench.dataset import LoadedEpisode, Problem, convention_members


def convention_problems(episode: LoadedEpisode) -> list[Problem]:
    """Problems with the ``convention`` keys of one episode's intents."""
    problems: list[Problem] = []
    position = {s.id: {i.id: n for n, i in enumerate(s.intents)} for s in episode.sessions}
    intents = {(s.id, i.id): i for s in episode.sessions for i in s.intents}
    for key, members in convention_members(episode.sessions).items():
        first_session, first_intent = members[0]
        rel = f"episodes/{episode.episode.id}/sessions/{first_session}.yaml"
        where = f"intents[{position[first_session][first_intent]}].convention"
        sessions = [sid for sid, _ in members]
        if twice := sorted({sid for sid in sessions if sessions.count(sid) > 1}):
            problems.append(
                Problem(
                    f"episodes/{episode.episode.id}/sessions/{twice[0]}.yaml",
                    "intents",
                    f"two intents hold convention {key!r}: one requirement is one intent per session",
                )
            )
        if len(members) == 1 and intents[members[0]].source_session is None:
            problems.append(
                Problem(
                    rel,
                    where,
                    f"convention {key!r} is held by this intent only and no source_session establishes it: it never becomes known",
                    "warning",
                )
            )
    return problems
