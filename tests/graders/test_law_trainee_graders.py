"""Every law trainee Python grader on a right and a wrong world.

The right world is the one the session's reference solution leaves behind; the
wrong one is the world as the session starts (the work not yet done), replayed
through the real scratch world (SQLite apps, real workspace files). A grader
that holds on the starting world by design gets its own wrong world below.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.data_model.evidence import Evidence
from proactive_bench.dataset.loading import GraderResolver, load_episode
from proactive_bench.validation.scratch_world import (
    scratch_world,
    start_scratch_session,
)
from proactive_bench.yaml_files import read_yaml_file

ROOT = Path(__file__).resolve().parents[2] / "pbench_data"
SESSIONS = ROOT / "episodes" / "law_trainee" / "sessions"


def _grader_refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["python"]} if isinstance(node.get("python"), str) else set()
        return found.union(*(_grader_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_grader_refs(v) for v in node))
    return set()


CASES = sorted((path.stem, ref) for path in SESSIONS.glob("*.yaml") for ref in _grader_refs(read_yaml_file(path)))
HOLDS_AT_START = {
    # grader -> (its session, a step that undoes what it guards, applied after the reference solution)
    "graders.law_trainee.block_s16_s20:s20_limitation_with_jp": (
        "s20_todoist_notes_handover",
        "todoist__assign_or_unassign_task",
        {"task_id": 337, "assignee_email": "priya.nair@thorneravenscroft.co.uk"},
    ),
    "graders.law_trainee.block_s11_s15:s14_v1_unchanged": (
        "s14_orla_pennine_markup",
        "write_file",
        {"path": "matters/ORL.0032/drafts/2025-11-07_reseller-agreement_v1.md", "content": "DRAFT v2 - two months' notice\n"},
    ),
    "graders.law_trainee.block_s16_s20:s16_v1_unchanged": (
        "s16_brook_defence_v2",
        "write_file",
        {"path": "matters/BRK.0204/drafts/2025-11-10_defence_v1.md", "content": "DRAFT v2 - £14,995\n"},
    ),
}


RESOLVER = GraderResolver(ROOT)


def _function(ref: str) -> Callable[[Evidence], bool]:
    return RESOLVER.resolve(ref)


def _evidence(env: Any, start: dict[str, list[dict[str, Any]]]) -> Evidence:
    return Evidence([], [], env.workspace, env.memory, RESOLVER, env.apps, start)


@pytest.fixture(scope="module")
def verdicts() -> dict[tuple[str, str], tuple[bool, bool]]:
    """(session, grader) -> (holds at the session's start, holds after its reference solution)."""
    episode = load_episode(ROOT, "law_trainee")
    out: dict[tuple[str, str], tuple[bool, bool]] = {}
    with scratch_world(episode) as env:
        for session in episode.sessions:
            box = start_scratch_session(env, episode, session)
            start = env.require_apps().snapshot()
            refs = [ref for sid, ref in CASES if sid == session.id]
            before = {ref: bool(_function(ref)(_evidence(env, start))) for ref in refs}
            for step in session.reference:
                if step.tool is not None:
                    box.call(step.tool, step.args)
            for ref in refs:
                out[(session.id, ref)] = (before[ref], bool(_function(ref)(_evidence(env, start))))
            for ref, (sid, tool, args) in HOLDS_AT_START.items():
                if sid == session.id:
                    box.call(tool, args)
                    out[("undone", ref)] = (bool(_function(ref)(_evidence(env, start))), True)
    return out


def test_every_session_grader_is_exercised() -> None:
    assert len(CASES) >= 60


@pytest.mark.parametrize(("session", "ref"), CASES, ids=[f"{s}-{r.split(':')[1]}" for s, r in CASES])
def test_grader_passes_the_reference_work_and_fails_the_undone_work(
    verdicts: dict[tuple[str, str], tuple[bool, bool]], session: str, ref: str
) -> None:
    before, after = verdicts[(session, ref)]
    assert after, f"{ref} fails on the reference solution of {session}"
    if ref in HOLDS_AT_START:
        before = verdicts[("undone", ref)][0]
    assert not before, f"{ref} already holds before {session}'s work is done"
