"""The status priority, the termination rule and the turn guard, on the mini dataset."""

from __future__ import annotations

import asyncio
from pathlib import Path

from proactive_bench.data_model.status import IntentStatus
from proactive_bench.dataset.loading import load_episode
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from proactive_bench.episode.launch import RunSpec, start_run
from proactive_bench.episode.runner import (
    CallLedger,
    EpisodeRun,
    Participants,
    run_episode,
)
from proactive_bench.scaffolds.protocol import AgentTurn, SessionContext
from proactive_bench.store import IntentEvent, MessageRow, Store
from proactive_bench.user.base import Stage, StageVerdict, combine_stages
from proactive_bench.user.rules import RulesUser
from tests.helpers.cli import run_episode_json
from tests.helpers.paths import MINI


def test_completed_beats_inferred_beats_provided() -> None:
    labels = combine_stages(
        ["a", "b", "c"],
        completed=[StageVerdict("a", "done")],
        targeted=[StageVerdict("a", "asked"), StageVerdict("b", "asked")],
        volunteer_order=["c", "b", "a"],
        decided_by="test",
    )
    assert [(label.intent_id, label.status) for label in labels] == [("a", IntentStatus.COMPLETED), ("b", IntentStatus.INFERRED)]


def test_volunteers_most_relevant_open_intent_when_nothing_asked() -> None:
    labels = combine_stages(["a", "b", "c"], [StageVerdict("a", "done")], [], ["a", "c", "b"], "test")
    assert [(label.intent_id, label.status, label.stage) for label in labels] == [
        ("a", IntentStatus.COMPLETED, Stage.COMPLETION),
        ("c", IntentStatus.PROVIDED, Stage.VOLUNTEER),
    ]


def test_verdicts_for_closed_or_unknown_intents_are_ignored() -> None:
    labels = combine_stages(["b"], [StageVerdict("zzz", "x")], [StageVerdict("a", "x")], [], "test")
    assert [(label.intent_id, label.status) for label in labels] == [("b", IntentStatus.PROVIDED)]


def test_reference_completes_everything_in_one_turn(tmp_path: Path) -> None:
    out = run_episode_json("--persona", "mini", "--model", "scripted:reference", "--data", str(MINI), "--db", str(tmp_path / "r.db"))
    assert out["proc"] == 1.0
    assert all(s["completed"] == s["intents"] and s["turns"] == 1 for s in out["sessions"])


def test_session_ends_only_after_agent_answers_last_reveal(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    out = run_episode_json("--persona", "mini", "--model", "scripted:asker", "--data", str(MINI), "--db", str(db), "--sessions", "a1")
    (session,) = out["sessions"]
    # two questions (each answered) and then one acting turn after the last answer
    assert (session["inferred"], session["turns"], session["status"]) == (2, 3, "completed")
    store = Store(db)
    (srun,) = store.session_runs(out["run_id"])
    messages = store.rows(MessageRow, srun.id)
    assert messages[-1].role == "agent" and messages[-2].role == "user"
    events = store.rows(IntentEvent, srun.id)
    assert [(e.intent_id, e.status, e.turn) for e in events] == [("units", "inferred", 1), ("mean", "inferred", 2)]


class Silent:
    """An agent that never does anything."""

    def start_session(self, ctx: SessionContext) -> None: ...

    def respond(self, message: str) -> AgentTurn:
        return AgentTurn("ok")

    def end_session(self) -> None: ...


class Crashing(Silent):
    async def respond(self, message: str) -> AgentTurn:
        raise ConnectionError("model server unreachable")


def _run(tmp_path: Path, agent: object, max_turns: int, sessions: list[str]) -> object:
    episode = load_episode(MINI, "mini")
    store = Store(tmp_path / "x.db")
    run = start_run(store, episode, RunSpec(persona="mini", model="test", data_root=str(MINI)), tmp_path)
    chosen = [s for s in episode.sessions if s.id in sessions]
    wiring = EpisodeRun(store, run, episode, Participants(agent, RulesUser()), CallLedger(run.id), max_turns=max_turns)  # type: ignore[arg-type]
    return asyncio.run(run_episode(wiring, chosen))


def test_max_turn_guard_truncates_and_counts_unresolved(tmp_path: Path) -> None:
    result = _run(tmp_path, Silent(), max_turns=1, sessions=["a1"])
    (session,) = result.sessions
    assert session.status == "truncated"
    assert session.turns == 1
    assert session.counts.unresolved == 2 and session.proc == 0.0


def test_silent_agent_gets_everything_provided_then_ends(tmp_path: Path) -> None:
    result = _run(tmp_path, Silent(), max_turns=10, sessions=["a1"])
    (session,) = result.sessions
    assert (session.status, session.turns, session.counts.provided) == ("completed", 3, 2)
    assert session.comp == 0.0


def test_agent_failure_is_an_error_that_scores_zero(tmp_path: Path) -> None:
    result = _run(tmp_path, Crashing(), max_turns=5, sessions=["a1", "a3"])
    assert [s.status for s in result.sessions] == ["error", "error"]
    assert "model server unreachable" in (result.sessions[0].error or "")
    assert result.proc == 0.0 and result.comp == 0.0  # failed work counts: it does not leave the figures
    assert result.failures.as_dict() == {"error": 2, "truncated": 0, "not_run": 0}


def test_rules_user_asks_for_llm_backend_without_annotations(tmp_path: Path) -> None:
    episode = load_episode(MINI, "mini")
    session = episode.session("a1").model_copy(deep=True)
    session.intents[0].evidence = None
    from proactive_bench.data_model.evidence import Evidence
    from proactive_bench.user.base import UserView

    view = UserView(
        episode.persona,
        session,
        session.intents,
        Evidence([], [], Workspace(tmp_path), Memory(), lambda ref: None),
        turn=1,
    )
    try:
        asyncio.run(RulesUser().decide(view))
    except ValueError as exc:
        assert "--user llm" in str(exc)
    else:
        raise AssertionError("expected the rules backend to refuse")


def test_questions_do_not_count_as_completion(tmp_path: Path) -> None:
    """An agent that only asks about mg/L must not be credited with writing it."""
    episode = load_episode(MINI, "mini")
    session = episode.session("a1")
    ws = Workspace(tmp_path)
    box = ToolBox(ToolEnv(ws, Memory()), resolve_tool_names([]))
    box.call("write_file", {"path": "out/summary.md", "content": "draft"})
    from proactive_bench.data_model.evidence import Evidence, Message
    from proactive_bench.user.base import UserView

    evidence = Evidence([Message("agent", "Should the summary report mg/L units?", 1)], box.records, ws, Memory(), lambda r: None)
    decision = asyncio.run(RulesUser().decide(UserView(episode.persona, session, session.intents, evidence, 1)))
    assert [(label.intent_id, label.status.value) for label in decision.labels] == [("units", "inferred")]
    assert decision.message == "Please give the values in mg/L."
