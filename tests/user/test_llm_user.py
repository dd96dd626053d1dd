"""The LLM user and the rubric judge end to end: real HTTP to a stub model server on loopback.

The stub plays a competent user model by reading the rendered prompts
(``FakeUserModel``, tests/helpers/stub_models.py): an intent counts as
completed when its keyword shows up in the changed files, as targeted when
the latest message asks about it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from proactive_bench.store import IntentEvent, LLMCall, MessageRow, Store
from proactive_bench.testing.stub_server import (
    StubServer,
    prompt_section,
    prompt_text,
)
from tests.helpers.cli import run_cli
from tests.helpers.paths import MINI
from tests.helpers.stub_models import FakeUserModel


def run_llm(tmp_path: Path, fake: FakeUserModel, model: str, *extra: str) -> tuple[Any, StubServer, Path]:
    db = tmp_path / "llm.db"
    with StubServer(fake) as server:
        result = run_cli(
            "episode",
            "--json",
            "--data",
            str(MINI),
            "--persona",
            "mini",
            "--model",
            model,
            "--db",
            str(db),
            "--user",
            "llm",
            "--user-model",
            "openai:stub-user",
            "--base-url",
            server.base_url,
            *extra,
        )
    return result, server, db


def test_reference_agent_completes_everything_and_the_judge_grades_rubric_items(tmp_path: Path) -> None:
    result, server, db = run_llm(tmp_path, FakeUserModel(), "scripted:reference", "--judge-model", "openai:stub-judge")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["proc"] == 1.0 and all(s["completed"] == s["intents"] for s in out["sessions"])
    assert out["comp"] == 1.0 and out["comp_basis"]["ungraded_items"] == 0 and "rubric" in out["comp_basis"]["graders"]
    store = Store(db)
    calls = [row for srun in store.session_runs(out["run_id"]) for row in store.rows(LLMCall, srun.id)]
    assert {(c.role, c.purpose.split(":")[0]) for c in calls} >= {
        ("user", "completion_stage"),
        ("user", "question_stage"),
        ("judge", "rubric"),
    }
    assert all(c.ok and c.prompt_hash for c in calls)
    events = [row for srun in store.session_runs(out["run_id"]) for row in store.rows(IntentEvent, srun.id)]
    assert events and all(e.decided_by == "llm:openai:stub-user" and e.prompt_hash for e in events)
    decisions = [b for b in server.requests if "response_format" in b and "capital of France" not in prompt_text(b)]  # not the probe's
    assert decisions and all(b["response_format"]["type"] == "json_schema" for b in decisions)


def test_questions_are_inferred_and_answered_in_the_persona_voice(tmp_path: Path) -> None:
    result, server, _ = run_llm(tmp_path, FakeUserModel(), "scripted:asker", "--sessions", "a1")
    out = json.loads(result.stdout)
    (session,) = out["sessions"]
    assert (session["inferred"], session["provided"], session["status"]) == (2, 0, "completed")
    reply_prompts = [prompt_text(b) for b in server.requests if "role-playing the user" in prompt_text(b)]
    assert reply_prompts and "answer the assistant's question about" in reply_prompts[0]
    assert "Robin Vale" in reply_prompts[0] and "Short, direct sentences" in reply_prompts[0]


def test_passive_agent_gets_intents_volunteered_most_relevant_first(tmp_path: Path) -> None:
    result, _, db = run_llm(tmp_path, FakeUserModel(), "scripted:passive", "--sessions", "a1")
    out = json.loads(result.stdout)
    (session,) = out["sessions"]
    assert session["provided"] == 2 and session["proc"] == 0.0
    store = Store(db)
    (srun,) = store.session_runs(out["run_id"])
    events = store.rows(IntentEvent, srun.id)
    assert [e.intent_id for e in events] == ["mean", "units"]  # the stub ranks them in reverse order


def test_a_stage_that_never_covers_every_intent_is_an_error_not_a_guess(tmp_path: Path) -> None:
    result, server, db = run_llm(tmp_path, FakeUserModel(drop_findings=True), "scripted:passive", "--sessions", "a1")
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    (session,) = out["sessions"]
    assert (
        session["status"] == "error" and "no valid answer" in session["error"] and session["proc"] == 0.0
    )  # errored work counts as not proactive
    store = Store(db)
    (srun,) = store.session_runs(out["run_id"])
    assert store.rows(IntentEvent, srun.id) == []
    failed = [c for c in store.rows(LLMCall, srun.id) if c.purpose == "completion_stage"]
    assert failed and not any(c.ok for c in failed) and all("missing" in (c.error or "") for c in failed)


def test_a_failed_reply_falls_back_to_the_reveal_sentence_and_is_recorded(tmp_path: Path) -> None:
    result, _, db = run_llm(tmp_path, FakeUserModel(reply_fault=True), "scripted:passive", "--sessions", "a1")
    out = json.loads(result.stdout)
    assert out["sessions"][0]["status"] == "completed"
    store = Store(db)
    (srun,) = store.session_runs(out["run_id"])
    replies = [c for c in store.rows(LLMCall, srun.id) if c.purpose == "reply"]
    assert replies and not any(c.ok for c in replies)
    assert {(c.error or "").split(":")[0] for c in replies} == {"fallback to reveal sentences", "transport retry"}  # each retry recorded
    user_messages = [m.content for m in store.rows(MessageRow, srun.id) if m.role == "user" and m.turn > 0]
    assert "I need the mean in there too." in user_messages


def test_a_judge_that_cannot_answer_leaves_the_item_errored(tmp_path: Path) -> None:
    result, _, _ = run_llm(
        tmp_path, FakeUserModel(judge_fault=True), "scripted:reference", "--sessions", "a1", "--judge-model", "openai:stub-judge"
    )
    out = json.loads(result.stdout)
    (session,) = out["sessions"]
    assert session["comp_basis"]["errored_items"] == 1 and session["comp"] == 1.0  # rule items only; the errored item is not a fail


def _user_messages(db: Path, run_id: str) -> list[str]:
    store = Store(db)
    return [m.content for sr in store.session_runs(run_id) for m in store.rows(MessageRow, sr.id) if m.role == "user" and m.turn > 0]


def test_a_menu_question_targets_nothing_even_for_a_gullible_judge(tmp_path: Path) -> None:
    """The shared pre-filter sets the laundry list aside before the model's findings count."""
    result, server, _ = run_llm(tmp_path, FakeUserModel(gullible=True), "scripted:shotgun", "--sessions", "a1")
    (session,) = json.loads(result.stdout)["sessions"]
    assert (session["inferred"], session["provided"]) == (0, 2)
    question_prompt = next(prompt_text(b) for b in server.requests if "asks a question that targets" in prompt_text(b))
    assert "(none: no question in the latest message can target a requirement)" in question_prompt
    assert "(menu) Before I start: should I include" in question_prompt


def test_generic_questions_target_nothing_even_for_a_gullible_judge(tmp_path: Path) -> None:
    result, _, _ = run_llm(tmp_path, FakeUserModel(gullible=True), "scripted:vague", "--sessions", "a1")
    (session,) = json.loads(result.stdout)["sessions"]
    assert (session["inferred"], session["provided"]) == (0, 2)


def test_a_focused_question_is_inferred_under_the_new_prompt(tmp_path: Path) -> None:
    result, server, db = run_llm(tmp_path, FakeUserModel(gullible=True), "scripted:asker", "--sessions", "a1")
    (session,) = json.loads(result.stdout)["sessions"]
    assert session["inferred"] == 2
    store = Store(db)
    (srun,) = store.session_runs(json.loads(result.stdout)["run_id"])
    from proactive_bench.user.llm import QUESTION_PROMPT

    assert {e.prompt_hash for e in store.rows(IntentEvent, srun.id)} == {QUESTION_PROMPT.hash}
    assert QUESTION_PROMPT.name == "question.v2"


def test_a_claim_only_turn_shows_the_completion_stage_no_work(tmp_path: Path) -> None:
    """Besides the reply, the completion stage's only evidence is the turn's tool calls and file changes."""
    result, server, _ = run_llm(tmp_path, FakeUserModel(), "scripted:claimer", "--sessions", "a1")
    (session,) = json.loads(result.stdout)["sessions"]
    assert session["completed"] == 0
    prompts = [prompt_text(b) for b in server.requests if "already satisfied" in prompt_text(b)]
    assert prompts
    for prompt in prompts:
        assert prompt_section(prompt, "Tool calls in the latest assistant turn").strip() == "(no tool calls)"
        assert prompt_section(prompt, "Files created or changed in the latest turn").strip().startswith("(no files changed)\n\nReturn one")
        assert "I have handled every requirement" in prompt_section(prompt, "Conversation so far")


def test_a_leaking_reply_is_recorded_and_written_again(tmp_path: Path) -> None:
    result, server, db = run_llm(tmp_path, FakeUserModel(leaky=True), "scripted:passive", "--sessions", "a1")
    out = json.loads(result.stdout)
    store = Store(db)
    (srun,) = store.session_runs(out["run_id"])
    assert store.snapshot(srun.id, "burden")["leaks"] == [{"turn": 1, "intents": ["units"]}]
    messages = _user_messages(db, out["run_id"])
    assert "mg/L" not in messages[0]  # the rewritten reply, not the leaking draft
    from proactive_bench.user.llm import REPLY_RETRY_PROMPT

    replies = [c for c in store.rows(LLMCall, srun.id) if c.purpose == "reply"]
    assert [c.prompt_hash == REPLY_RETRY_PROMPT.hash for c in replies].count(True) == 1
    retry_prompts = [prompt_text(b) for b in server.requests if "## Leave out" in prompt_text(b)]
    assert len(retry_prompts) == 1 and "Values are reported in mg/L." in retry_prompts[0]
    summary = json.loads(run_cli("results", out["run_id"], "--db", str(db), "--format", "json").stdout)
    assert summary["burden"][0]["leaks"] == 1


def test_a_reply_that_leaks_again_falls_back_to_the_reveal_sentence(tmp_path: Path) -> None:
    result, server, db = run_llm(tmp_path, FakeUserModel(always_leaky=True), "scripted:passive", "--sessions", "a1")
    out = json.loads(result.stdout)
    assert _user_messages(db, out["run_id"])[0] == "I need the mean in there too."
    store = Store(db)
    (srun,) = store.session_runs(out["run_id"])
    replies = [c for c in store.rows(LLMCall, srun.id) if c.purpose == "reply"]
    fallbacks = [c for c in replies if "leaked again" in (c.error or "")]
    assert fallbacks and all(c.completion_tokens for c in fallbacks)  # the rewrite's own row, with its tokens
    sent = [b for b in server.requests if "role-playing the user" in prompt_text(b)]
    assert len(replies) == len(sent)  # one row per request the server saw: none for a call that did not happen
