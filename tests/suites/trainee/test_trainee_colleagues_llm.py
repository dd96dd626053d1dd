"""LLM colleagues on the run's model-call path, against the stub server on loopback: judgments, faults, the event loop, replay."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from proactive_bench.llm import ChatTransport, LLMCallRecord, ToolModels
from proactive_bench.store import Grade, LLMCall, Store, ToolCallRow
from proactive_bench.suites.trainee.colleagues_llm import NO_REPLY, ColleagueModelError, LLMColleagues
from proactive_bench.suites.trainee.compose import Scenario, compose_scenario
from proactive_bench.testing import StubServer, error_reply, text_reply
from proactive_bench.testing.stub_server import DROP
from tests.helpers.cli import run_cli, run_episode_json
from tests.suites.trainee.test_trainee_colleagues import MORNING, _box
from tests.suites.trainee.test_trainee_runs import _npc_judge

QUESTION = "What is the payment approval threshold for this month?"


def _scenario() -> tuple[Scenario, str, Any]:
    """A scenario, the id of its first clue and the clue."""
    scenario = compose_scenario("s3-n2", templates=["transaction_audit"])
    task = scenario.days[0].tasks[0]
    clue = task.draft.clues[0]
    return scenario, task.clue_id(1, clue), clue


def _judge(targeted: dict[str, str]) -> Any:
    def answer(body: dict[str, Any]) -> Any:
        return text_reply(json.dumps({"targeted": targeted}))

    return answer


def _bound(scenario: Scenario, server: StubServer, transport: ChatTransport, records: list[LLMCallRecord], **options: Any) -> LLMColleagues:
    return LLMColleagues(scenario, "openai:npc", server.base_url).with_models(ToolModels(transport, records.append, **options))


async def test_llm_colleague_releases_only_what_the_model_quotes_and_the_screen_admits() -> None:
    scenario, clue_id, clue = _scenario()
    records: list[LLMCallRecord] = []
    with StubServer(_judge({clue_id: QUESTION})) as server:
        async with ChatTransport() as transport:
            colleagues = _bound(scenario, server, transport, records)
            got = await colleagues.reply(clue.holder, QUESTION, [], MORNING)
            survey = " ".join(f"What is the {w} threshold policy?" for w in ("travel", "payment", "budget", "hiring", "vendor"))
            laundry = await colleagues.reply(clue.holder, survey, [], MORNING)
            other = await colleagues.reply(scenario.days[0].tasks[0].draft.npcs[1].handle, QUESTION, [], MORNING)  # holds nothing of it
        prompt = server.requests[0]["messages"][0]["content"]
    assert got.released == (clue_id,) and clue.value in got.text and got.decided_by.startswith("llm:openai:npc npc.v1@") and not got.failure
    assert laundry.released == () and other.released == ()
    assert clue.question in prompt and QUESTION in prompt and "Laundry lists" in prompt
    assert len(server.requests) == 1  # the survey and the colleague without open clues never reached the model
    assert [(r.role, r.purpose, r.model, r.ok) for r in records] == [("npc", "clue_judgment", "openai:npc", True)]


async def test_a_model_quoting_a_question_that_was_never_asked_releases_nothing() -> None:
    scenario, clue_id, clue = _scenario()
    with StubServer(_judge({clue_id: "What is the payment approval threshold?"})) as server:  # not what the intern wrote
        async with ChatTransport() as transport:
            got = await _bound(scenario, server, transport, []).reply(clue.holder, "Which approval form do payments need?", [], MORNING)
    assert got.released == () and not got.failure


async def test_a_model_claiming_a_clue_for_a_question_that_does_not_name_its_subject_releases_nothing() -> None:
    """The model judges the kind of fact; the clue's subject cues still gate it: a bare keyword question stays unanswered."""
    scenario, clue_id, clue = _scenario()
    bare = "What is the approval policy threshold?"
    with StubServer(_judge({clue_id: bare})) as server:  # a lenient model: the threshold is a threshold
        async with ChatTransport() as transport:
            got = await _bound(scenario, server, transport, []).reply(clue.holder, bare, [], MORNING)
    assert got.released == () and not got.failure and len(server.requests) == 1


async def test_prose_instead_of_json_is_retried_with_bounds_then_a_recorded_failure_not_a_guess() -> None:
    scenario, _, clue = _scenario()
    records: list[LLMCallRecord] = []
    with StubServer(lambda body: text_reply("Yes, I think they asked about the threshold.")) as server:
        async with ChatTransport() as transport:
            got = await _bound(scenario, server, transport, records).reply(clue.holder, QUESTION, [], MORNING)
    assert got.released == () and got.text == NO_REPLY
    assert (
        got.failure.startswith(f"colleague {clue.holder}: npc clue_judgment: no valid answer from openai:npc after 4 attempt(s)")
        and "\n" not in got.failure
    )
    assert len(server.requests) == 4 and [r.ok for r in records] == [False] * 4 and {r.role for r in records} == {"npc"}


@pytest.mark.parametrize("fault", ["500", "drop"])
async def test_a_server_fault_is_retried_and_the_judgment_then_made(fault: str) -> None:
    scenario, clue_id, clue = _scenario()
    answers = [error_reply(500, "upstream crashed") if fault == "500" else DROP]

    def flaky(body: dict[str, Any]) -> Any:
        return answers.pop() if answers else text_reply(json.dumps({"targeted": {clue_id: QUESTION}}))

    records: list[LLMCallRecord] = []
    with StubServer(flaky) as server:
        async with ChatTransport() as transport:
            got = await _bound(scenario, server, transport, records).reply(clue.holder, QUESTION, [], MORNING)
    assert got.released == (clue_id,) and len(server.requests) == 2
    assert [r.ok for r in records] == [False, True] and (records[0].error or "").startswith("transport retry")


async def test_a_model_that_times_out_every_time_gives_a_recorded_failure_after_bounded_attempts() -> None:
    scenario, _, clue = _scenario()
    records: list[LLMCallRecord] = []
    with StubServer(_judge({}), delay=0.5) as server:
        async with ChatTransport() as transport:
            got = await _bound(scenario, server, transport, records, timeout=0.1, max_retries=0).reply(clue.holder, QUESTION, [], MORNING)
    assert got.released == () and "transient" in got.failure and "APITimeoutError" in got.failure
    assert len(server.requests) == 3 and len(records) == 3  # one try and the two transient retries of the policy


def test_unbound_llm_colleagues_refuse_to_answer_outside_a_run() -> None:
    scenario, _, clue = _scenario()
    with pytest.raises(ColleagueModelError, match="only inside a run"):
        asyncio.run(LLMColleagues(scenario, "openai:npc").reply(clue.holder, QUESTION, [], MORNING))


async def test_the_chat_tool_awaits_the_model_without_blocking_the_loop_and_records_a_failure(tmp_path: Path) -> None:
    scenario, _, clue = _scenario()
    with StubServer(lambda body: text_reply("not json"), delay=0.2) as server:
        async with ChatTransport() as transport:
            box = _box(tmp_path, _bound(scenario, server, transport, []))
            with box.env.require_apps().db() as db:
                db.connection().exec_driver_sql(
                    f"INSERT INTO chat_contact (handle, name, role, department, email) VALUES ('{clue.holder}', 'Holder', '', '', '')"
                )
            ticks = 0

            async def tick() -> None:
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.02)
                    ticks += 1

            ticker = asyncio.ensure_future(tick())
            record = await box.acall("chat__send_message", {"to": clue.holder, "text": QUESTION})
            ticker.cancel()
            blocked = box.call("chat__send_message", {"to": clue.holder, "text": QUESTION})
    assert ticks >= 10, "the event loop ran other work while the colleague's model was asked"
    assert record.ok and record.result["response"]["reply"] == NO_REPLY and "no valid answer" in record.result["response"]["failure"]
    rows = box.env.require_apps().rows("chat_message")
    assert [r["direction"] for r in rows] == ["out", "in"] and rows[1]["released"] == [] and " failed: colleague " in rows[1]["decided_by"]
    assert not blocked.ok and "await tools.acall" in blocked.result["error"]


def test_an_llm_colleague_run_replays_from_its_record_without_the_server(tmp_path: Path) -> None:
    db = tmp_path / "pbench.db"
    with StubServer(_npc_judge) as server:
        recorded = run_episode_json(
            "--suite",
            "trainee",
            "--model",
            "scripted:reference",
            "--task",
            "s6-n3",
            "--npc",
            "llm",
            "--npc-model",
            "openai:npc",
            "--base-url",
            server.base_url,
            "--no-probe",
            "--db",
            str(db),
        )
        asked = len(server.requests)
    first = recorded["runs"][0]["run_id"]
    replayed = run_cli("replay", first, "--db", str(db), "--json")  # the server is gone: every judgment comes from the record
    assert replayed.exit_code == 0, replayed.output
    again = json.loads(replayed.stdout)
    store = Store(db)

    def npc_calls(run_id: str) -> list[LLMCall]:
        return [c for c in store.llm_calls(run_id) if c.role == "npc"]

    def replies(run_id: str) -> list[tuple[str, str, bool]]:
        calls = [c for sr in store.session_runs(run_id) for c in store.rows(ToolCallRow, sr.id) if c.tool_name == "chat__send_message"]
        return [(c.call["to"], c.result["response"]["reply"], c.ok) for c in calls]

    assert asked > 0 and len(npc_calls(first)) == asked and all(c.ok and not c.cached for c in npc_calls(first))
    assert [(r["role"], r["calls"], r["cached"]) for r in recorded["cost"]] == [("npc", asked, 0)]  # in the run's cost ledger
    assert len(npc_calls(again["run_id"])) == asked and all(c.cached for c in npc_calls(again["run_id"]))
    assert replies(again["run_id"]) == replies(first) and replies(first)
    grades = {
        rid: [(g.item_id, g.score) for sr in store.session_runs(rid) for g in store.rows(Grade, sr.id)] for rid in (first, again["run_id"])
    }
    assert grades[first] == grades[again["run_id"]] and grades[first] and again["comp"] == recorded["runs"][0]["comp"] == 1.0


def test_a_run_whose_colleague_model_answers_prose_records_failed_replies_and_releases_nothing(tmp_path: Path) -> None:
    db = tmp_path / "pbench.db"
    with StubServer(lambda body: text_reply("Sure, happy to help with that!")) as server:
        summary = run_episode_json(
            "--suite",
            "trainee",
            "--model",
            "scripted:reference",
            "--task",
            "s6-n3",
            "--npc",
            "llm",
            "--npc-model",
            "openai:npc",
            "--base-url",
            server.base_url,
            "--no-probe",
            "--db",
            str(db),
        )
    run_id = summary["runs"][0]["run_id"]
    store = Store(db)
    (session,) = store.session_runs(run_id)
    sent = [c.result["response"] for c in store.rows(ToolCallRow, session.id) if c.tool_name == "chat__send_message"]
    failed = [r for r in sent if "failure" in r]  # the questions; statements are deflected without asking the model
    assert failed and all(r["reply"] == NO_REPLY and "no valid answer" in r["failure"] for r in failed)
    replies = [r for r in (store.snapshot(session.id, "apps") or {})["chat_message"] if r["direction"] == "in"]
    assert all(r["released"] == [] for r in replies) and sum(" failed: colleague " in r["decided_by"] for r in replies) == len(failed)
    npc = [c for c in store.llm_calls(run_id) if c.role == "npc"]
    assert not any(c.ok for c in npc) and len(npc) == 4 * len(failed)
    assert summary["trainee"]["overall"][0]["clues_asked"] == 0.0  # the script knows the values; no colleague gave one
