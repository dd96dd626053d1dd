"""A selection of an episode's sessions as people write it: ``1-3,5`` (1-based positions and ranges) or session ids."""

from __future__ import annotations

import re

from proactive_bench.dataset.schema import Session


def pick_sessions(spec: str | None, sessions: list[Session], option: str = "--sessions") -> list[Session]:
    """The sessions ``spec`` names, in the episode's order (all when None); a ValueError naming ``option`` otherwise.

    ``spec``: comma-separated positions (``2``), ranges (``1-5``) or session ids, as ``pbench episode --sessions``
    and ``run_episode(sessions=...)`` take them.
    """
    if spec is None:
        return sessions
    chosen: list[Session] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            raise ValueError(
                f"{option}: {spec!r} has an empty item; give positions (1-{len(sessions)}), ranges (1-3) or session ids, comma-separated"
            )
        if re.fullmatch(r"\d+-\d+", part):
            lo, hi = (int(x) for x in part.split("-"))
            picked = sessions[lo - 1 : hi] if 1 <= lo <= hi <= len(sessions) else None
        elif part.isdigit():
            picked = [sessions[int(part) - 1]] if 1 <= int(part) <= len(sessions) else None
        else:
            picked = [s for s in sessions if s.id == part] or None
        if picked is None:
            raise ValueError(f"{option}: {part!r} is not a session id, a position in 1-{len(sessions)} or a range of them (lo-hi)")
        chosen += [s for s in picked if s not in chosen]
    return [s for s in sessions if s in chosen]
