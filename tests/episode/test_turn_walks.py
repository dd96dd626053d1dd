"""A turn's changed files count from where the agent's previous turn ended, and the workspace is walked once per turn:
the walk at a turn's end is the next turn's start and what the user's judgment of the turn looks at."""

from __future__ import annotations

from pathlib import Path

import pytest

import proactive_bench.env.jail as jail
from proactive_bench import api
from proactive_bench.episode import runner
from proactive_bench.user import UserDecision, UserView
from proactive_bench.user.followups import FollowUpUser
from tests.helpers import late_writing_agent
from tests.helpers.paths import MINI

AGENT = "tests.helpers.late_writing_agent:LateWritingAgent"  # as a module: its counters are the ones imported here


def test_a_write_left_after_a_turn_counts_in_the_next_and_no_judgment_walks_the_workspace_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counters = late_writing_agent
    counters.WALKS[0], counters.JUDGED_AT[0] = 0, 0
    counters.BETWEEN_TURNS.clear()
    seen: list[tuple[str, int, list[str], int]] = []  # session, turn, changed files, walks during the judgment
    walk = jail.walk

    def counted_walk(*args: object, **kwargs: object) -> jail.Scan:
        counters.WALKS[0] += 1
        return walk(*args, **kwargs)  # type: ignore[arg-type]

    class SeeingUser(FollowUpUser):
        async def decide(self, view: UserView) -> UserDecision:
            walks = counters.WALKS[0]
            decision = await super().decide(view)
            seen.append((view.session.id, view.turn, list(view.changed_files), counters.WALKS[0] - walks))
            counters.JUDGED_AT[0] = counters.WALKS[0]
            return decision

    monkeypatch.setattr(jail, "walk", counted_walk)
    monkeypatch.setattr(runner, "FollowUpUser", SeeingUser)
    api.run_episode("mini", agent=AGENT, db=tmp_path / "r.db", data_root=MINI)

    first = [(turn, changed) for session, turn, changed, _ in seen if session == seen[0][0]]
    assert first[:2] == [(1, ["during.md"]), (2, ["late.md"])]  # the late write is the agent's, seen at its next turn
    assert counters.BETWEEN_TURNS and set(counters.BETWEEN_TURNS) == {0}  # a turn starts from the walk its previous one ended on
    assert [walks for *_, walks in seen] == [0] * len(seen)  # judgments look at that walk (the rules user globs files)
