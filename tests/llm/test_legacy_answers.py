"""Answers recorded before request keys (LangChain's dump of the prompt as the key, of the generations as the answer) still
replay and resume: a run recorded by main at 8d14950, and a session recorded through LangChain's cache path."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI

from proactive_bench.llm import CallCache
from proactive_bench.llm.cache import REQUEST_KEY_PREFIX, ReplayMissError
from proactive_bench.llm.ledger import is_cached
from proactive_bench.llm.models import ChatSettings, make_chat_model
from proactive_bench.llm.transport import ChatTransport
from proactive_bench.store import Grade, IntentEvent, LLMCall, Store
from proactive_bench.testing.stub_server import StubServer, text_reply
from tests.helpers.cli import run_cli
from tests.helpers.paths import LEGACY_DBS, MINI

LEGACY = LEGACY_DBS / "main-8d14950.db.gz"
"""``pbench episode --data tests/data/mini --persona mini --model openai:agent`` on the stub models of
tests/episode/test_resume_replay.py (react agent, LLM user and judge), recorded by main at 8d14950."""
LEGACY_RUN = "1cdfc6b8b6f8"


def legacy_copy(tmp_path: Path) -> Path:
    """The legacy database, its run pointed at this checkout's mini dataset and a workspace under ``tmp_path``."""
    db = tmp_path / "legacy.db"
    db.write_bytes(gzip.decompress(LEGACY.read_bytes()))
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE run SET data_root = ?, workspace = ?, config = json_set(config, '$.data_root', ?) WHERE id = ?",
            (str(MINI), str(tmp_path / "workspace"), str(MINI), LEGACY_RUN),
        )
    return db


def decisions(store: Store, run_id: str) -> list[tuple[object, ...]]:
    """Each session's outcome, grades and intent labels."""
    found: list[tuple[object, ...]] = []
    for session_run in store.session_runs(run_id):
        grades = [(g.item_id, g.score, g.rationale) for g in store.rows(Grade, session_run.id)]
        labels = [(e.intent_id, e.status, e.turn) for e in store.rows(IntentEvent, session_run.id)]
        found.append((session_run.session_id, session_run.status, session_run.turns, grades, labels))
    return found


def test_a_run_recorded_before_request_keys_replays_with_identical_decisions(tmp_path: Path) -> None:
    db = legacy_copy(tmp_path)
    with sqlite3.connect(db) as conn:
        keys = [key for (key,) in conn.execute("SELECT key FROM modelcall_cache")]
    assert keys and not any(key.startswith(REQUEST_KEY_PREFIX) for key in keys)  # the old form only
    replayed = run_cli("replay", LEGACY_RUN, "--db", str(db), "--json")
    assert replayed.exit_code == 0, replayed.output
    again = json.loads(replayed.stdout)["run_id"]
    store = Store(db)
    recorded = decisions(store, LEGACY_RUN)
    assert [d[1] for d in recorded] == ["completed"] * 3 and any(d[3] for d in recorded)
    assert decisions(store, again) == recorded
    calls = [c for sr in store.session_runs(again) for c in store.rows(LLMCall, sr.id)]
    assert len(calls) >= len(keys) and all(c.cached for c in calls)
    assert [sr.status for sr in store.session_runs(again)] == [sr.status for sr in store.session_runs(LEGACY_RUN)]


async def test_a_session_recorded_the_old_way_resumes_and_replays_keyed_the_old_way(tmp_path: Path) -> None:
    """A session with old-form answers (here through LangChain's cache path, as every transport call was recorded before
    request keys) is served them on resume, records its new calls the same way, and replays whole."""
    store = Store(tmp_path / "c.db")
    question, follow_up = [HumanMessage("What is on the list?")], [HumanMessage("And for tomorrow?")]
    replies = iter([text_reply("Milk."), text_reply("Bread.")])
    with StubServer(lambda body: next(replies)) as server:
        before = CallCache(store.answers, "run", fresh=True)
        before.begin_session("s1")
        old = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, max_retries=0, cache=before))
        assert isinstance(old, ChatOpenAI) and old.cache is before  # the SDK path: LangChain's cache keys and stores the old way
        assert (await old.ainvoke(question)).content == "Milk."
        before.flush()
        async with ChatTransport() as transport:
            resumed = CallCache(store.answers, "run")
            resumed.begin_session("s1")
            model = make_chat_model(
                "openai:stub", ChatSettings(base_url=server.base_url, max_retries=0, cache=resumed, transport=transport)
            )
            served = await model.ainvoke(question)
            made = await model.ainvoke(follow_up)
            resumed.flush()
            assert resumed.legacy and is_cached(served) and served.content == "Milk."
            assert made.content == "Bread." and not is_cached(made) and len(server.requests) == 2
            keys = store.answers.keys("run/s1")
            assert len(keys) == 2 and not any(key.startswith(REQUEST_KEY_PREFIX) for key, _ in keys)
            replay = CallCache(store.answers, "again", "replay", "run", fresh=True)
            replay.begin_session("s1")
            model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, max_retries=0, cache=replay, transport=transport))
            assert [(await model.ainvoke(q)).content for q in (question, follow_up)] == ["Milk.", "Bread."]
            with pytest.raises(ReplayMissError):
                await model.ainvoke(question)  # a third call was never recorded
    assert len(server.requests) == 2


async def test_a_new_session_keys_transport_calls_by_request_and_stores_the_servers_answer(tmp_path: Path) -> None:
    store = Store(tmp_path / "c.db")
    question = [HumanMessage("What is on the list?")]
    with StubServer(lambda body: text_reply("Milk.")) as server:
        async with ChatTransport() as transport:
            cache = CallCache(store.answers, "run", fresh=True)
            cache.begin_session("s1")
            model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, max_retries=0, cache=cache, transport=transport))
            live = await model.ainvoke(question)
            cache.flush()
            replay = CallCache(store.answers, "again", "replay", "run", fresh=True)
            replay.begin_session("s1")
            model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, max_retries=0, cache=replay, transport=transport))
            served = await model.ainvoke(question)
    ((key, _),) = store.answers.keys("run/s1")
    assert key.startswith(REQUEST_KEY_PREFIX) and not cache.legacy
    assert json.loads(store.answers.generations("run/s1", key, 0) or "")["choices"][0]["message"]["content"] == "Milk."
    assert served.content == live.content and served.usage_metadata == live.usage_metadata and is_cached(served)
    assert len(server.requests) == 1
