"""Odyssey memory settings: documents per granularity, BM25 and embedding retrieval, cached summaries, token counts.

Summaries and embeddings go over real HTTP to the stub server on 127.0.0.1 and
are cached in a real results database.
"""

from __future__ import annotations

import asyncio
import math
import re
from datetime import date
from pathlib import Path
from typing import Any

import httpx2
import pytest

from proactive_bench.llm import ChatSettings, ChatTransport, EmbeddingClient, LLMCallRecord
from proactive_bench.store import Store
from proactive_bench.suites.odyssey import (
    BM25Retriever,
    EmbeddingError,
    EmbeddingRetriever,
    Granularity,
    HistoryDay,
    MemorySettingError,
    OpenAIEmbedder,
    Summarizer,
    SummaryError,
    build_documents,
    memory_context,
    parse_memory_setting,
    render_history,
)
from proactive_bench.suites.odyssey.memory import whole_context
from proactive_bench.suites.odyssey.memory_tokens import ApproxCounter, default_token_counter
from proactive_bench.testing import StubServer, error_reply, hashed_embeddings, prompt_text, text_reply

DAYS = [
    HistoryDay(
        date(2025, 3, 3),
        (
            ("user", "Morning! The espresso machine broke again, what a start."),
            ("assistant", "Sorry to hear that. Anything I can help with?"),
        ),
    ),
    HistoryDay(
        date(2025, 3, 4),
        (
            ("user", "We are comparing three dental supply vendors this month."),
            ("assistant", "Noted, I will keep track of the vendor comparison."),
        ),
    ),
    HistoryDay(
        date(2025, 3, 5),
        (
            ("user", "The vendor memo should go to Priya Raman, she owns the practice."),
            ("assistant", "Got it: the memo is addressed to Priya Raman."),
            ("user", "Also, the weather in Tucson is lovely today."),
        ),
    ),
    HistoryDay(date(2025, 3, 6), (("user", "My daughter's soccer team won on Saturday."), ("assistant", "Congratulations to her team!"))),
    HistoryDay(
        date(2025, 3, 7),
        (("user", "Reminder: budget ceiling for supplies is 4,200 dollars."), ("assistant", "Noted, 4,200 dollars for supplies.")),
    ),
]
INTENT = "Write up the vendor comparison as a memo for Priya."


def summary_responder(body: dict[str, Any]) -> dict[str, Any]:
    """A 'summary' that names the span and repeats the window's first user line, so that it is checkable."""
    prompt = prompt_text(body)
    span = re.search(r"^Days?: (\S+)$", prompt, re.MULTILINE)
    first = re.search(r"^user: (.+)$", prompt, re.MULTILINE)
    assert span and first, prompt
    return text_reply(f"Summary of {span.group(1)}: {first.group(1)}")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "results.db")


def summarizer(server: StubServer, store: Store, records: list[LLMCallRecord] | None = None) -> Summarizer:
    settings = ChatSettings(base_url=server.base_url, max_retries=1, timeout=10)
    return Summarizer("openai:summ", store.answers, settings, records.append if records is not None else None)


async def test_raw_session_documents_are_one_per_day_with_every_turn() -> None:
    docs = await build_documents("t1", DAYS, Granularity.RAW_SESSION)
    assert [d.source for d in docs] == [d.date.isoformat() for d in DAYS]
    assert [d.id for d in docs] == ["s1", "s2", "s3", "s4", "s5"]
    assert "user: The vendor memo should go to Priya Raman" in docs[2].text and "weather in Tucson" in docs[2].text
    assert "\n\n".join(d.text for d in docs) == render_history(DAYS)


async def test_raw_utterance_documents_are_one_per_turn() -> None:
    docs = await build_documents("t1", DAYS, Granularity.RAW_UTTERANCE)
    assert len(docs) == sum(len(d.turns) for d in DAYS) == 11
    assert docs[4].id == "s3u1" and docs[4].source == "2025-03-05 #1"
    assert docs[4].text == "user: The vendor memo should go to Priya Raman, she owns the practice."


async def test_session_summaries_are_made_once_and_served_from_the_database(store: Store) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(summary_responder) as server:
        first = await build_documents("t1", DAYS, Granularity.SUMMARY_SESSION, summarizer(server, store, records))
        assert len(server.requests) == 5
        assert [d.source for d in first] == [d.date.isoformat() for d in DAYS]
        assert first[2].text == "Summary of 2025-03-05: The vendor memo should go to Priya Raman, she owns the practice."
        assert all(r.ok and r.purpose == "memory_summary" and r.prompt_hash and not r.cached for r in records)
        records.clear()
        again = await build_documents("t1", DAYS, Granularity.SUMMARY_SESSION, summarizer(server, store, records))
        assert len(server.requests) == 5, "a second build asks the server nothing"
        assert again == first
        assert len(records) == 5 and all(r.cached for r in records)
        await build_documents("t2", DAYS, Granularity.SUMMARY_SESSION, summarizer(server, store))
        assert len(server.requests) == 10, "another task is summarised on its own"


async def test_chunk_summaries_cover_windows_of_consecutive_days(store: Store) -> None:
    with StubServer(summary_responder) as server:
        docs = await build_documents("t1", DAYS, Granularity.SUMMARY_CHUNK, summarizer(server, store))
    assert [d.source for d in docs] == ["2025-03-03..2025-03-04", "2025-03-05..2025-03-06", "2025-03-07"]
    assert [d.id for d in docs] == ["c1", "c2", "c3"]
    assert "Morning! The espresso machine" in docs[0].text
    assert "2025-03-04" in prompt_text(server.requests[0]) and "dental supply vendors" in prompt_text(server.requests[0])


async def test_a_summary_setting_without_a_summary_model_is_refused() -> None:
    with pytest.raises(MemorySettingError, match=r"^--memory rag:summary-chunk: summaries need a summary model"):
        await memory_context(DAYS, parse_memory_setting("rag:summary-chunk"), INTENT, task_id="t1")


async def test_a_failing_summary_server_raises_and_makes_nothing_up(store: Store) -> None:
    with (
        StubServer(lambda body: error_reply(500, "boom")) as server,
        pytest.raises(SummaryError, match=r"summary of task t1 \(2025-03-03\) by openai:summ failed: .*500"),
    ):
        await build_documents("t1", DAYS, Granularity.SUMMARY_SESSION, summarizer(server, store))
    assert store.answers.keys("odyssey-summaries/t1") == set()


def test_bm25_finds_the_day_holding_the_detail() -> None:
    docs = asyncio.run(build_documents("t1", DAYS, Granularity.RAW_SESSION))
    index = BM25Retriever(docs)
    assert index.retrieve(INTENT, 1)[0].source == "2025-03-05"
    assert index.retrieve("supplies budget ceiling", 1)[0].source == "2025-03-07"
    assert index.search("Priya Raman", 5)[0] == ("2025-03-05", docs[2].text)
    assert index.retrieve("quarterly tax filing", 3) == [], "a query sharing no word finds nothing, not arbitrary days"


async def test_memory_context_per_setting() -> None:
    counter = ApproxCounter()
    long = await memory_context(DAYS, parse_memory_setting("long-context"), INTENT, task_id="t1", counter=counter)
    assert long.text == render_history(DAYS) and long.tokens == math.ceil(len(long.text) / 4) and long.index is None
    assert long.token_counter == "approx-chars/4" and len(long.docs) == 5
    none = await memory_context(DAYS, parse_memory_setting("none"), INTENT, task_id="t1", counter=counter)
    assert (none.text, none.tokens, none.docs, none.index) == ("", 0, (), None)
    rag = await memory_context(DAYS, parse_memory_setting("rag:raw-utterance", 2), INTENT, task_id="t1", counter=counter)
    assert [d.source for d in rag.docs] == ["2025-03-04 #2", "2025-03-05 #1"], "the top 2, given in history order"
    assert "Priya Raman" in rag.text and "espresso" not in rag.text
    assert rag.tokens == counter.count(rag.text) < long.tokens
    assert rag.retriever == "bm25" and rag.index is not None and rag.index.search("budget", 1)[0][0] == "2025-03-07 #1"


async def test_a_context_that_retrieves_nothing_is_made_without_an_event_loop_as_memory_context_makes_it() -> None:
    for label in ("long-context", "none"):
        setting = parse_memory_setting(label)
        assert whole_context(DAYS, setting) == await memory_context(DAYS, setting, INTENT, task_id="t1")
    with pytest.raises(ValueError, match="retrieves"):
        whole_context(DAYS, parse_memory_setting("rag:raw-utterance", 2))


def test_memory_settings_are_parsed_with_one_line_errors() -> None:
    assert parse_memory_setting("rag:summary-session", 10).label == "rag:summary-session@10"
    assert parse_memory_setting("rag:raw-session").top_k == 5
    for text, k, message in [
        ("rag:paragraph", None, "unknown granularity"),
        ("short", None, "unknown setting"),
        ("long-context", 5, "only with a rag: memory setting"),
        ("rag:raw-session", 0, "must be at least 1"),
    ]:
        with pytest.raises(MemorySettingError, match=message) as caught:
            parse_memory_setting(text, k)
        assert "\n" not in str(caught.value)


def test_the_default_token_counter_needs_no_download(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    default_token_counter.cache_clear()
    try:
        counter = default_token_counter()
        assert counter.name == "approx-chars/4" and counter.count("x" * 9) == 3
    finally:
        default_token_counter.cache_clear()


def embedder_on(
    server: StubServer, transport: ChatTransport, store: Store, records: list[LLMCallRecord] | None = None, **options: Any
) -> OpenAIEmbedder:
    """An embedder on the stub's /embeddings that keeps its vectors in ``store``."""
    client = EmbeddingClient(
        "openai:embed",
        transport,
        server.base_url,
        purpose="memory_embedding",
        recorder=records.append if records is not None else None,
        **options,
    )
    return OpenAIEmbedder(client, store.answers)


async def test_embedding_retrieval_over_the_stub_endpoint_is_cached(store: Store) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(summary_responder, embedder=hashed_embeddings) as server:
        async with ChatTransport() as transport:
            docs = await build_documents("t1", DAYS, Granularity.RAW_SESSION)
            index = await EmbeddingRetriever.build(docs, embedder_on(server, transport, store, records))
            assert (await index.retrieve("memo for Priya Raman", 1))[0].source == "2025-03-05"
            assert [len(r["input"]) for r in server.requests] == [5, 1]
            assert server.requests[0]["model"] == "embed"
            again = await EmbeddingRetriever.build(docs, embedder_on(server, transport, store))
            assert (await again.retrieve("memo for Priya Raman", 1))[0].source == "2025-03-05"
    assert len(server.requests) == 2, "documents and the query were embedded before: served from the database"
    assert (
        all(r.ok and r.role == "embedder" and r.purpose == "memory_embedding" and r.model == "openai:embed" for r in records)
        and len(records) == 2
    )


@pytest.mark.parametrize("status", [500, 429])
async def test_an_embedding_server_error_is_retried_and_recorded(store: Store, status: int) -> None:
    calls: list[int] = []

    def flaky(body: dict[str, Any]) -> Any:
        calls.append(1)
        return error_reply(status, "overloaded") if len(calls) == 1 else hashed_embeddings(body)

    records: list[LLMCallRecord] = []
    with StubServer(summary_responder, embedder=flaky) as server:
        async with ChatTransport() as transport:
            vectors = await embedder_on(server, transport, store, records).embed(["vendor memo", "soccer"])
    assert len(calls) == 2 and len(vectors) == 2 and vectors[0] != vectors[1]
    assert (
        [r.ok for r in records] == [False, True]
        and f"{status}" in (records[0].error or "")
        and records[0].error.startswith("transport retry")
    )


async def test_a_search_whose_query_cannot_be_embedded_is_a_failed_tool_call(store: Store) -> None:
    up = {"on": True}

    def until_down(body: dict[str, Any]) -> Any:
        return hashed_embeddings(body) if up["on"] else error_reply(503, "down")

    with StubServer(summary_responder, embedder=until_down) as server:
        async with ChatTransport() as transport:
            docs = await build_documents("t1", DAYS, Granularity.RAW_SESSION)
            index = await EmbeddingRetriever.build(docs, embedder_on(server, transport, store, max_retries=0))
            up["on"] = False
            with pytest.raises(
                ValueError, match="^embeddings from openai:embed at .* failed"
            ):  # the ToolBox reports a ValueError as a failed call
                await index.search("the vendor memo", 3)


async def test_an_embedding_server_that_keeps_failing_is_one_line(store: Store) -> None:
    with StubServer(summary_responder, embedder=lambda body: error_reply(503, "down")) as server:
        async with ChatTransport() as transport:
            embedder = embedder_on(server, transport, store, max_retries=1)
            with pytest.raises(EmbeddingError, match=r"^embeddings from openai:embed at \S+ failed: .*503") as caught:
                await embedder.embed(["x"])
    assert "\n" not in str(caught.value)
    assert len(server.requests) == 2, "one try and one bounded retry"
    assert store.answers.keys(embedder.namespace) == set(), "nothing cached from a failure"


def test_the_stub_server_answers_embeddings_only_when_given_an_embedder() -> None:
    with StubServer(summary_responder) as plain, StubServer(summary_responder, embedder=hashed_embeddings) as embedding:
        assert httpx2.post(f"{plain.base_url}/embeddings", json={"input": ["a"]}).status_code == 404
        answer = httpx2.post(f"{embedding.base_url}/embeddings", json={"input": ["a b", "b a", "c"]}).json()
    vectors = [item["embedding"] for item in answer["data"]]
    assert vectors[0] == vectors[1] != vectors[2] and len(vectors[0]) == 64


async def test_a_summary_chunk_context_retrieves_summaries_and_names_the_prompt(store: Store) -> None:
    with StubServer(summary_responder) as server:
        context = await memory_context(
            DAYS,
            parse_memory_setting("rag:summary-chunk", 1),
            "memo for Priya Raman",
            task_id="t1",
            summarizer=summarizer(server, store),
        )
    assert [d.source for d in context.docs] == ["2025-03-05..2025-03-06"]
    assert (
        context.text
        == "[2025-03-05..2025-03-06]\nSummary of 2025-03-05..2025-03-06: The vendor memo should go to Priya Raman, she owns the practice."
    )
    assert context.summary_prompt_hash is not None and len(context.summary_prompt_hash) == 12 and context.retriever == "bm25"
    assert context.tokens == default_token_counter().count(context.text)


async def test_concurrent_builds_of_one_task_share_one_set_of_summaries(store: Store) -> None:
    """Runs of a sweep summarising the same task at once: no duplicate-row failure, and each summary is asked once per summarizer."""
    with StubServer(summary_responder, delay=0.05) as server:
        shared = summarizer(server, store)
        first, second = await asyncio.gather(
            build_documents("t1", DAYS, Granularity.SUMMARY_CHUNK, shared),
            build_documents("t1", DAYS, Granularity.SUMMARY_CHUNK, shared),
        )
        assert first == second and len(server.requests) == 3
        other, again = await asyncio.gather(  # two summarizers (as in two worker processes) race: both ask, the first answer stays
            build_documents("t2", DAYS, Granularity.SUMMARY_SESSION, summarizer(server, store)),
            build_documents("t2", DAYS, Granularity.SUMMARY_SESSION, summarizer(server, store)),
        )
        assert other == again and len(server.requests) == 13
    store.answers.flush()
    assert len(store.answers.keys("odyssey-summaries/t2")) == 5
