"""Content checks for the pharmacist persona and its episode.

Everything runs offline and in-process: the YAML files go through the schema
models, the annotations are checked against the rules the offline user and the
scripted baselines rely on, and the reference solutions are replayed through
the real workspace tools.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from proactive_bench.evidence import Evidence, Message
from proactive_bench.loading import GraderResolver, LoadedEpisode, load_episode
from proactive_bench.predicates import compile_pattern, evaluate
from proactive_bench.runner import episode_env
from proactive_bench.schema import Episode, Persona, Scope, Session

REPO = Path(__file__).resolve().parent.parent
EPISODE_DIR = REPO / "episodes" / "pharmacist"
SEED = EPISODE_DIR / "workspace"

GENERIC_QUESTIONS = [
    "Do you have any other preferences?",
    "Is there anything else I should know?",
    "Anything else you would like me to do?",
    "Should I go ahead?",
    "Can you tell me more about what you need?",
    "Could you clarify your requirements?",
    "Is this what you had in mind?",
    "Would you like me to make any changes?",
    "Does that look right to you?",
]


@pytest.fixture(scope="module")
def episode() -> LoadedEpisode:
    return load_episode(REPO, "pharmacist")


@pytest.fixture(scope="module")
def sessions(episode: LoadedEpisode) -> list[Session]:
    return episode.sessions


def _evidence(
    workspace: Workspace, memory: Memory, records: list | None = None, replies: list[str] | None = None, apps: AppStore | None = None
) -> Evidence:
    transcript = [Message("agent", text, n) for n, text in enumerate(replies or [], 1)]
    return Evidence(
        transcript=transcript,
        tool_records=list(records or []),
        workspace=workspace,
        memory=memory,
        resolve_python=GraderResolver(REPO),
        apps=apps,
    )


# --------------------------------------------------------------------------- files load through the models


def test_persona_loads_with_all_fields() -> None:
    persona = Persona.model_validate(yaml.safe_load((REPO / "personas" / "pharmacist.yaml").read_text(encoding="utf-8")))
    assert persona.id == "pharmacist"
    assert persona.name and persona.role and persona.workplace and persona.working_style and persona.voice
    assert persona.routines and persona.tools_used and persona.preferences and persona.long_term_goals
    assert persona.language == "en"


def test_episode_and_sessions_load_through_the_models(episode: LoadedEpisode) -> None:
    raw = Episode.model_validate(yaml.safe_load((EPISODE_DIR / "episode.yaml").read_text(encoding="utf-8")))
    assert raw.persona == "pharmacist" and raw.id == "pharmacist"
    ids = [s.id for s in raw.sessions]
    assert ids[:6] == [f"s0{n}" + ids[n - 1][3:] for n in range(1, 7)], "the first six sessions are s01..s06"
    for entry in raw.sessions:
        path = EPISODE_DIR / "sessions" / f"{entry.id}.yaml"
        session = Session.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
        assert session.id == entry.id
    assert [s.id for s in episode.sessions] == ids


def test_categories_come_from_the_taxonomy(sessions: list[Session]) -> None:
    text = (REPO / "docs" / "taxonomy.md").read_text(encoding="utf-8")
    codes = set(re.findall(r"^\| ([A-Z]) \|", text, re.MULTILINE))
    assert {"I", "J", "K", "L"} <= codes
    for session in sessions:
        assert session.category in codes, session.id


# --------------------------------------------------------------------------- counts


def test_per_session_counts(sessions: list[Session]) -> None:
    for session in sessions:
        assert 5 <= len(session.intents) <= 12, session.id
        assert 5 <= len(session.checklist) <= 10, session.id
        assert any(item.grader == "rule" for item in session.checklist), session.id


def test_at_least_a_quarter_of_items_are_rule_graded(sessions: list[Session]) -> None:
    items = [item for s in sessions for item in s.checklist]
    rule = [item for item in items if item.grader == "rule"]
    assert len(rule) * 4 >= len(items)
    assert any(item.grader == "rubric" for item in items)


def test_an_event_triggered_session_exists(sessions: list[Session]) -> None:
    events = [s for s in sessions if s.trigger.type == "event"]
    assert events and all(s.trigger.source for s in events)


# --------------------------------------------------------------------------- annotations the rules user needs


def test_every_intent_is_trackable_by_the_rules_user(sessions: list[Session]) -> None:
    for session in sessions:
        for intent in session.intents:
            assert intent.has_rules, f"{session.id}:{intent.id}"


def test_ask_regexes_match_their_own_question(sessions: list[Session]) -> None:
    for session in sessions:
        for intent in session.intents:
            assert any(compile_pattern(p).search(intent.question or "") for p in intent.ask), f"{session.id}:{intent.id}"


def test_ask_regexes_ignore_generic_questions(sessions: list[Session]) -> None:
    for session in sessions:
        for intent in session.intents:
            for question in GENERIC_QUESTIONS:
                assert not any(compile_pattern(p).search(question) for p in intent.ask), f"{session.id}:{intent.id} matches {question!r}"


def test_ask_regexes_do_not_capture_other_intents_questions(sessions: list[Session]) -> None:
    for session in sessions:
        for intent in session.intents:
            for other in session.intents:
                if other.id != intent.id:
                    hit = any(compile_pattern(p).search(other.question or "") for p in intent.ask)
                    assert not hit, f"{session.id}: {intent.id}'s ask matches {other.id}'s question"


def test_questions_are_single_question_sentences(sessions: list[Session]) -> None:
    from proactive_bench.evidence import questions_in

    for session in sessions:
        for intent in session.intents:
            assert questions_in(intent.question or "") == [intent.question], f"{session.id}:{intent.id}"


def test_reveals_are_not_in_the_opening_request(sessions: list[Session]) -> None:
    for session in sessions:
        opening = " ".join(session.trigger.message.lower().split())
        for intent in session.intents:
            assert " ".join((intent.reveal or "").lower().split()) not in opening


def test_no_intent_evidence_holds_on_the_seed_workspace(sessions: list[Session], tmp_path: Path) -> None:
    shutil.copytree(SEED, tmp_path / "ws")
    evidence = _evidence(Workspace(tmp_path / "ws"), Memory())
    for session in sessions:
        for intent in session.intents:
            assert not evaluate(intent.evidence, evidence), f"{session.id}:{intent.id}"
        for item in session.checklist:
            if item.check is not None:
                assert not evaluate(item.check, evidence), f"{session.id}:{item.id} already passes on the seed"


# --------------------------------------------------------------------------- dependencies


def test_dependent_sessions_recover_a_persistent_intent_from_the_earlier_session(episode: LoadedEpisode) -> None:
    seed_files = set(Workspace(SEED).files())
    by_id = {s.id: s for s in episode.sessions}
    dependent = [e for e in episode.episode.sessions if e.depends_on]
    assert dependent, "the episode needs at least one dependency"
    for entry in dependent:
        session = by_id[entry.id]
        persistent = [i for i in session.intents if i.scope == Scope.PERSISTENT and i.source_session in entry.depends_on]
        assert persistent, f"{entry.id} has no persistent intent from {entry.depends_on}"
        for intent in persistent:
            source = by_id[intent.source_session]
            written = {str(step.args["path"]) for step in source.reference if step.tool in ("write_file", "edit_file")}
            carried = (written & set(session.files)) - seed_files
            assert carried, f"{entry.id}:{intent.id}: nothing from {source.id}'s output is among the session's files"


def test_every_persistent_intent_names_an_earlier_source_session(episode: LoadedEpisode) -> None:
    order = [s.id for s in episode.sessions]
    for session in episode.sessions:
        for intent in session.intents:
            if intent.scope == Scope.PERSISTENT:
                assert intent.source_session in order[: order.index(session.id)], f"{session.id}:{intent.id}"


# --------------------------------------------------------------------------- replaying the reference solutions


def _run(box: ToolBox, steps) -> list[str]:
    said = []
    for step in steps:
        if step.tool is not None:
            record = box.call(step.tool, step.args)
            assert record.ok, f"{step.tool} {step.args.get('path', '')}: {record.result}"
        elif step.say:
            said.append(step.say)
    return said


def _replay(episode: LoadedEpisode, tmp_path: Path, mode: str) -> list[tuple[Session, dict, dict]]:
    """Run every session on one workspace. For each session return what holds after its
    stated-request steps only and after the rest (in ``mode`` order: 'forward' or 'reverse'
    intent order). The workspace then carries the complete reference outputs forward."""
    workspace = Workspace.seeded(tmp_path / mode, SEED)
    memory = Memory()
    apps = AppStore()
    apps.seed_from(episode.directory / "apps")
    env = episode_env(episode, workspace, memory, apps)
    out = []
    for session in episode.sessions:
        if session.now is not None:
            apps.set_clock(session.now)
        box = ToolBox(env, resolve_tool_names(session.tools))
        base = [s for s in session.reference if not s.requires]
        said = _run(box, base)
        after_base = _evidence(workspace, memory, box.records, said, apps)
        base_snapshot = {
            "intents": {i.id: evaluate(i.evidence, after_base) for i in session.intents},
            "items": {c.id: evaluate(c.check, after_base) for c in session.checklist if c.check is not None},
        }
        order = [i.id for i in session.intents]
        if mode == "reverse":
            order.reverse()
        done: set[str] = set()
        ran: set[int] = set()
        for intent_id in order:
            done.add(intent_id)
            due = [n for n, s in enumerate(session.reference) if s.requires and set(s.requires) <= done and n not in ran]
            ran.update(due)
            said += _run(box, [session.reference[n] for n in due])
        final = _evidence(workspace, memory, box.records, said, apps)
        final_snapshot = {  # judged now: later sessions change the same files and app rows
            "intents": {i.id: evaluate(i.evidence, final) for i in session.intents},
            "items": {c.id: evaluate(c.check, final) for c in session.checklist if c.check is not None},
        }
        out.append((session, base_snapshot, final_snapshot))
    return out


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_reference_replay(episode: LoadedEpisode, tmp_path: Path, mode: str) -> None:
    for session, base, final in _replay(episode, tmp_path, mode):
        # the stated request alone completes no hidden intent (passive Proc stays 0)
        assert not any(base["intents"].values()), f"{session.id}: {[k for k, v in base['intents'].items() if v]}"
        # ... and loses every rule item that depends on a hidden intent (surface)
        for item in session.checklist:
            if item.check is not None and item.intent is not None:
                assert not base["items"][item.id], f"{session.id}:{item.id} passes without its intent"
        # the whole reference, in either intent order, completes every intent and passes every rule item
        assert all(final["intents"].values()), f"{session.id} ({mode}): {[k for k, v in final['intents'].items() if not v]}"
        assert all(final["items"].values()), f"{session.id} ({mode}): {[k for k, v in final['items'].items() if not v]}"


def test_edits_keep_line_structure(sessions: list[Session]) -> None:
    """An edit that replaces a text ending mid-line must not end its replacement with a newline (and vice versa)."""
    for session in sessions:
        for n, step in enumerate(session.reference):
            if step.tool == "edit_file":
                old, new = step.args["old"], step.args["new"]
                assert old.endswith("\n") == new.endswith("\n"), f"{session.id}: reference[{n}]"
