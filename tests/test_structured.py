"""Structured output against servers with different capabilities and faults (real HTTP on loopback)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import BaseModel

from proactive_bench.llm.ledger import LLMCallRecord
from proactive_bench.llm.models import make_chat_model
from proactive_bench.llm.transport import ChatTransport
from proactive_bench.llm.structured import RetryPolicy, StructuredCaller, StructuredOutputError
from proactive_bench.stub_server import Reply, StubServer, error_reply, requested_format, structured_reply, text_reply
from langchain_core.messages import HumanMessage

FAST = RetryPolicy(max_attempts=6, attempts_per_method=2, backoff_s=0.0)
GOOD = {"label": "ok", "score": 3}


class Answer(BaseModel):
    label: str
    score: int


@pytest.fixture(params=["sdk", "transport"])
async def transport(request: pytest.FixtureRequest) -> AsyncIterator[ChatTransport | None]:
    """Every test runs over the OpenAI SDK's client and over the run's lean transport."""
    if request.param == "sdk":
        yield None
        return
    async with ChatTransport() as opened:
        yield opened


def caller(server: StubServer, records: list[LLMCallRecord], transport: ChatTransport | None, policy: RetryPolicy = FAST) -> StructuredCaller:
    model = make_chat_model("openai:stub", base_url=server.base_url, max_retries=0, timeout=5, transport=transport)
    return StructuredCaller(model, "stub", "judge", records.append, policy)


async def ask(c: StructuredCaller, **kwargs: Any) -> Any:
    return await c.call(Answer, [HumanMessage("grade this")], "test", prompt_hash="abc", **kwargs)


def only(*formats: str, payload: dict[str, Any] = GOOD) -> Any:
    """A server that supports only the given request formats and rejects the others with 400."""

    def respond(body: dict[str, Any]) -> Reply:
        if requested_format(body) not in formats:
            return error_reply(400, f"response format {requested_format(body)} is not supported")
        return structured_reply(body, payload)

    return respond


async def test_json_schema_server_answers_in_one_attempt(transport: ChatTransport | None) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(only("json_schema")) as server:
        result = await ask(caller(server, records, transport))
    assert result.value == Answer(label="ok", score=3)
    assert (result.method, result.attempts) == ("json_schema", 1)
    assert server.requests[0]["response_format"]["type"] == "json_schema"
    assert [(r.method, r.ok, r.prompt_hash) for r in records] == [("json_schema", True, "abc")]


async def test_server_without_json_schema_falls_back_to_tools_and_remembers(transport: ChatTransport | None) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(only("tools")) as server:
        c = caller(server, records, transport)
        first = await ask(c)
        second = await ask(c)
    assert (first.method, first.attempts) == ("function_calling", 2)
    assert (second.method, second.attempts) == ("function_calling", 1)  # json_schema is not tried again
    assert [requested_format(b) for b in server.requests] == ["json_schema", "tools", "tools"]
    assert records[0].ok is False and "unsupported" in (records[0].error or "")


async def test_json_mode_only_server_with_fenced_broken_json_is_parsed_tolerantly(transport: ChatTransport | None) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        if requested_format(body) != "json_object":
            return error_reply(400, "unsupported")
        return text_reply('Here you go:\n```json\n{"label": "ok", "score": 3,}\n```')

    records: list[LLMCallRecord] = []
    with StubServer(respond) as server:
        result = await ask(caller(server, records, transport))
    assert result.value.score == 3 and result.method == "json_mode"
    assert "schema" in json.dumps(server.requests[-1]["messages"]).lower()


async def test_plain_server_gets_the_schema_in_the_prompt(transport: ChatTransport | None) -> None:
    with StubServer(only("text")) as server:
        result = await ask(caller(server, [], transport))
    assert result.method == "prompt" and result.value.label == "ok"


async def test_malformed_output_is_retried_then_falls_through(transport: ChatTransport | None) -> None:
    answers = iter([text_reply("not json at all"), text_reply('{"label": "ok"}')])

    def respond(body: dict[str, Any]) -> Reply:
        if requested_format(body) == "json_schema":
            return next(answers)
        return structured_reply(body, GOOD)

    records: list[LLMCallRecord] = []
    with StubServer(respond) as server:
        result = await ask(caller(server, records, transport))
    assert result.method == "function_calling" and result.attempts == 3
    assert [r.ok for r in records] == [False, False, True]
    assert all("malformed" in (r.error or "") for r in records[:2])


async def test_rate_limits_and_server_errors_are_retried_with_bounds(transport: ChatTransport | None) -> None:
    faults = iter([error_reply(429, "slow down"), error_reply(500, "boom")])

    def respond(body: dict[str, Any]) -> Reply:
        return next(faults, None) or structured_reply(body, GOOD)

    records: list[LLMCallRecord] = []
    with StubServer(respond) as server:
        result = await ask(caller(server, records, transport))
    assert result.method == "json_schema" and result.attempts == 3
    assert [r.error.split(":")[0] if r.error else None for r in records] == ["transient", "transient", None]


async def test_a_server_that_never_answers_validly_raises_and_records_every_attempt(transport: ChatTransport | None) -> None:
    records: list[LLMCallRecord] = []
    with StubServer(lambda body: error_reply(503, "down")) as server:
        with pytest.raises(StructuredOutputError, match="after 4 attempt"):
            await ask(caller(server, records, transport, RetryPolicy(max_attempts=4, backoff_s=0.0)))
    assert len(server.requests) == 4 and len(records) == 4 and not any(r.ok for r in records)


async def test_a_check_can_reject_an_answer(transport: ChatTransport | None) -> None:
    def must_be_positive(answer: Answer) -> None:
        if answer.score <= 0:
            raise ValueError("score must be positive")

    payloads = iter([{"label": "x", "score": 0}, GOOD])
    with StubServer(lambda body: structured_reply(body, next(payloads))) as server:
        result = await ask(caller(server, [], transport), check=must_be_positive)
    assert result.value.score == 3 and result.attempts == 2
