"""Model calls made from inside tools: the embeddings client on the run's path, and odyssey runs whose search_history embeds its queries.

Everything goes over real HTTP to the stub server on 127.0.0.1, into a real results database.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.rate_limiters import InMemoryRateLimiter

from proactive_bench.campaign.sweep import SweepConfigError, validate_sweep_config
from proactive_bench.llm import CallCache, ChatTransport, EmbeddingClient, EmbeddingsError, LLMCallRecord, ToolModels
from proactive_bench.llm.cache import ReplayMissError
from proactive_bench.store import Store, ToolCallRow
from proactive_bench.testing import StubServer, embedding_reply, error_reply, hashed_embeddings, text_reply
from proactive_bench.testing.stub_server import tool_call_reply
from tests.helpers.cli import run_cli
from tests.helpers.paths import ODYSSEY_MINI

TASK = "od_test_vendor_memo"
QUERY = "who should the vendor memo go to"


async def test_embeddings_are_recorded_then_replayed_without_the_server(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    records: list[LLMCallRecord] = []
    with StubServer(lambda body: text_reply("unused"), embedder=hashed_embeddings) as server:
        async with ChatTransport() as transport:
            live = CallCache(store.answers, "run-a")
            live.begin_session("s1")
            client = ToolModels(transport, records.append, live).embeddings("openai:embed", server.base_url)
            first = await client.embed(["vendor memo", "soccer"])
            live.flush()
        url = server.base_url
    assert len(server.requests) == 1 and server.requests[0] == {"model": "embed", "input": ["vendor memo", "soccer"]}
    async with ChatTransport() as transport:  # the server is gone
        replay = CallCache(store.answers, "run-b", "replay", "run-a")
        replay.begin_session("s1")
        client = ToolModels(transport, records.append, replay).embeddings("openai:embed", url)
        assert await client.embed(["vendor memo", "soccer"]) == first
        with pytest.raises(ReplayMissError, match="no recorded answer"):
            await client.embed(["a text never embedded"])
    assert [(r.role, r.method, r.ok, r.cached) for r in records] == [
        ("embedder", "embeddings", True, False),
        ("embedder", "embeddings", True, True),
    ]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (embedding_reply([[0.1, 0.2]]), "asked for 2 vector"),
        (embedding_reply([[0.1, 0.2], []]), "an empty or non-numeric vector"),
        (embedding_reply([[0.1, 0.2], ["x", "y"]]), "an empty or non-numeric vector"),
        ({"object": "list"}, "asked for 2 vector"),
    ],
)
async def test_an_answer_without_one_good_vector_per_text_is_an_error_not_an_empty_result(answer: dict[str, Any], reason: str) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(lambda body: text_reply("unused"), embedder=lambda body: answer) as server:
        async with ChatTransport() as transport:
            client = EmbeddingClient("openai:embed", transport, server.base_url, recorder=records.append)
            with pytest.raises(
                EmbeddingsError, match=f"^embeddings from openai:embed at {server.base_url}/embeddings failed: ValueError: {reason}"
            ):
                await client.embed(["one", "two"])
    assert [(r.ok, r.role) for r in records] == [(False, "embedder")]


def test_a_tool_model_shares_the_run_limiter_only_on_the_run_endpoint() -> None:
    limiter = InMemoryRateLimiter(requests_per_second=5)
    models = ToolModels(ChatTransport(), rate_limiter=limiter, base_url="http://127.0.0.1:1/v1")
    assert models.embeddings("openai:e", "http://127.0.0.1:1/v1").rate_limiter is limiter
    assert models.embeddings("openai:e", "http://127.0.0.1:2/v1").rate_limiter is None
    assert models.chat("openai:npc", "http://127.0.0.1:1/v1").rate_limiter is limiter


def _searching_agent(body: dict[str, Any]) -> dict[str, Any]:
    """A react agent that searches the history once, then answers."""
    if body["messages"][-1]["role"] == "tool":
        return text_reply("Done: I found it in our history.")
    return tool_call_reply([("search_history", {"query": QUERY, "k": 1})])


def _episode(db: Path, base_url: str) -> Any:
    return run_cli(
        "episode",
        "--json",
        "--suite",
        "odyssey",
        "--task",
        TASK,
        "--memory",
        "rag:raw-session",
        "--top-k",
        "1",
        "--embedding-model",
        "openai:embed",
        "--model",
        "openai:agent",
        "--base-url",
        base_url,
        "--no-probe",
        "--data",
        str(ODYSSEY_MINI),
        "--db",
        str(db),
    )


def _searches(store: Store, run_id: str) -> list[ToolCallRow]:
    return [c for sr in store.session_runs(run_id) for c in store.rows(ToolCallRow, sr.id) if c.tool_name == "search_history"]


def test_an_odyssey_run_with_embeddings_records_the_query_and_replays_it_without_the_server(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with StubServer(_searching_agent, embedder=hashed_embeddings) as server:
        result = _episode(db, server.base_url)
        embedded = [r["input"] for r in server.requests if "input" in r]
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["runs"][0]["run_id"]
    # when the task loads: the documents, then the intent that picks the top-k; in the session: the agent's query
    assert len(embedded) == 3 and len(embedded[0]) > 1 and len(embedded[1]) == 1 and embedded[2] == [QUERY]
    store = Store(db)
    (search,) = _searches(store, run_id)
    assert search.ok and search.result["response"].startswith("[")
    (call,) = [c for c in store.llm_calls(run_id) if c.role == "embedder"]
    assert call.ok and call.purpose == "history_search" and call.model == "openai:embed" and not call.cached
    replayed = run_cli("replay", run_id, "--db", str(db), "--json")  # the server is stopped
    assert replayed.exit_code == 0, replayed.output
    again = json.loads(replayed.stdout)["run_id"]
    assert [(c.call, c.result, c.ok) for c in _searches(store, again)] == [(search.call, search.result, search.ok)]
    (served,) = [c for c in store.llm_calls(again) if c.role == "embedder"]
    assert served.ok and served.cached
    assert store.run(again).config["suite_settings"]["embedding_model"] == "openai:embed"


def test_an_embeddings_endpoint_failing_at_search_time_fails_the_search_clearly_and_is_recorded(tmp_path: Path) -> None:
    db = tmp_path / "r.db"

    def documents_only(body: dict[str, Any]) -> Any:
        return error_reply(500, "embedding worker crashed") if body["input"] == [QUERY] else hashed_embeddings(body)

    with StubServer(_searching_agent, embedder=documents_only) as server:
        result = _episode(db, server.base_url)
    assert result.exit_code == 0, result.output
    run_id = json.loads(result.stdout)["runs"][0]["run_id"]
    store = Store(db)
    (search,) = _searches(store, run_id)
    assert not search.ok and search.result["error"].startswith("embeddings from openai:embed at ") and "500" in search.result["error"]
    calls = [c for c in store.llm_calls(run_id) if c.role == "embedder"]
    assert calls and not any(c.ok for c in calls) and len(calls) <= 4  # bounded: a repeated 500 is not retried again


def test_the_embedding_model_goes_with_a_retrieval_memory_setting(tmp_path: Path) -> None:
    result = run_cli(
        "episode",
        "--suite",
        "odyssey",
        "--task",
        TASK,
        "--memory",
        "long-context",
        "--embedding-model",
        "openai:embed",
        "--model",
        "scripted:reference",
        "--data",
        str(ODYSSEY_MINI),
        "--db",
        str(tmp_path / "r.db"),
    )
    assert result.exit_code == 2 and "--embedding-model goes with a rag:* memory setting" in result.output


def test_a_sweep_gives_the_embedding_model_to_its_retrieval_settings_only() -> None:
    config = validate_sweep_config(
        {
            "models": ["scripted:reference"],
            "suite": "odyssey",
            "memory": ["long-context", "rag:raw-session"],
            "embedding_model": "openai:embed",
        },
        "flags",
    )
    assert [(s.value("memory"), s.value("embedding_model")) for s in config.settings()] == [
        ("long-context", None),
        ("rag:raw-session", "openai:embed"),
    ]
    with pytest.raises(SweepConfigError, match="--embedding-model goes with a rag"):
        validate_sweep_config(
            {"models": ["scripted:reference"], "suite": "odyssey", "memory": ["none"], "embedding_model": "openai:embed"}, "flags"
        )
