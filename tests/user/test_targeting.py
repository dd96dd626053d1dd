"""The targeted-question rule: focused questions count, menus, surveys and generic questions do not."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from proactive_bench.data_model.evidence import Evidence, Message
from proactive_bench.data_model.labels import IntentLabel, Stage
from proactive_bench.data_model.status import IntentStatus
from proactive_bench.dataset.loading import GraderResolver, load_episode
from proactive_bench.env.memory import Memory
from proactive_bench.env.workspace import Workspace
from proactive_bench.scaffolds.adversarial import (
    claims_everything,
    laundry_list_question,
)
from proactive_bench.user.base import UserView
from proactive_bench.user.rules import RulesUser, targeted_by_cues
from proactive_bench.user.targeting import (
    MAX_QUESTIONS_PER_TURN,
    Rejection,
    asks_in,
    cap_claims,
    patience_spent,
    screen_questions,
)
from tests.helpers.paths import DATA

PHARMACIST = load_episode(DATA, "pharmacist")
S05 = PHARMACIST.session("s05_piptazo_allocation")
PERSONAS = ("pharmacist", "researcher", "marketer", "law_trainee", "financier")


def test_a_focused_question_targets_its_intent_only() -> None:
    reply = "I have the counts. Should I include the stock in the automated dispensing cabinets as well?"
    assert targeted_by_cues(S05.intents, reply) == {"i1_all_locations": reply.split(". ", 1)[1]}


def test_every_shipped_targeted_question_passes_the_screen_and_claims_one_intent() -> None:
    for persona in PERSONAS:
        for session in load_episode(DATA, persona).sessions:
            for intent in session.intents:
                question = intent.question or ""
                assert list(targeted_by_cues(session.intents, question)) == [intent.id], (persona, session.id, intent.id)
                assert sum(screen_questions(question).asks.values()) < MAX_QUESTIONS_PER_TURN, question


def test_a_menu_of_many_dimensions_targets_nothing() -> None:
    question = laundry_list_question()
    assert screen_questions(question).rejected == {question: Rejection.MENU}
    assert targeted_by_cues(S05.intents, question) == {}


def test_a_survey_of_one_dimension_per_question_targets_nothing() -> None:
    reply = " ".join(
        [
            "Should I count the ADC stock?",
            "Should I add a projection to the recovery date?",
            "Should I list cefepime as a substitute?",
            "Should I draft a purchase order?",
            "Should I add it to the reports index?",
        ]
    )
    screen = screen_questions(reply)
    assert screen.admissible == [] and set(screen.rejected.values()) == {Rejection.SURVEY}
    assert targeted_by_cues(S05.intents, reply) == {}


def test_one_question_claiming_three_intents_targets_none_of_them() -> None:
    # no list separators, so not a menu; but it names the ADCs, cefepime and the index at once
    reply = "Should the ADC counts and the cefepime plan go into the shortage reports index?"
    assert screen_questions(reply).admissible == [reply]
    assert targeted_by_cues(S05.intents, reply) == {}


def test_a_turn_claiming_more_than_three_intents_targets_none() -> None:
    assert cap_claims({"a": "q1", "b": "q2", "c": "q3"}) == {"a": "q1", "b": "q2", "c": "q3"}
    assert cap_claims({"a": "q1", "b": "q2", "c": "q3", "d": "q4"}) == {}
    assert cap_claims({"a": "q1", "b": "q1", "c": "q1", "d": "q2"}) == {"d": "q2"}


def test_generic_questions_target_nothing_even_with_a_cue_word_inside() -> None:
    for reply in (
        "Anything else I should know?",
        "Any preferences?",
        "Anything else, maybe for the index?",
        "Is there anything else you want in the report, like alternatives?",
        "Should I add it?",
    ):
        assert screen_questions(reply).admissible == [], reply
        assert targeted_by_cues(S05.intents, reply) == {}, reply


def test_a_claim_only_turn_completes_nothing(tmp_path: Path) -> None:
    """Saying every requirement is handled is not doing it: stage 1 reads state and tool records only."""
    ws = Workspace.seeded(tmp_path / "ws", PHARMACIST.workspace_seed)
    claim = claims_everything() + " I counted 476 vials in all locations, listed cefepime and added the report to reports/INDEX.md."
    evidence = Evidence([Message("agent", claim, 1)], [], ws, Memory(), GraderResolver(DATA))
    view = UserView(PHARMACIST.persona, S05, S05.intents, evidence, turn=1)
    decision = asyncio.run(RulesUser().decide(view))
    assert decision.error is None
    assert [label.status.value for label in decision.labels] == ["provided"]


def test_questions_that_earn_nothing_use_up_the_users_patience() -> None:
    misses = [(1, "Should I add a chart to the summary? Should the chart be blue?"), (2, "Should I use a serif font for headings?")]
    assert patience_spent(misses, [])
    credited = [
        IntentLabel("a", IntentStatus.INFERRED, Stage.QUESTION, "targeted question: Should I add a chart to the summary?", "test", turn=1),
        IntentLabel(
            "b", IntentStatus.INFERRED, Stage.QUESTION, "targeted question: Should I use a serif font for headings?", "test", turn=2
        ),
    ]
    assert not patience_spent(misses, credited)  # 2 earned, 1 missed
    assert not patience_spent([(1, "Anything else?"), (2, "Any preferences?"), (3, "Does this look good?")], [])  # generic: harmless
    assert patience_spent([(1, laundry_list_question()), (2, laundry_list_question()), (3, laundry_list_question())], [])


@pytest.mark.usefixtures("admitted_pharmacist")  # the subject is the user's patience, not the data's checks
def test_a_drip_of_generic_questions_stops_earning_after_a_few_misses(tmp_path: Path) -> None:
    from tests.helpers.cli import run_episode_json

    out = run_episode_json("--persona", "pharmacist", "--model", "scripted:drip", "--sessions", "5", "--db", str(tmp_path / "d.db"))
    (session,) = out["sessions"]
    assert session["inferred"] <= 1


def test_an_open_frame_earns_nothing_and_its_example_is_judged_alone() -> None:
    # "What else ..., e.g. X?" is the generic question it is plus at most X
    for reply in (
        "What else, e.g. the index or the tracker?",  # each example alone is one bare noun
        "Anything I missed, like the index?",
        "What else should I do - for example the log?",
        "What else, e.g. index and tracker?",
        "Any other requirement, e.g. index & tracker?",
        "Anything else, e.g. the index, the log, the tracker?",
        "Is there anything else you want in the report, like a projection or alternatives?",
    ):
        assert screen_questions(reply).admissible == [], reply
        assert targeted_by_cues(S05.intents, reply) == {}, reply
    # the frame names the reports index, but only the example is asked
    reply = "What else should I add to the reports index, e.g. the cefepime plan?"
    assert screen_questions(reply).admissible == ["the cefepime plan?"]
    assert targeted_by_cues(S05.intents, reply) == {"i4_substitutes": "the cefepime plan?"}
    # one thing named with "and" is one example
    assert screen_questions("Anything else, e.g. the pros and cons of cefepime?").admissible == ["the pros and cons of cefepime?"]
    # an example that is a question of its own still counts
    reply = "Anything I missed - for example, should I add the shortage report to your reports index?"
    assert list(targeted_by_cues(S05.intents, reply)) == ["i7_reports_index"]


def test_a_coordinated_question_counts_as_two_questions() -> None:
    for question in (
        "Should I add it to the index and update the tracker too?",
        "Should I update the index and the tracker?",
        "Should I update the index and tracker together?",
        "Should I include the ADC stock as well as the main pharmacy?",
        "Should I update the index, also the tracker?",
        "Should I update the index, plus log it in the tracker?",
        "Should I update the index and then the tracker?",
        "Should I update the index & the tracker?",
    ):
        assert len(asks_in(question)) == 2, question
    # one thing named with "and" stays one ask
    for question in (
        "Should I list the pros and cons of cefepime?",
        "Should I check the terms and conditions the client signed?",
        "Should I cite Smith and Jones 2024 in the P&T review?",
        "Should the R&D budget run from 1 March and end 30 April?",
        "Should I recommend cefepime plus metronidazole?",
        "Should I update the tracker too?",
    ):
        assert len(asks_in(question)) == 1, question
        assert screen_questions(question).admissible == [question], question
    # the per-question cap holds per sentence, whatever its asks: three intents in two asks earn none
    assert targeted_by_cues(S05.intents, "Should I count the ADC stock and add the cefepime plan to the shortage reports index too?") == {}


def test_a_turn_cannot_pack_a_survey_into_few_sentences() -> None:
    # three sentences, six asks: each sentence hits one intent and pads with a miss
    reply = (
        "Should I count the ADC stock and add a chart? "
        "Should I list cefepime as well as a glossary? "
        "Should I draft a purchase order, plus a cover page?"
    )
    screen = screen_questions(reply)
    assert screen.admissible == [] and set(screen.rejected.values()) == {Rejection.SURVEY}
    assert targeted_by_cues(S05.intents, reply) == {}
    # four asks chained with "and" in one sentence leave no room for another question
    reply = "Should I update the index and the tracker and the log and the register? Should I add a projection?"
    assert set(screen_questions(reply).rejected.values()) == {Rejection.SURVEY}
    assert targeted_by_cues(S05.intents, reply) == {}


def test_a_list_joined_by_and_is_a_menu_like_a_comma_list() -> None:
    for reply in (
        # five items, two of them intents of the session: "A, B, C, D or E" is a menu, so is "... and E"
        "Should I include the ADC stock, a chart, a glossary, a cover page and the reports index?",
        "Should the report cover the ADC stock and a chart and a glossary and a cover page and the reports index?",
        "Should I include the ADC stock, a chart, a glossary, a cover page plus the reports index?",
    ):
        assert screen_questions(reply).rejected == {reply: Rejection.MENU}, reply
        assert targeted_by_cues(S05.intents, reply) == {}, reply


def test_each_ask_that_earns_nothing_uses_up_patience() -> None:
    misses = [(1, "Should I add a chart to the summary and update the glossary?"), (2, "Should I use a serif font for headings?")]
    assert patience_spent(misses, [])


def test_the_user_s_own_question_repeated_back_is_an_echo_not_a_question() -> None:
    """A parrot that quotes the request's questions in its reply must not earn the intents their words name."""
    heard = ["Pull the June figures. Did Kettle & Pine's recall make it in?"]
    for reply in ("Done. Did Kettle & Pine's recall make it in?", "Noted: did Kettle & Pine's recall make it in?"):
        screen = screen_questions(reply, heard)
        assert screen.admissible == [] and list(screen.rejected.values()) == [Rejection.ECHO], reply
    own = "Should the readout compare Kettle & Pine's recall coverage with Oakline's own mentions in June?"
    assert screen_questions(own, heard).admissible == [own]  # a question of the agent's own that builds on theirs
    assert screen_questions("Did Kettle & Pine's recall make it in?").admissible  # without the user's words: a question
