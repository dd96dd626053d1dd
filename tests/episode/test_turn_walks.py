"""A turn's changed files count from where the agent's previous turn ended, and the workspace is walked once per turn:
the walk at a turn's end is the next turn's start and what the user's judgment of the turn looks at."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

import proactive_bench.env.jail as jail
from proactive_bench import api
from proactive_bench.episode import runner, session_graph
from proactive_bench.episode.session_graph import NodeRuntime, SessionState
from proactive_bench.scaffolds import acts_only_through_tools, catalog
from proactive_bench.scaffolds.adversarial import AdversarialAgent
from proactive_bench.scaffolds.scripted import ScriptedAgent
from proactive_bench.scoring import EpisodeResult
from proactive_bench.store import Store
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


Played = tuple[list[tuple[int, int, list[str], int]], int, EpisodeResult, list[dict[str, Any] | None]]


def _asker_turns(db: Path, monkeypatch: pytest.MonkeyPatch) -> Played:
    """The mini episode played by ``scripted:asker`` on the results database ``db``: per agent turn (turn, its tool calls, its changed files, the walks
    during it), the walks made outside the agent's turns, the result and each session's stored workspace snapshot."""
    walks = [0]
    turns: list[tuple[int, int, list[str], int]] = []
    walk, agent_node = jail.walk, session_graph._NODES["agent"]

    def counted_walk(*args: object, **kwargs: object) -> jail.Scan:
        walks[0] += 1
        return walk(*args, **kwargs)  # type: ignore[arg-type]

    async def counted_turn(state: SessionState, runtime: NodeRuntime) -> dict[str, Any]:
        before, calls = walks[0], len(runtime.context.toolbox.records)
        update = await agent_node(state, runtime)
        turns.append(
            (state["turn"] + 1, len(runtime.context.toolbox.records) - calls, list(update.get("changed_files", [])), walks[0] - before)
        )
        return update

    with monkeypatch.context() as patched:
        patched.setattr(jail, "walk", counted_walk)
        patched.setitem(session_graph._NODES, "agent", counted_turn)
        result = api.run_episode("mini", agent="scripted:asker", db=db, data_root=MINI, validate=False)
    store = Store(db)
    snapshots = [store.snapshot(s.id, "workspace") for s in store.session_runs(result.run_id) if s.id is not None]
    return turns, walks[0] - sum(n for *_, n in turns), result, snapshots


def test_pbench_s_own_baselines_are_walked_again_only_after_a_tool_call_with_the_same_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn in which ``scripted:asker`` called no tool leaves the workspace as its last walk found it: not walked again,
    nor for the session's grades; the checkpoint's walk stays. Every figure is the one of the same agent walked at each
    turn's end (as any agent not of pbench's baselines' own classes is)."""
    turns, outside, result, snapshots = _asker_turns(tmp_path / "skipping.db", monkeypatch)
    monkeypatch.setattr(catalog, "TOOL_ONLY_BASELINES", frozenset())
    walked_turns, walked_outside, walked, walked_snapshots = _asker_turns(tmp_path / "walking.db", monkeypatch)

    sessions = sum(turn == 1 for turn, *_ in turns)
    assert any(calls == 0 for _, calls, *_ in turns[1:]) and any(calls for _, calls, *_ in turns)  # both kinds of turn
    assert [n for *_, n in turns] == [(turn == 1) + (calls > 0) for turn, calls, *_ in turns]  # the first turn also walks its start
    assert [n for *_, n in walked_turns] == [1 + (turn == 1) for turn, *_ in walked_turns]
    assert walked_outside - outside == sessions  # the grades' walk; the checkpoint's is taken either way
    assert [t[:3] for t in turns] == [t[:3] for t in walked_turns]
    assert dataclasses.asdict(result) | {"run_id": ""} == dataclasses.asdict(walked) | {"run_id": ""}
    assert len(snapshots) == sessions and snapshots == walked_snapshots


class _Asker(ScriptedAgent):
    """pbench's asker under another class, as an outside agent could subclass it."""


class _Claims:
    """An agent declaring that it acts only through its tools."""

    acts_only_through_tools = True


def test_only_the_exact_classes_of_pbench_s_baselines_are_taken_to_act_only_through_tools() -> None:
    assert acts_only_through_tools(ScriptedAgent("asker")) and acts_only_through_tools(AdversarialAgent("claimer"))
    assert not acts_only_through_tools(_Asker("asker"))  # a subclass may write by itself
    assert not acts_only_through_tools(_Claims())  # nothing an agent declares counts
