"""One classification of failed calls, the same for the transport, structured output and the probe (real HTTP on loopback)."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai
import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

import proactive_bench.llm.transport as transport_module
from proactive_bench.llm.faults import MalformedBodyError
from proactive_bench.llm.ledger import LLMCallRecord
from proactive_bench.llm.models import ChatSettings, make_chat_model
from proactive_bench.llm.probe import probe
from proactive_bench.llm.retry_log import listen, unlisten
from proactive_bench.llm.structured import RetryPolicy, StructuredCaller
from proactive_bench.llm.transport import ChatTransport
from proactive_bench.testing.stub_server import ENDLESS, Reply, StubServer, error_reply, requested_format, text_reply
from proactive_bench.testing.stub_zoo import huge_body, plausible_model, with_quirk

QUESTION = [HumanMessage("What is on the shopping list?")]

TRANSIENT = [
    (503, "tool server overloaded, try again"),
    (502, "bad gateway from the function router"),
    (504, "upstream timed out while calling tools"),
    (429, "too many tool calls per minute"),
]
REJECTED = [
    (400, "tools are not supported by this model"),
    (422, "function calling is not available"),
    (500, "tool_choice is not supported"),
    (405, "tools: method not allowed"),
]


class Answer(BaseModel):
    answer: str


@pytest.fixture
async def transport() -> AsyncIterator[ChatTransport]:
    async with ChatTransport() as opened:
        yield opened


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(transport_module, "retry_delay", lambda exc, attempt: 0.0)
    yield


def faulty_tools(status: int, message: str, times: int | None = None) -> Any:
    """A plausible model that answers requests carrying tools with the error (the first ``times`` of them; None: always)."""
    count = itertools.count()

    def respond(body: dict[str, Any]) -> Reply:
        if requested_format(body) == "tools" and (times is None or next(count) < times):
            return error_reply(status, message)
        return plausible_model(body)

    return respond


@pytest.mark.parametrize(("status", "message"), TRANSIENT)
async def test_overload_naming_a_feature_is_retried_by_the_transport(transport: ChatTransport, status: int, message: str) -> None:
    with StubServer(lambda body: error_reply(status, message)) as server:
        model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, transport=transport, max_retries=2, timeout=5))
        with pytest.raises(openai.APIStatusError):
            await model.bind_tools([Answer]).ainvoke(QUESTION)
    assert len(server.requests) == 3  # every retry used


@pytest.mark.parametrize(("status", "message"), REJECTED)
async def test_a_rejection_naming_a_feature_is_not_retried(transport: ChatTransport, status: int, message: str) -> None:
    with StubServer(lambda body: error_reply(status, message)) as server:
        model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, transport=transport, max_retries=2, timeout=5))
        with pytest.raises(openai.APIStatusError):
            await model.bind_tools([Answer]).ainvoke(QUESTION)
    assert len(server.requests) == 1


@pytest.mark.parametrize(("status", "message", "kept"), [(s, m, True) for s, m in TRANSIENT] + [(s, m, False) for s, m in REJECTED])
async def test_structured_output_abandons_a_method_only_on_a_rejection(
    transport: ChatTransport, status: int, message: str, kept: bool
) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(faulty_tools(status, message, times=1)) as server:
        model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, transport=transport, max_retries=0, timeout=5))
        caller = StructuredCaller(
            model, "stub", "judge", records.append, RetryPolicy(backoff_s=0.0), methods=("function_calling", "json_mode")
        )
        result = await caller.call(Answer, [HumanMessage("grade this")], "test")
    assert result.method == ("function_calling" if kept else "json_mode")
    assert ("function_calling" in caller.methods) is kept
    assert [r.ok for r in records] == [False, True]


@pytest.mark.parametrize(
    ("status", "message", "outcome"), [(s, m, "failed") for s, m in TRANSIENT] + [(s, m, "rejected") for s, m in REJECTED]
)
async def test_the_probe_calls_a_feature_rejected_only_on_a_rejection(
    transport: ChatTransport, status: int, message: str, outcome: str
) -> None:
    with StubServer(faulty_tools(status, message)) as server:
        report = await probe(transport, server.base_url, "stub", "key", timeout=5)
    assert report.outcome("function_calling") == outcome and report.outcome("plain chat") == "supported"
    assert (outcome == "rejected") == ("function_calling" not in report.structured_methods())


@pytest.mark.parametrize("reply", [ENDLESS, huge_body()], ids=["endless", "50MB"])
async def test_an_oversized_body_is_cut_and_retried_not_read_to_the_timeout(reply: Reply, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBENCH_MAX_RESPONSE_BYTES", str(2**20))
    replies = iter([reply])
    retries: list[str] = []
    token = listen(lambda error, latency_ms: retries.append(error))
    try:
        async with ChatTransport() as transport:
            with StubServer(lambda body: next(replies, None) or text_reply("fine")) as server:
                model = make_chat_model(
                    "openai:stub", ChatSettings(base_url=server.base_url, transport=transport, max_retries=1, timeout=20)
                )
                started = transport_module.time.perf_counter()
                answer = await model.ainvoke(QUESTION)
                elapsed = transport_module.time.perf_counter() - started
    finally:
        unlisten(token)
    assert answer.content == "fine" and len(server.requests) == 2
    assert len(retries) == 1 and "MalformedBodyError" in retries[0] and "cap" in retries[0]
    assert elapsed < 5  # cut at the cap, not read until the 20 s timeout


async def test_a_body_over_the_cap_every_time_is_a_malformed_body_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBENCH_MAX_RESPONSE_BYTES", "4096")
    async with ChatTransport() as transport:
        assert transport.max_response_bytes == 4096
        with StubServer(lambda body: huge_body(10_000)) as server:
            model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, transport=transport, max_retries=2, timeout=5))
            with pytest.raises(MalformedBodyError, match="4096-byte cap"):
                await model.ainvoke(QUESTION)
    assert len(server.requests) == 3


def test_a_bad_cap_setting_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBENCH_MAX_RESPONSE_BYTES", "8MB")
    with pytest.raises(ValueError, match="PBENCH_MAX_RESPONSE_BYTES: expected a positive whole number of bytes, got '8MB'"):
        ChatTransport()


async def test_structured_calls_record_an_endless_body_and_still_get_their_answer() -> None:
    records: list[LLMCallRecord] = []
    async with ChatTransport(max_response_bytes=2**20) as transport:
        with StubServer(with_quirk(plausible_model, "endless-body", every=2)) as server:
            model = make_chat_model("openai:stub", ChatSettings(base_url=server.base_url, transport=transport, max_retries=1, timeout=20))
            caller = StructuredCaller(model, "stub", "judge", records.append, RetryPolicy(backoff_s=0.0))
            for _ in range(2):
                assert (await caller.call(Answer, [HumanMessage("grade this")], "test")).value == Answer(answer="ok")
    failed = [r for r in records if not r.ok]
    assert len(failed) == 1 and "cap" in (failed[0].error or "")
