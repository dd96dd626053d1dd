"""Known conventions: a question about a requirement the run already made known earns no inferred credit.

The mini dataset's a2 restates a1's units (``same_units``, persistent from a1);
a copy gives both the same ``convention`` key.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from proactive_bench.data_model import IntentStatus, Stage
from proactive_bench.dataset import known_intents, load_episode
from proactive_bench.dataset.schema import HiddenIntent, Session, Trigger
from proactive_bench.episode.launch import RunSpec, start_run
from proactive_bench.episode.runner import CallLedger, EpisodeRun, Participants, run_episode
from proactive_bench.scaffolds import load_scaffold
from proactive_bench.scaffolds.protocol import ScaffoldOptions
from proactive_bench.scoring import SNAPSHOT_KIND
from proactive_bench.store import IntentEvent, Store
from proactive_bench.user.base import StageVerdict, combine_stages
from proactive_bench.user.rules import RulesUser
from tests.helpers.cli import edit_yaml, run_cli, run_episode_json

A1 = "episodes/mini/sessions/a1.yaml"
A2 = "episodes/mini/sessions/a2.yaml"


def _keyed(root: Path) -> Path:
    """The mini copy with a1's ``units`` and a2's ``same_units`` holding one convention."""
    edit_yaml(root / A1, lambda d: d["intents"][0].update(convention="units"))
    edit_yaml(root / A2, lambda d: d["intents"][0].update(convention="units"))
    return root


def _intent(iid: str, convention: str | None = None, source: str | None = None) -> HiddenIntent:
    scope = "persistent" if source else "session"
    return HiddenIntent(id=iid, text=iid, scope=scope, source_session=source, convention=convention)  # type: ignore[arg-type]


def _session(sid: str, *intents: HiddenIntent) -> Session:
    return Session(id=sid, title=sid, category="A", trigger=Trigger(message="go"), intents=list(intents))


def _events(db: Path, run_id: str, session_id: str) -> dict[str, IntentEvent]:
    store = Store(db)
    (session_run,) = [sr for sr in store.session_runs(run_id) if sr.session_id == session_id]
    return {e.intent_id: e for e in store.rows(IntentEvent, session_run.id)}


# --------------------------------------------------------------------------- the rule


def test_a_convention_is_known_once_an_intent_of_it_was_labelled_earlier() -> None:
    s1, s2 = _session("s1", _intent("idx", "index")), _session("s2", _intent("idx2", "index"), _intent("other"))
    assert known_intents(s2, [s1, s2], {"s1": ["idx"]}) == {"idx2"}
    assert known_intents(s2, [s1, s2], {"s1": []}) == frozenset()  # s1 ended before its intent was labelled
    assert known_intents(s2, [s1, s2], {}) == frozenset()  # s1 did not run (an ablation removed it)


def test_a_convention_is_known_once_the_source_session_of_a_persistent_intent_ran() -> None:
    """The index was started in s1's request (no intent there); s3's persistent intent names s1 as its source."""
    s1 = _session("s1", _intent("other"))
    s2 = _session("s2", _intent("idx2", "index", source="s1"))
    s3 = _session("s3", _intent("idx3", "index", source="s1"))
    assert known_intents(s2, [s1, s2, s3], {"s1": ["other"]}) == {"idx2"}
    assert known_intents(s3, [s1, s2, s3], {"s2": ["idx2"]}) == {"idx3"}  # s1 removed, s2 labelled it
    assert known_intents(s2, [s1, s2, s3], {}) == frozenset()


def test_a_question_about_a_known_convention_is_answered_but_provided() -> None:
    labels = combine_stages(
        ["known", "fresh", "rest"],
        [],
        [StageVerdict("known", "targeted question: q?"), StageVerdict("fresh", "targeted question: r?")],
        ["rest"],
        "rules",
        known={"known"},
    )
    by_id = {label.intent_id: label for label in labels}
    assert (by_id["known"].status, by_id["known"].stage) == (IntentStatus.PROVIDED, Stage.REASKED)
    assert "re-asked a known convention" in by_id["known"].evidence
    assert (by_id["fresh"].status, by_id["fresh"].stage) == (IntentStatus.INFERRED, Stage.QUESTION)
    assert "rest" not in by_id  # the user answered the questions: nothing volunteered


def test_a_reasked_convention_alone_still_counts_as_an_answer() -> None:
    """The user answers the re-asked question instead of volunteering another intent as well."""
    labels = combine_stages(["known", "rest"], [], [StageVerdict("known", "q")], ["rest"], "rules", known={"known"})
    assert [(label.intent_id, label.stage) for label in labels] == [("known", Stage.REASKED)]


def test_meeting_a_known_convention_unasked_still_completes_it() -> None:
    labels = combine_stages(["known"], [StageVerdict("known", "row added")], [StageVerdict("known", "q")], [], "rules", known={"known"})
    assert [(label.intent_id, label.status) for label in labels] == [("known", IntentStatus.COMPLETED)]


# --------------------------------------------------------------------------- in runs


def test_the_asker_gets_a_restated_convention_provided_and_the_burden_counts_it(mini_copy: Path, tmp_path: Path) -> None:
    root, db = _keyed(mini_copy), tmp_path / "c.db"
    out = run_episode_json("--persona", "mini", "--model", "scripted:asker", "--data", str(root), "--db", str(db))
    same = _events(db, out["run_id"], "a2")["same_units"]
    assert (same.status, same.stage) == ("provided", "reasked")
    assert _events(db, out["run_id"], "a1")["units"].status == "inferred"  # the first time, asking is how to learn it
    store = Store(db)
    burdens = {sr.session_id: store.snapshot(sr.id, SNAPSHOT_KIND) for sr in store.session_runs(out["run_id"])}
    assert [burdens[s]["reasked"] for s in ("a1", "a2", "a3")] == [0, 1, 0]
    results = run_cli("results", out["run_id"], "--db", str(db), "--format", "json")
    (row,) = json.loads(results.stdout)["burden"]
    assert abs(row["reasked"] - 1 / 3) < 1e-9
    assert "re-asked conventions" in run_cli("results", out["run_id"], "--db", str(db)).stdout


def test_without_the_session_that_established_it_the_question_is_inferred(mini_copy: Path, tmp_path: Path) -> None:
    root, db = _keyed(mini_copy), tmp_path / "c.db"
    out = run_episode_json("--persona", "mini", "--model", "scripted:asker", "--data", str(root), "--db", str(db), "--sessions", "a2")
    assert _events(db, out["run_id"], "a2")["same_units"].status == "inferred"


def _run(root: Path, store: Store, tmp: Path, sessions: list[str], protocol: str = "pbench", run: object = None) -> object:
    episode = load_episode(root, "mini")
    if run is None:
        # the settings the protocol asks for are stored only: the run's participants are built here (the rules user)
        needs = {"user": "llm", "user_model": "openai:unused", "judge_model": "openai:unused"} if protocol == "pibench" else {}
        spec = RunSpec(persona="mini", agent="scripted:asker", data_root=str(root), protocol=protocol, **needs)  # type: ignore[arg-type]
        run = start_run(store, episode, spec, tmp)
    agent = load_scaffold("scripted:asker", ScaffoldOptions(model="scripted:asker"))
    wiring = EpisodeRun(store, run, episode, Participants(agent, RulesUser(), sees_reference=True), CallLedger(run.id))  # type: ignore[attr-defined]
    asyncio.run(run_episode(wiring, [s for s in episode.sessions if s.id in sessions]))
    return run


def test_a_resumed_run_knows_the_conventions_of_its_stored_sessions(mini_copy: Path, tmp_path: Path) -> None:
    root = _keyed(mini_copy)
    store = Store(tmp_path / "r.db")
    run = _run(root, store, tmp_path, ["a1"])
    _run(root, store, tmp_path, ["a1", "a2"], run=run)  # a1 comes back from the store, a2 runs now
    assert _events(tmp_path / "r.db", run.id, "a2")["same_units"].stage == "reasked"  # type: ignore[attr-defined]


def test_the_pibench_protocol_credits_every_targeted_question(mini_copy: Path, tmp_path: Path) -> None:
    root = _keyed(mini_copy)
    store = Store(tmp_path / "p.db")
    run = _run(root, store, tmp_path, ["a1", "a2"], protocol="pibench")
    assert _events(tmp_path / "p.db", run.id, "a2")["same_units"].status == "inferred"  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- validate


def test_validate_refuses_a_convention_held_twice_in_one_session(mini_copy: Path) -> None:
    def twice(d: dict) -> None:
        d["intents"][0]["convention"] = d["intents"][1]["convention"] = "units"

    edit_yaml(mini_copy / A1, twice)
    result = run_cli("validate", "--data", str(mini_copy), "--json")
    problems = json.loads(result.stdout)["problems"]
    assert result.exit_code == 1
    assert any(p["file"] == A1 and "two intents hold convention 'units'" in p["reason"] for p in problems), problems


def test_validate_warns_about_a_convention_that_can_never_become_known(mini_copy: Path) -> None:
    edit_yaml(mini_copy / A1, lambda d: d["intents"][0].update(convention="units"))
    result = run_cli("validate", "--data", str(mini_copy), "--json")
    problems = json.loads(result.stdout)["problems"]
    assert any(
        p["field"] == "intents[0].convention" and "never becomes known" in p["reason"] and p["level"] == "warning" for p in problems
    ), problems
    edit_yaml(mini_copy / A2, lambda d: d["intents"][0].update(convention="units"))
    problems = json.loads(run_cli("validate", "--data", str(mini_copy), "--json").stdout)["problems"]
    assert not any("convention" in p["reason"] for p in problems), problems


def test_a_reasked_convention_does_not_spend_the_user_s_patience() -> None:
    """A question about a known convention was about a requirement: the user answered it, so it is not a miss."""
    from proactive_bench.data_model import IntentLabel
    from proactive_bench.user.targeting import credited_questions, patience_spent

    question = "Should I count the bags in the ADCs and the 5 West satellite as well as the main pharmacy?"  # three asks
    reasked = IntentLabel(
        "all_locations", IntentStatus.PROVIDED, Stage.REASKED, f"re-asked a known convention: {question}", "rules", turn=1
    )
    assert credited_questions([reasked]) == {1: {reasked.evidence}}
    assert not patience_spent([(1, question)], [reasked])
