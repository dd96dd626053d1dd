"""``--ablation no-dependency-history`` on the shipped pharmacist: only the finals of its dependency groups are played,
each in a world that holds nothing of its group's earlier sessions (files, memory, transcripts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proactive_bench import api
from proactive_bench.dataset import DEFAULT_DATA_ROOT, Session, load_episode
from tests.helpers.world_seeing_agent import SEEN

AGENT = "tests.helpers.world_seeing_agent:WorldSeeingAgent"  # as a module: its SEEN is the one imported here


def earlier_of(sessions: list[Session], depends_on: dict[str, list[str]]) -> dict[str, set[str]]:
    """Each final session (one that others do not depend on, with dependencies) -> every session it depends on, transitively."""
    needed = {dep for deps in depends_on.values() for dep in deps}
    finals: dict[str, set[str]] = {}
    for session in sessions:
        if session.id in needed or not depends_on[session.id]:
            continue
        stack, seen = list(depends_on[session.id]), set[str]()
        while stack:
            if (dep := stack.pop()) not in seen:
                seen.add(dep)
                stack += depends_on[dep]
        finals[session.id] = seen
    return finals


@pytest.fixture
def pharmacist() -> tuple[list[Session], dict[str, set[str]], Path]:
    loaded = load_episode(DEFAULT_DATA_ROOT, "pharmacist")
    assert loaded.workspace_seed is not None
    return loaded.sessions, earlier_of(loaded.sessions, {e.id: list(e.depends_on) for e in loaded.episode.sessions}), loaded.workspace_seed


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the ablation, not the data's checks
def test_the_ablation_plays_only_the_finals_without_their_earlier_sessions(
    tmp_path: Path, pharmacist: tuple[list[Session], dict[str, set[str]], Path]
) -> None:
    sessions, finals, seed = pharmacist
    removed = set().union(*finals.values())
    assert len(finals) == 6 and len(removed) == 7  # the paper's six groups per persona (s16 has two earlier sessions)
    others = [s for s in sessions if s.id not in removed]
    seeded = {p.relative_to(seed).as_posix() for p in seed.rglob("*") if p.is_file()}

    def named(session: Session) -> set[str]:
        """The seed files a session names, and the paths it names that the seed lacks (an earlier session's outputs)."""
        return {
            f for entry in session.files for f in ({p.relative_to(seed).as_posix() for p in seed.glob(entry) if p.is_file()} or {entry})
        }

    shared = set().union(*(named(s) for s in others))
    theirs = set().union(*(named(s) for s in sessions if s.id in removed)) - shared
    assert len(theirs & seeded) >= 10 and "data/levels/vanco_levels_2025-03-10.csv" in theirs  # the check below has teeth
    assert "reports/2025-03-10_vanco-auc-review.md" in named(next(s for s in sessions if s.id == "s04_vanco_followup_levels"))

    SEEN.clear()
    result = api.run_episode("pharmacist", agent=AGENT, db=tmp_path / "r.db", ablation="no-dependency-history")

    played = [s.session_id for s in result.sessions]
    assert played == [s.id for s in sessions if s.id in finals] and len(played) == 6
    assert [w.session_id for w in SEEN] == played
    openings = {s.id: s.trigger.message for s in sessions}
    for n, world in enumerate(SEEN):
        assert not theirs & set(world.files), (world.session_id, sorted(theirs & set(world.files)))
        assert shared & seeded <= set(world.files)  # what other sessions use stays
        assert world.memory == [f"seen/{sid}" for sid in sorted(played[:n])]  # only the finals played before it
        assert len(world.history) == n and not {openings[r] for r in removed} & set(world.history)


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the ablation, not the data's checks
def test_the_full_run_shows_the_same_final_its_earlier_sessions_world(
    tmp_path: Path, pharmacist: tuple[list[Session], dict[str, set[str]], Path]
) -> None:
    """The probe sees history where there is some: s04 after s01 (no ablation) finds s01's files, note and transcript."""
    SEEN.clear()
    api.run_episode("pharmacist", agent=AGENT, db=tmp_path / "r.db", sessions=["s01_vanco_auc_review", "s04_vanco_followup_levels"])
    first, final = SEEN
    assert "data/levels/vanco_levels_2025-03-10.csv" in final.files
    assert final.memory == ["seen/s01_vanco_auc_review"] and len(final.history) == 1
