"""Content checks for a dataset's episodes: the shipped pharmacist and the worked example.

The rules ``pbench validate --oracle`` enforces (schema, semantics, counts,
reference replays, the scripted baselines' quality bar in either reveal order)
run through it, so any dataset gets the same checks with
``pbench validate --data DIR --oracle``; the tests below add the annotation
rules the rules user relies on. To check another persona, add its dataset root
and id to ``EPISODES``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import yaml

from proactive_bench.dataset import Problem, known_intents
from proactive_bench.dataset.loading import LoadedEpisode, load_episode
from proactive_bench.dataset.predicates import compile_pattern
from proactive_bench.dataset.schema import Persona, Scope, Session
from proactive_bench.env.workspace import Workspace
from proactive_bench.scaffolds.adversarial import ADVERSARY_MODES
from proactive_bench.validation.lint import validate_root
from proactive_bench.validation.oracle import OracleOutcome, run_oracle
from tests.helpers.admitted import admit_unchanged
from tests.helpers.cli import run_cli
from tests.helpers.once import once_per_run
from tests.helpers.paths import REPO

DATA = REPO / "pbench_data"
EPISODES = [
    (DATA, "pharmacist"),
    (DATA, "financier"),
    (DATA, "law_trainee"),
    (DATA, "marketer"),
    (DATA, "researcher"),
    (REPO / "examples" / "lab_orders", "lab_manager"),
]

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


@pytest.fixture(scope="module", params=EPISODES, ids=[name for _, name in EPISODES])
def episode(request: pytest.FixtureRequest) -> LoadedEpisode:
    root, name = request.param
    return load_episode(root, name)


@pytest.fixture(scope="module")
def sessions(episode: LoadedEpisode) -> list[Session]:
    return episode.sessions


@pytest.fixture(scope="module")
def oracle(episode: LoadedEpisode) -> list[OracleOutcome]:
    return run_oracle(episode, episode.directory.parent.parent)


# --------------------------------------------------------------------------- pbench validate --oracle


def root_problems(root: Path, factory: pytest.TempPathFactory) -> tuple[Problem, ...]:
    """``validate_root`` of a dataset root (it replays every episode's reference on every core), once per root and
    test run: the personas of one root read the same findings, whichever worker plays them."""

    def problems(_folder: Path) -> tuple[Problem, ...]:
        return tuple(validate_root(root)[1])

    return once_per_run(factory, f"validate-root-{root.name}", problems)


def test_the_dataset_validates_without_warnings(episode: LoadedEpisode, tmp_path_factory: pytest.TempPathFactory) -> None:
    problems = root_problems(episode.directory.parent.parent, tmp_path_factory)
    assert [str(p) for p in problems if p.file.startswith(f"episodes/{episode.episode.id}/")] == []


def test_the_scripted_baselines_meet_the_quality_bar(oracle: list[OracleOutcome]) -> None:
    assert {(o.model, o.order) for o in oracle} >= {
        ("scripted:reference", "forward"),
        ("scripted:passive", "reverse"),
        ("scripted:asker", "reverse"),
        ("scripted:surface", "forward"),
        *((f"scripted:{mode}", "forward") for mode in ADVERSARY_MODES),
    }
    assert [f"{o.model} ({o.order}): {o.failure}" for o in oracle if o.failure] == []


def _runs(oracle: list[OracleOutcome], model: str) -> list[OracleOutcome]:
    runs = [o for o in oracle if o.model == f"scripted:{model}"]
    assert runs, model
    return runs


def test_the_reference_completes_every_session_on_rule_items_alone(oracle: list[OracleOutcome]) -> None:
    [reference] = _runs(oracle, "reference")
    assert (reference.proc, reference.comp) == (1.0, 1.0)
    for session in reference.result.sessions:
        assert session.status == "completed" and session.comp == 1.0, session.session_id
        assert session.counts.completed == session.counts.total, session.session_id
    assert reference.result.basis.graders == ("rule",) and reference.result.basis.ungraded > 0


def test_passive_recovers_most_of_the_work_once_told(oracle: list[OracleOutcome]) -> None:
    assert all((o.comp or 0.0) >= 0.8 for o in _runs(oracle, "passive"))


def test_surface_scores_below_passive(oracle: list[OracleOutcome]) -> None:
    [surface] = _runs(oracle, "surface")
    assert all((surface.comp or 0.0) < (o.comp or 0.0) for o in _runs(oracle, "passive"))


def test_the_asker_is_not_mistaken_for_a_survey(oracle: list[OracleOutcome], episode: LoadedEpisode) -> None:
    """One focused question per turn never uses up the user's patience: every intent is inferred, in either order,
    except the conventions it already knows from an earlier session (asked again, they are provided)."""
    known = {
        s.id: known_intents(s, episode.sessions, {e.id: [i.id for i in e.intents] for e in episode.sessions[:n]})
        for n, s in enumerate(episode.sessions)
    }
    for asker in _runs(oracle, "asker"):
        missed = [s.session_id for s in asker.result.sessions if s.counts.inferred != s.counts.total - len(known[s.session_id])]
        assert missed == [], asker.order
        assert sum(s.counts.provided for s in asker.result.sessions) == sum(map(len, known.values()))


def test_persona_loads_with_all_fields(episode: LoadedEpisode) -> None:
    path = episode.directory.parent.parent / "personas" / f"{episode.persona.id}.yaml"
    persona = Persona.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    assert persona.name and persona.role and persona.workplace and persona.working_style and persona.voice
    assert persona.routines and persona.tools_used and persona.preferences and persona.long_term_goals


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
    from proactive_bench.data_model.evidence import questions_in

    for session in sessions:
        for intent in session.intents:
            assert questions_in(intent.question or "") == [intent.question], f"{session.id}:{intent.id}"


def test_reveals_are_not_in_the_opening_request(sessions: list[Session]) -> None:
    for session in sessions:
        opening = " ".join(session.trigger.message.lower().split())
        for intent in session.intents:
            assert " ".join((intent.reveal or "").lower().split()) not in opening


# --------------------------------------------------------------------------- dependencies


def test_dependent_sessions_recover_a_persistent_intent_from_the_earlier_session(episode: LoadedEpisode) -> None:
    seed_files = set(Workspace(episode.workspace_seed).files())
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


def test_edits_keep_line_structure(sessions: list[Session]) -> None:
    """An edit that replaces a text ending mid-line must not end its replacement with a newline (and vice versa)."""
    for session in sessions:
        for n, step in enumerate(session.reference):
            if step.tool == "edit_file":
                old, new = step.args["old"], step.args["new"]
                assert old.endswith("\n") == new.endswith("\n"), f"{session.id}: reference[{n}]"


# --------------------------------------------------------------------------- dependencies that matter


@pytest.mark.heavy
def test_every_persona_needs_its_dependency_history(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Passive, with and without the history of dependent sessions: each shipped persona's final sessions lose work without it."""
    personas = sorted(p.stem for p in (DATA / "personas").glob("*.yaml"))
    admit_unchanged(tmp_path, DATA, personas, tmp_path_factory)  # the data's checks are the tests' above, not this sweep's
    db = tmp_path / "ablation.db"
    swept = run_cli(
        "sweep",
        "--personas",
        ",".join(personas),
        "--models",
        "scripted:passive",
        "--ablation",
        "none,no-dependency-history",
        "--db",
        str(db),
        "--json",
    )
    assert swept.exit_code == 0, swept.output
    sweep_id = sqlite3.connect(db).execute("SELECT id FROM sweep").fetchone()[0]
    summary = json.loads(run_cli("results", sweep_id, "--db", str(db), "--format", "json").stdout)
    deltas = {row["persona"]: row["comp_delta"] for row in summary["ablation"]}
    assert sorted(deltas) == personas
    assert all(delta is not None and delta < -0.05 for delta in deltas.values()), deltas
