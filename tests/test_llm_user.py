"""The LLM user and the rubric judge end to end: real HTTP to a stub model server on loopback.

The stub plays a competent user model by reading the rendered prompts: an
intent counts as completed when its keyword shows up in the changed files,
as targeted when the latest message asks about it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from proactive_bench.store import IntentEvent, LLMCall, MessageRow, Store
from proactive_bench.stub_server import (
    Reply,
    StubServer,
    error_reply,
    open_requirement_ids,
    prompt_section,
    prompt_text,
    structured_reply,
    text_reply,
)

from conftest import MINI, run_cli

DONE_WHEN = {"units": "mg/L", "mean": "mean", "same_units": "mg/L", "memo": "memory_write"}
ASKED_WHEN = {"units": "unit", "mean": "mean", "same_units": "unit", "memo": "memory"}


class FakeUserModel:
    """Answers stage, reply and rubric prompts; knobs let a test break one kind of call."""

    def __init__(self, drop_findings: bool = False, reply_fault: bool = False, judge_fault: bool = False) -> None:
        self.drop_findings = drop_findings
        self.reply_fault = reply_fault
        self.judge_fault = judge_fault

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = prompt_text(body)
        if "already satisfied" in prompt:
            changed = prompt_section(prompt, "Files created or changed in the latest turn") + prompt_section(prompt, "Tool calls in the latest assistant turn")
            ids = open_requirement_ids(prompt)[: -1 if self.drop_findings else None]
            findings = [{"intent_id": i, "completed": DONE_WHEN.get(i, "\0") in changed, "evidence": "in the file"} for i in ids]
            return structured_reply(body, {"findings": findings})
        if "asks a question that targets" in prompt:
            latest = prompt_section(prompt, "The assistant's latest message")
            questions = [q for q in re.split(r"(?<=\?)\s*", latest) if q.endswith("?")]
            findings = []
            for i in open_requirement_ids(prompt):
                hit = next((q for q in questions if ASKED_WHEN.get(i, "\0") in q.lower()), "")
                findings.append({"intent_id": i, "targeted": bool(hit), "question": hit})
            return structured_reply(body, {"findings": findings, "relevance_order": list(reversed(open_requirement_ids(prompt)))})
        if "role-playing the user" in prompt:
            if self.reply_fault:
                return error_reply(500, "reply model down")
            return text_reply("Sure, " + prompt_section(prompt, "What to convey").strip().splitlines()[0].split(": ", 1)[1])
        if "grading an AI assistant" in prompt:
            if self.judge_fault:
                return text_reply("I think it is fine.")
            verdict = "YES" if "Batch summary" in prompt_section(prompt, "Files") else "NO"
            return structured_reply(body, {"rationale": "checked the file", "verdict": verdict})
        return error_reply(400, "unexpected prompt")


def run_llm(tmp_path: Path, fake: FakeUserModel, model: str, *extra: str) -> tuple[Any, StubServer, Path]:
    db = tmp_path / "llm.db"
    with StubServer(fake) as server:
        result = run_cli(
            "episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", model, "--db", str(db),
            "--user", "llm", "--user-model", "openai:stub-user", "--base-url", server.base_url, *extra,
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
    assert {(c.role, c.purpose.split(":")[0]) for c in calls} >= {("user", "completion_stage"), ("user", "question_stage"), ("judge", "rubric")}
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
    assert session["status"] == "error" and "no valid answer" in session["error"] and session["proc"] == 0.0  # errored work counts as not proactive
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
    result, _, _ = run_llm(tmp_path, FakeUserModel(judge_fault=True), "scripted:reference", "--sessions", "a1", "--judge-model", "openai:stub-judge")
    out = json.loads(result.stdout)
    (session,) = out["sessions"]
    assert session["comp_basis"]["errored_items"] == 1 and session["comp"] == 1.0  # rule items only; the errored item is not a fail
